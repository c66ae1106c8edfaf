"""1.x path `mindspore.ops.functional` (F.xxx): the functional API."""
from .function import *  # noqa: F401,F403
