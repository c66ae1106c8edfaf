"""Backend selection, in one place: the context key `backend` (env OPENSPORE_BACKEND) and `device_target`."""
import contextlib
import threading

from .. import context

_state = {"backend": None}


class _ThreadScoped(threading.local):
    backend = None  # a backend `scoped` put in force for this thread only


_scoped = _ThreadScoped()


def _make(name, device_target):
    if name == "numpy":
        if device_target == "GPU":
            raise ValueError("device_target='GPU' needs the torch backend; the numpy backend runs on CPU only.")
        from .numpy_backend import NumpyBackend
        return NumpyBackend()
    from .torch_backend import TorchBackend
    if device_target == "GPU":
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("device_target='GPU' was requested but torch finds no CUDA device on this machine.")
        return TorchBackend(f"cuda:{context.get_context('device_id')}")
    return TorchBackend("cpu")


def current():
    """The active backend object."""
    backend = _scoped.backend or _state["backend"]
    if backend is None:
        backend = _state["backend"] = _make(context.get_context("backend"), context.get_context("device_target"))
    return backend


@contextlib.contextmanager
def scoped(backend):
    """Run a block on `backend` in this thread only, whatever the context says (the lite runtime loads models on
    the numpy backend inside a process whose context may name torch).

    >>> from openspore import backends
    >>> with backends.scoped(backends.get("numpy")):
    ...     backends.current().name
    'numpy'
    """
    saved, _scoped.backend = _scoped.backend, backend
    try:
        yield backend
    finally:
        _scoped.backend = saved


def get(name):
    """A backend by name on CPU (tests compare backends through this)."""
    return _make(name, "CPU")


def _on_context(key, value):
    if key == "mempool_block_size" and _state["backend"] is not None:
        _state["backend"].set_host_pool(value)
    if key in ("backend", "device_target", "device_id"):
        _state["backend"] = None
        current()  # fail now (no CUDA, no torch) so set_context can refuse the change


context.add_listener(_on_context)


def backend_name():
    return context.get_context("backend")
