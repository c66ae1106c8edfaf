"""Primitive definitions, one module per family. Importing this package fills the primitive table."""
from . import math  # noqa: F401
from . import array  # noqa: F401
from . import nn  # noqa: F401
from . import random  # noqa: F401
from . import side_effect  # noqa: F401
from . import activation  # noqa: F401
from . import activation_smooth  # noqa: F401
from . import softmax  # noqa: F401
from . import loss  # noqa: F401
from . import loss_nll  # noqa: F401
