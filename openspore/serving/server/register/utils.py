"""Where registration calls come from: the servable directory is the folder holding the calling
`servable_config.py`, found by walking the Python call stack as MindSpore Serving does."""
import inspect
import os


def get_servable_dir():
    """The servable name: the name of the directory of the `servable_config.py` on the call stack."""
    frame = inspect.currentframe()
    try:
        while frame is not None:
            filename = frame.f_code.co_filename
            if os.path.basename(filename) == "servable_config.py":
                return os.path.basename(os.path.dirname(os.path.abspath(filename)))
            frame = frame.f_back
    finally:
        del frame
    raise RuntimeError("Failed to obtain the directory of servable_config.py: 'declare_model', 'register_method' "
                       "and 'add_stage' must be called while '<servable_name>/servable_config.py' is imported.")


def check_str(name, value, where):
    if not isinstance(value, str) or not value:
        raise RuntimeError(f"For '{where}', the parameter '{name}' should be a non-empty str, but got "
                           f"{value!r} ({type(value).__name__}).")
    return value


def check_names(name, value, where):
    """A str or a non-empty list/tuple of unique non-empty str → tuple of str."""
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items:
        raise RuntimeError(f"For '{where}', the parameter '{name}' should be a str or a non-empty tuple/list of str, "
                           f"but got {value!r}.")
    for item in items:
        check_str(name, item, where)
    if len(set(items)) != len(items):
        raise RuntimeError(f"For '{where}', the items of '{name}' should be unique, but got {list(items)}.")
    return tuple(items)
