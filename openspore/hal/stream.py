"""`mindspore.hal.stream`: the runtime's streams under their `hal` path."""
from ..runtime.streams import (Stream, StreamCtx, communication_stream, current_stream, default_stream,  # noqa: F401
                               set_cur_stream, synchronize)
