"""Primitive definitions, one module per family. Importing this package fills the primitive table."""
from . import math  # noqa: F401
from . import array  # noqa: F401
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
