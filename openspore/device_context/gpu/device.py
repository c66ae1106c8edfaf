"""GPU queries. openspore reaches a GPU through torch's CUDA; with none, `device_count` raises RuntimeError as
MindSpore does on a machine without GPUs.

>>> from openspore.device_context.gpu import device
>>> isinstance(device.is_available(), bool)
True
"""


def _cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch.cuda if torch.cuda.is_available() else None


def is_available():
    """Whether a CUDA GPU can be used."""
    return _cuda() is not None


def device_count():
    """The number of CUDA GPUs; RuntimeError when there is none."""
    cuda = _cuda()
    if cuda is None:
        raise RuntimeError("Device_target GPU not exist.")
    return cuda.device_count()
