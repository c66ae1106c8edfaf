"""Name and version the serving front ends report (KServe server metadata)."""
SERVER_NAME = "openspore-serving"


def server_version():
    from ..version import __version__
    return __version__
