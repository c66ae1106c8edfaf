"""`device_context.cpu.op_tuning.threads_num`: the number of threads the CPU kernels use.

>>> from openspore.device_context.cpu import op_tuning
>>> try:
...     op_tuning.threads_num(0)
... except ValueError as exc:
...     print(exc)
The 'num' must be int and must > 0, but got '0' with type 'int'.
"""
from .. import _settings


def threads_num(num):
    """Set the threads the CPU kernels use (an int > 0), once per process. openspore's CPU kernels run in
    torch (and BLAS under it), so this sets torch's intra-op thread count."""
    if isinstance(num, bool) or (isinstance(num, int) and num <= 0):
        error = TypeError if isinstance(num, bool) else ValueError
        raise error(f"The 'num' must be int and must > 0, but got '{num}' with type '{type(num).__name__}'.")
    _settings.check_type("num", num, int)
    _settings.record("cpu.op_tuning.threads_num", num)
    try:
        import torch
    except ImportError:  # the numpy backend: BLAS reads OMP_NUM_THREADS itself
        return
    torch.set_num_threads(num)
