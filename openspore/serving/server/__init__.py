"""MindSpore Serving's server API (`mindspore_serving.server` → `openspore.serving.server`).

>>> from openspore.serving import server
>>> server.start_servables(server.ServableStartConfig("/srv/models", "lenet", device_ids=0))  # doctest: +SKIP
>>> server.start_grpc_server("127.0.0.1:5500")                                              # doctest: +SKIP
>>> server.start_restful_server("127.0.0.1:1500")                                           # doctest: +SKIP
>>> server.stop()                                                                           # doctest: +SKIP
"""
from . import register  # noqa: F401
from . import master  # noqa: F401
from ._start_config import ServableStartConfig  # noqa: F401
from ._server import start_servables, start_grpc_server, start_restful_server, stop, SSLConfig  # noqa: F401

__all__ = ["start_servables", "ServableStartConfig", "start_grpc_server", "start_restful_server", "stop",
           "SSLConfig"]
