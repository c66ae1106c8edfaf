"""Primitive classes (`ops.operations`, the 1.x path `from mindspore.ops import operations as P`).

Every class registered in the primitive table is exported here under its MindSpore name.
"""
from ..core.primitive import PRIMITIVES, Primitive  # noqa: F401
from . import defs  # noqa: F401  (fills the table)

from . import operation_modules  # noqa: F401,E402  (MindSpore's operations.nn_ops, ._inner_ops, ... paths)

# MindSpore's `ops.operations` is a package: an (empty) __path__ lets `operations.nn_ops` and the like be imported;
# operation_modules answers them.
__path__ = []
globals().update(PRIMITIVES)
__all__ = sorted(PRIMITIVES) + ["Primitive"]
from .defs.comm import ReduceOp  # noqa: F401,E402  (`from mindspore.ops.operations import ReduceOp`, comm_ops' enum)


def __getattr__(name):
    """`P.Shape`, `P.DivNoNan`, ...: the Primitive classes computed as composites (PEP 562, imported on first use
    since they are built on the functional API, which imports this module)."""
    from . import (attention_primitives, comm_primitives_more, composite_primitives, composite_primitives_compat, composite_primitives_extra,
                   composite_primitives_misc, fractional_pool, hooks, misc_primitives_more, rnn_primitives, image_primitives, optim_primitives, optim_primitives_fused,
                   resize_primitives, resize_primitives_more)
    for module in (composite_primitives, composite_primitives_extra, composite_primitives_misc, hooks,
                   optim_primitives, resize_primitives, composite_primitives_compat, optim_primitives_fused,
                   image_primitives, resize_primitives_more, comm_primitives_more, attention_primitives,
                   fractional_pool, rnn_primitives, misc_primitives_more):
        if name in module.__all__:
            return getattr(module, name)
    if name in operation_modules.SUBMODULES:  # `P.array_ops.IndexFill`: the submodule as an attribute, unimported
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'openspore.ops.operations' has no attribute {name!r}")
from .hybrid_kernel import kernel, ms_kernel  # noqa: E402,F401  (mindspore.ops.operations.kernel)
