"""MindSpore's `ops.operations` is a package whose submodules (`array_ops`, `math_ops`, `nn_ops`, `_grad_ops`,
`_inner_ops`, ...) each hold part of the Primitive classes. openspore keeps one table, so each of those module paths
is answered by a module that looks names up in `ops.operations` (and, for `_inner_ops`, in inner_primitives).

>>> from openspore.ops.operations import nn_ops, _inner_ops
>>> nn_ops.Conv2D is __import__("openspore").ops.Conv2D, _inner_ops.ConvertToDynamic.__name__
(True, 'ConvertToDynamic')
"""
import importlib.abc
import importlib.util
import sys

PARENT = "openspore.ops.operations"
SUBMODULES = frozenset({
    "_csr_ops", "_custom_grad", "_embedding_cache_ops", "_grad_ops", "_infer_ops", "_inner_ops", "_map_tensor_ops",
    "_ocr_ops", "_quant_ops", "_rl_inner_ops", "_scalar_ops", "_sequence_ops", "_sparse_grad_ops", "_thor_ops",
    "array_ops", "comm_ops", "control_ops", "custom_ops", "debug_ops", "image_ops", "inner_ops", "linalg_ops",
    "manually_defined", "math_ops", "nn_ops", "other_ops", "random_ops", "reshard_ops", "sparse_ops",
    "spectral_ops"})


def _forwarding_getattr(module_name):
    def __getattr__(name):
        from . import inner_primitives, operations
        if name.startswith("__"):
            raise AttributeError(name)
        if name in inner_primitives.__all__:
            return getattr(inner_primitives, name)
        try:
            return getattr(operations, name)
        except AttributeError:
            raise AttributeError(f"module {module_name.replace('openspore', 'mindspore', 1)!r} has no attribute "
                                 f"{name!r} (openspore has no such Primitive)") from None
    return __getattr__


class _OperationModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        parent, _, leaf = fullname.rpartition(".")
        if parent == PARENT and leaf in SUBMODULES:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__doc__ = f"`{module.__name__.replace('openspore', 'mindspore', 1)}`: names from `ops.operations`."
        module.__getattr__ = _forwarding_getattr(module.__name__)


def install():
    if not any(isinstance(f, _OperationModules) for f in sys.meta_path):
        sys.meta_path.insert(0, _OperationModules())


install()
