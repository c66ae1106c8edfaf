"""openspore.ops: the functional API and the Primitive classes, both built on one primitive table.

>>> import openspore as ms
>>> len(ms.ops.primitive_table()) > 0
True
"""
from ..core.primitive import AbstractTensor, Primitive, primitive_table  # noqa: F401
from . import operations  # noqa: F401  (registers every primitive)
from .operations import *  # noqa: F401,F403
from .function import *  # noqa: F401,F403
from . import functional, composite  # noqa: F401
from . import signature  # noqa: F401  (mindspore.ops.signature)
from .reshard_func import reshard  # noqa: F401
from .hybrid_kernel import kernel, ms_kernel  # noqa: F401
from . import tensor_methods as _tensor_methods  # noqa: F401  (installs Tensor methods)
from . import tensor_math_methods as _tensor_math_methods  # noqa: F401  (and the math ones)
from .composite import HyperMap, Map, MultitypeFuncGraph, add_flags, zip_operation  # noqa: F401
from .primitive import PrimitiveWithCheck, PrimitiveWithInfer, constexpr, prim_attr_register  # noqa: F401
from .composite_primitives import *  # noqa: F401,F403  (MindSpore Primitive classes computed as composites)
from .composite_primitives_extra import *  # noqa: F401,F403
from .composite_primitives_misc import *  # noqa: F401,F403
from .optim_primitives import *  # noqa: F401,F403
from .hooks import HookBackward, InsertGradientOf  # noqa: F401
from . import operations as P  # noqa: F401  (MindSpore's ops.P)
from .defs.comm import ReduceOp  # noqa: F401
from .resize_primitives import *  # noqa: F401,F403
from .composite_primitives_compat import *  # noqa: F401,F403
from .optim_primitives_fused import *  # noqa: F401,F403
from .image_primitives import *  # noqa: F401,F403
from .resize_primitives_more import *  # noqa: F401,F403
from .comm_primitives_more import *  # noqa: F401,F403
from .attention_primitives import *  # noqa: F401,F403
from .fractional_pool import *  # noqa: F401,F403
from .rnn_primitives import *  # noqa: F401,F403
from .misc_primitives_more import *  # noqa: F401,F403
from .op_info import *  # noqa: F401,F403
from . import auto_generate  # noqa: F401,E402  (MindSpore's generated-ops module path)
from . import tensor_more_methods as _tensor_more_methods  # noqa: F401,E402  (last: forwards to the names above)
from . import tensor_compat_methods as _tensor_compat_methods  # noqa: F401,E402
from .functional_instances import reshape_, shape_, stop_gradient_, tensor_slice  # noqa: F401,E402


# mindspore.ops re-exports the torch-style collectives (mindspore.ops.communication); they live in
# openspore.communication, above this layer, so they are looked up on first use.
_COMMUNICATION = ("P2POp", "TCPStore", "all_gather", "all_gather_into_tensor", "all_gather_into_tensor_uneven",
                  "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "all_to_all_v_c", "barrier",
                  "batch_isend_irecv", "broadcast", "broadcast_object_list", "destroy_process_group", "gather_object", "get_backend",
                  "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size",
                  "init_process_group", "irecv", "is_available", "is_initialized", "isend", "new_group", "recv",
                  "recv_object_list", "reduce", "reduce_scatter", "reduce_scatter_tensor",
                  "reduce_scatter_tensor_uneven", "scatter_object_list", "send", "send_object_list")


def __getattr__(name):
    if name in _COMMUNICATION:
        from ..communication import distributed
        return getattr(distributed, name)
    if name in ("gather_into_tensor", "scatter_tensor"):
        from ..communication import comm_func
        return getattr(comm_func, name)
    # A mistyped name: "Did you mean" follows the user's style (ops.layernorm → 'layer_norm', not 'LayerNorm').
    import sys
    from ..common.errors import missing_attribute
    raise missing_attribute(sys.modules[__name__], name)
