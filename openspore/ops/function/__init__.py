"""The functional API (`ops.add`, `ops.matmul`, …), one module per family, all built on the primitive table."""
from .math_func import *  # noqa: F401,F403
from .array_func import *  # noqa: F401,F403
from .nn_func import *  # noqa: F401,F403
from .nn_layer_func import *  # noqa: F401,F403
from .random_func import *  # noqa: F401,F403
from .grad_func import *  # noqa: F401,F403
from .other_func import *  # noqa: F401,F403
from .vmap_func import *  # noqa: F401,F403
from .math_extra_func import *  # noqa: F401,F403
from .array_extra_func import *  # noqa: F401,F403
from .linalg_func import *  # noqa: F401,F403
from .nn_extra_func import *  # noqa: F401,F403
from .scalar_func import *  # noqa: F401,F403
from .scatter_reduce_func import *  # noqa: F401,F403
from .math_special_func import *  # noqa: F401,F403
from .math_more_func import *  # noqa: F401,F403
from .array_more_func import *  # noqa: F401,F403
