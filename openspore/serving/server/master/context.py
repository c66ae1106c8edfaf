"""Master settings (MindSpore Serving's `server.master.context`, plus openspore's knobs).

`set_max_enqueued_requests(n)` caps the instances waiting in the master; `set_worker_log_dir(path)` says where the
worker logs go (default `./serving_logs`, as in MindSpore Serving); `set_drain_timeout(seconds)` bounds how long
`server.stop()` waits for in-flight requests; `set_worker_wait_timeout(seconds)` bounds how long a request waits
for a worker of its servable to (re)start.
"""
_settings = {"max_enqueued_requests": 10000, "worker_log_dir": "serving_logs", "drain_timeout": 30.0,
             "worker_wait_timeout": 60.0}


def _positive_number(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise RuntimeError(f"For '{name}', the value should be a number > 0, but got {value!r}.")
    return float(value)


def set_max_enqueued_requests(max_enqueued_requests):
    """set_max_enqueued_requests(max_enqueued_requests): most instances waiting in the master (default 10000)."""
    value = max_enqueued_requests
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RuntimeError(f"For 'set_max_enqueued_requests', the parameter 'max_enqueued_requests' should be an int "
                           f">= 1, but got {value!r}.")
    _settings["max_enqueued_requests"] = value


def set_worker_log_dir(path):
    """set_worker_log_dir(path): directory of the worker logs (`log_worker_device<id>.log`)."""
    if not isinstance(path, str) or not path:
        raise RuntimeError(f"For 'set_worker_log_dir', the path should be a non-empty str, but got {path!r}.")
    _settings["worker_log_dir"] = path


def set_drain_timeout(seconds):
    """set_drain_timeout(seconds): how long `stop()` waits for queued and in-flight requests (default 30)."""
    _settings["drain_timeout"] = _positive_number("set_drain_timeout", seconds)


def set_worker_wait_timeout(seconds):
    """set_worker_wait_timeout(seconds): how long a request waits for a worker to (re)start (default 60)."""
    _settings["worker_wait_timeout"] = _positive_number("set_worker_wait_timeout", seconds)


def get(name):
    return _settings[name]
