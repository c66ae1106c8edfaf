"""Primitive definitions, one module per family. Importing this package fills the primitive table."""
from . import math  # noqa: F401
from . import math_unary, math_binary, math_logic, math_reduce, math_scan  # noqa: F401
from . import array, array_join, array_slice, array_pad, array_gather, array_select, array_create  # noqa: F401
from . import nn  # noqa: F401
from . import nn_conv  # noqa: F401
from . import nn_pool  # noqa: F401
from . import nn_avgpool  # noqa: F401
from . import nn_batchnorm  # noqa: F401
from . import nn_norm  # noqa: F401
from . import nn_resize  # noqa: F401
from . import nn_fold  # noqa: F401
from . import random  # noqa: F401
from . import side_effect  # noqa: F401
from . import optim_foreach  # noqa: F401
from . import optim_ops  # noqa: F401
from . import activation  # noqa: F401
from . import activation_smooth  # noqa: F401
from . import softmax  # noqa: F401
from . import loss  # noqa: F401
from . import loss_nll  # noqa: F401
from . import layout  # noqa: F401
from . import nn_conv_fused  # noqa: F401
from . import linalg  # noqa: F401
from . import math_bitwise  # noqa: F401
from . import comm  # noqa: F401
from . import summary  # noqa: F401
from . import array_scatter_reduce  # noqa: F401
from . import math_special  # noqa: F401
from . import linalg_det  # noqa: F401
from . import fft  # noqa: F401
from . import math_complex  # noqa: F401
from . import linalg_decomp  # noqa: F401
from . import math_integer  # noqa: F401
from . import sparse  # noqa: F401
from . import sparse_optim  # noqa: F401
from . import random_dist  # noqa: F401
from . import loss_ctc  # noqa: F401
