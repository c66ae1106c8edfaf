"""What a backend is: a kernel lookup over the primitive table plus array conversion and allocation.

A primitive definition carries its kernels as methods named after the backend (`numpy`, `torch`);
each receives the backend's array module first, then arrays and Python values. Backend choice lives
in `openspore.backends.current()` only; op, pass and layer code never asks which backend runs.
"""
import numpy as np

from ..common import dtype as mstype
from ..common.generations import WRITES


class Backend:
    name = "base"
    xp = None  # the array module handed to kernels
    # When set, every array of exactly this class is native (the backend has one device): the op hot path
    # (core/dispatch.py) tests the class instead of calling `is_native` per argument.
    native_type = None

    def set_host_pool(self, block_size):
        """Host memory pooling (`mempool_block_size`); the torch CPU backend acts on it, others need not."""

    # primitives whose kernels return a view of their first input (no new array): the memory planner lets
    # their output share the viewed tensor's bytes (compiler/memory/lifetimes.py)
    view_primitives = frozenset({"StopGradient"})

    def __init__(self):
        self._kernels = {}  # primitive class -> unbound kernel function

    # --- kernels ---------------------------------------------------------------------------------
    def kernel(self, prim):
        cls = type(prim)
        fn = self._kernels.get(cls)
        if fn is None:
            fn = getattr(cls, self.name, None)
            if fn is None:
                raise NotImplementedError(f"Primitive '{prim.name}' has no kernel for the {self.name} backend.")
            if getattr(cls, "side_effect", False) and getattr(cls, "writes_input", True):
                fn = _counting_writes(fn)
            self._kernels[cls] = fn
        return fn

    # dtypes some of this backend's kernels lack (see TorchBackend.host_fallback); none here
    partial_dtypes = frozenset()

    def host_fallback(self, prim, exc):
        """A kernel to retry with after the backend's kernel raised `exc`, or None to re-raise it."""
        return None

    def guarded_kernel(self, prim):
        """The kernel for operands of `partial_dtypes`: by default the kernel itself."""
        return self.kernel(prim)

    def out_kernel(self, prim):
        """The primitive's kernel that writes into a given array (`<backend>_out(p, xp, out, *args)`), or None:
        the arena (runtime/arena.py) then copies the plain kernel's result into the planned view."""
        for cls in type(prim).__mro__:  # only beside the kernel it mirrors: a subclass's own kernel wins
            if self.name in vars(cls):
                return vars(cls).get(f"{self.name}_out")
        return None

    def bound_kernel(self, prim, inputs, first_only=False):
        """The primitive's kernel specialised for one graph node, or None: `<backend>_bind(p, xp, inputs,
        first_only)` beside the kernel gets the node's inputs (AbstractTensor, or the Python value of a constant)
        and returns `fn(*args)` with the axes, sizes and library choices worked out once (a compiled graph's
        shapes are fixed), or None to keep the kernel. With `first_only` it must compute only output 0, as a
        1-tuple (as `first_kernel`). Only for primitives without side effects."""
        cls = type(prim)
        if getattr(cls, "side_effect", False):
            return None
        for klass in cls.__mro__:  # only beside the kernel it mirrors: a subclass's own kernel wins
            if self.name in vars(klass):
                bind = vars(klass).get(f"{self.name}_bind")
                return None if bind is None else bind(prim, self.xp, inputs, first_only)
        return None

    def first_kernel(self, prim):
        """The primitive's kernel that computes only its first output, as a 1-tuple (`<backend>_first(p, xp,
        *args)`), or None. The executor uses it where a graph reads nothing else of a multi-output primitive
        (LayerNorm's mean and variance in inference, say)."""
        for cls in type(prim).__mro__:  # only beside the kernel it mirrors: a subclass's own kernel wins
            if self.name in vars(cls):
                return vars(cls).get(f"{self.name}_first")
        return None

    # --- arrays ----------------------------------------------------------------------------------
    def is_native(self, arr):
        raise NotImplementedError

    def from_numpy(self, array, dtype=None, copy=True):
        raise NotImplementedError

    def to_numpy(self, arr):
        raise NotImplementedError

    def dtype_of(self, arr):
        raise NotImplementedError

    def native_dtype(self, dtype):
        raise NotImplementedError

    # --- the memory arena (runtime/arena.py) -------------------------------------------------------
    def byte_buffer(self, nbytes):
        """One uninitialised buffer of `nbytes` bytes: a planned graph's arena."""
        raise NotImplementedError

    def view_bytes(self, buffer, offset, shape, dtype):
        """The array of `shape` and openspore `dtype` over `buffer`'s bytes from `offset` (no copy)."""
        raise NotImplementedError

    def copy_into(self, view, value):
        """Write `value` into the arena `view` and return the view; `value` itself when it is not an array of
        the view's shape and dtype (then the planned bytes stay unused and nothing is converted)."""
        raise NotImplementedError

    def in_buffer(self, buffer, arr):
        """True when `arr` is a view into `buffer`."""
        raise NotImplementedError

    def adopt(self, arr):
        """Bring an array of any backend (or numpy) into this backend."""
        if self.is_native(arr):
            return arr
        if isinstance(arr, np.ndarray):
            return self.from_numpy(arr, copy=False)
        if hasattr(arr, "detach") and hasattr(arr, "cpu"):  # a torch tensor reaching the numpy backend
            return self.from_numpy(_torch_to_numpy(arr), copy=False)
        return self.from_numpy(np.asarray(arr), copy=False)

    def scalar_array(self, value, dtype):
        return self.from_numpy(np.asarray(value, dtype=dtype.np_dtype), copy=False)

    def synchronize(self):
        pass


def _counting_writes(kernel):
    """A side-effecting kernel (it writes into an input: Assign, optimizer updates) that announces its writes
    (common/generations.py), in PyNative and compiled graphs alike: both take kernels from `Backend.kernel`."""
    def run(p, xp, *args):
        try:
            return kernel(p, xp, *args)
        finally:
            WRITES[0] += 1
    run.__name__ = getattr(kernel, "__name__", "kernel")
    run.__wrapped__ = kernel
    return run


def _torch_to_numpy(t):
    import torch  # only reached when a torch array already exists, i.e. torch is installed
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(mstype.bfloat16.np_dtype)
    return t.numpy()
