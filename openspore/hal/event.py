"""`mindspore.hal.event`: the runtime's events under their `hal` path."""
from ..runtime.streams import Event  # noqa: F401
