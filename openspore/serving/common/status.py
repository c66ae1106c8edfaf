"""Status codes carried in `ErrorMsg.error_code` (MindSpore Serving's C++ StatusCode values) and the error type
the server side raises for request-level failures."""
import enum


class StatusCode(enum.IntEnum):
    SUCCESS = 0
    FAILED = 1
    INVALID_INPUTS = 2
    SYSTEM_ERROR = 3
    WORKER_UNAVAILABLE = 4
    SERVABLE_UNAVAILABLE = 5


class ServingError(Exception):
    """A request-level failure: `code` is a StatusCode; `http_status` is what the KServe endpoints answer."""

    def __init__(self, message, code=StatusCode.INVALID_INPUTS, http_status=None):
        super().__init__(message)
        self.message = str(message)
        self.code = StatusCode(code)
        if http_status is None:
            http_status = {StatusCode.INVALID_INPUTS: 400, StatusCode.SERVABLE_UNAVAILABLE: 503,
                           StatusCode.WORKER_UNAVAILABLE: 503}.get(self.code, 500)
        self.http_status = http_status


class NotFoundError(ServingError):
    """Unknown servable, method or version: 404 on the KServe endpoints."""

    def __init__(self, message):
        super().__init__(message, StatusCode.INVALID_INPUTS, http_status=404)


def servable_repr(name, method=None, version=0):
    """MindSpore's request description: `servable(add) method(add_common) version(1) `."""
    text = f"servable({name}) "
    if method is not None:
        text += f"method({method}) "
    if version:
        text += f"version({version}) "
    return text
