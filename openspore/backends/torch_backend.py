"""The torch backend: torch kernels on CPU (CUDA with device_target='GPU'), never torch autograd.

Our tensors never set `requires_grad`, so torch records no graph; gradients come from openspore's own
backward rules.
"""
import numpy as np
import torch

from .. import context
from ..common import dtype as mstype
from . import host_memory
from .base import Backend, _torch_to_numpy

_TO_TORCH = {
    mstype.bool_: torch.bool, mstype.int8: torch.int8, mstype.int16: torch.int16, mstype.int32: torch.int32,
    mstype.int64: torch.int64, mstype.uint8: torch.uint8, mstype.uint16: torch.uint16, mstype.uint32: torch.uint32,
    mstype.uint64: torch.uint64, mstype.float16: torch.float16, mstype.float32: torch.float32,
    mstype.float64: torch.float64, mstype.bfloat16: torch.bfloat16, mstype.complex64: torch.complex64,
    mstype.complex128: torch.complex128,
}
_FROM_TORCH = {v: k for k, v in _TO_TORCH.items()}


class TorchBackend(Backend):
    name = "torch"
    xp = torch

    def __init__(self, device="cpu"):
        super().__init__()
        self._guarded = {}
        self.device = torch.device(device)
        self._cuda = self.device.type == "cuda"
        # without CUDA every torch tensor is a CPU one, so the class alone says "native" (see Backend.native_type)
        self.native_type = None if self._cuda or torch.cuda.is_available() else torch.Tensor
        if not self._cuda:
            self.set_host_pool(context.get_context("mempool_block_size"))
        if self._cuda:
            # float32 means float32: cuDNN would otherwise run convolutions in TF32 (10-bit mantissa), and
            # results would drift from the CPU and from MindSpore by ~1e-3. Users who want TF32 turn it back on.
            torch.backends.cudnn.allow_tf32 = False
            torch.backends.cuda.matmul.allow_tf32 = False

    # torch implements few operations on these; MindSpore's CPU kernels take them all
    partial_dtypes = frozenset({mstype.uint16, mstype.uint32, mstype.uint64})

    def host_fallback(self, prim, exc):
        """The primitive's numpy kernel run on host copies, for a torch kernel that raised `exc` because torch has
        no kernel for an unsigned dtype; None when `exc` is anything else (the caller re-raises it).

        Kept off the common path: PyNative's `bind` asks only after the torch kernel failed, and graph code binds
        `guarded_kernel` only where an operand's inferred dtype is one of `partial_dtypes`."""
        reference = getattr(type(prim), "numpy", None)
        if reference is None or "not implemented for 'UInt" not in str(exc):
            return None
        to_device = self.from_numpy

        def run_on_host(p, xp, *arrays):
            host = [_to_host(a) for a in arrays]
            with np.errstate(all="ignore"):
                out = reference(p, np, *host)
            if isinstance(out, tuple):
                return tuple(to_device(np.asarray(o), copy=False) for o in out)
            return to_device(np.asarray(out), copy=False)
        return run_on_host

    def guarded_kernel(self, prim):
        """The torch kernel, falling back to `host_fallback` when torch has no kernel for the operands' dtype."""
        fn = self._guarded.get(type(prim))
        if fn is None:
            raw = self.kernel(prim)

            def fn(p, xp, *arrays):
                try:
                    return raw(p, xp, *arrays)
                except RuntimeError as exc:  # NotImplementedError is a RuntimeError
                    fallback = self.host_fallback(p, exc)
                    if fallback is None:
                        raise
                return fallback(p, xp, *arrays)
            self._guarded[type(prim)] = fn
        return fn

    def set_host_pool(self, block_size):
        """CPU tensors come from a pool of `block_size` (MindSpore's `mempool_block_size`): see host_memory."""
        host_memory.keep_freed_memory(context.block_size_bytes(block_size))

    # kernels that return views (strides over the input's storage) rather than new arrays
    view_primitives = frozenset({"StopGradient", "Reshape", "Transpose", "ExpandDims", "Squeeze", "Flatten",
                                 "Split", "SplitV"})

    def byte_buffer(self, nbytes):
        return torch.empty(nbytes, dtype=torch.uint8, device=self.device)

    def view_bytes(self, buffer, offset, shape, dtype):
        itemsize = dtype.itemsize
        count = 1
        for s in shape:
            count *= s
        return buffer[offset:offset + count * itemsize].view(_TO_TORCH[dtype]).view(tuple(shape))

    def copy_into(self, view, value):
        if value is view or type(value) is not torch.Tensor or value.dtype != view.dtype \
                or value.shape != view.shape:
            return value
        if not value.is_contiguous():
            # a kernel's chosen layout (oneDNN's channels-last convolutions) is kept: the next kernels pick their
            # algorithm, and so their rounding, from it. Same bytes, other strides; anything else stays unplanned.
            if value.dim() != 4 or not value.is_contiguous(memory_format=torch.channels_last):
                return value
            view = torch.as_strided(view, value.shape, value.stride(), view.storage_offset())
        view.copy_(value)
        return view

    def in_buffer(self, buffer, arr):
        return type(arr) is torch.Tensor and arr.untyped_storage().data_ptr() == buffer.untyped_storage().data_ptr()

    def is_native(self, arr):
        # is_cuda is a cheap flag; comparing torch.device objects on every op is not
        return type(arr) is torch.Tensor and arr.is_cuda == self._cuda

    def adopt(self, arr):
        if type(arr) is torch.Tensor:
            if arr.device != self.device:
                return arr.to(self.device)
            return arr.detach() if arr.requires_grad else arr
        return super().adopt(arr)

    def from_numpy(self, array, dtype=None, copy=True):
        array = np.asarray(array)
        if dtype is not None and array.dtype != dtype.np_dtype:
            array = array.astype(dtype.np_dtype)
        if not array.flags.writeable or not array.flags.c_contiguous:
            # np.ascontiguousarray would turn 0-d into 1-d; np.array keeps the shape
            array = np.array(array, order="C", copy=True)
            copy = False
        if array.dtype == mstype.bfloat16.np_dtype:
            t = torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
        else:
            t = torch.from_numpy(array)
        if copy:
            t = t.clone()
        if self.device.type != "cpu":
            t = t.to(self.device)
        return t

    def to_numpy(self, arr):
        return _torch_to_numpy(arr)

    def dtype_of(self, arr):
        return _FROM_TORCH[arr.dtype]

    def native_dtype(self, dtype):
        return _TO_TORCH[dtype]

    def scalar_array(self, value, dtype):
        return torch.tensor(value, dtype=_TO_TORCH[dtype], device=self.device)

    def synchronize(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)


def _to_host(value):
    """A kernel argument with its torch tensors (also inside lists and tuples, as AddN takes) made numpy arrays."""
    if type(value) is torch.Tensor:
        return _torch_to_numpy(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_host(v) for v in value)
    return value


def torch_dtype(dtype):
    return _TO_TORCH[dtype]
