"""`mindspore.dataset.core.config`: the same settings as `mindspore.dataset.config` (one state, two paths)."""
from ..config import *  # noqa: F401,F403
from .. import config as _config


def __getattr__(name):
    return getattr(_config, name)
