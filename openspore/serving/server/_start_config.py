"""`ServableStartConfig` and the merging of several configs (MindSpore Serving's rules)."""
import os
import sys

from .master._master import newest_version, servable_directory_check

_DEVICE_TYPES = {"ascend": "ascend", "gpu": "gpu", "cpu": "cpu"}


def _abs_path(path):
    """Relative paths are resolved against the directory of the startup script, as MindSpore Serving does."""
    if os.path.isabs(path):
        return os.path.realpath(path)
    script = sys.argv[0] if sys.argv and sys.argv[0] not in ("", "-c", "-m") else ""
    base = os.path.dirname(os.path.realpath(script)) if script and os.path.exists(script) else os.getcwd()
    return os.path.realpath(os.path.join(base, path))


def _int(name, value, low, high=None):
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise RuntimeError(f"For 'ServableStartConfig', the parameter '{name}' should be an int {bound}, but got "
                           f"{value!r}.")
    return value


class ServableStartConfig:
    """ServableStartConfig(servable_directory, servable_name, device_ids=None, version_number=0, device_type=None,
    num_parallel_workers=0, dec_key=None, dec_mode='AES-GCM', *, max_batch_size=None, max_queue_delay=0.0):
    what to serve and where. openspore adds the batching knobs: `max_batch_size` (instances per worker batch;
    default the model batch size; for a generation servable, the most sequences its scheduler decodes together,
    1 = one request at a time) and `max_queue_delay` (seconds a batch may wait to fill; default 0)."""

    def __init__(self, servable_directory, servable_name, device_ids=None, version_number=0, device_type=None,
                 num_parallel_workers=0, dec_key=None, dec_mode="AES-GCM", *, max_batch_size=None,
                 max_queue_delay=0.0):
        for name, value in (("servable_directory", servable_directory), ("servable_name", servable_name)):
            if not isinstance(value, str) or not value:
                raise RuntimeError(f"For 'ServableStartConfig', the parameter '{name}' should be a non-empty str, but "
                                   f"got {value!r}.")
        self._servable_directory = _abs_path(servable_directory)
        self._servable_name = servable_name
        if device_ids is None:
            ids = ()
        elif isinstance(device_ids, int) and not isinstance(device_ids, bool):
            ids = (device_ids,)
        elif isinstance(device_ids, (list, tuple)):
            ids = tuple(device_ids)
        else:
            raise RuntimeError(f"For 'ServableStartConfig', the parameter 'device_ids' should be an int or a "
                               f"list/tuple of int, but got {device_ids!r}.")
        for d in ids:
            _int("device_ids", d, 0)
        if len(set(ids)) != len(ids):
            raise RuntimeError(f"For 'ServableStartConfig', the items of 'device_ids' should be unique, but got "
                               f"{list(ids)}.")
        self._device_ids = ids
        self._version_number = _int("version_number", version_number, 0)
        if device_type is not None:
            if not isinstance(device_type, str) or device_type.lower() not in _DEVICE_TYPES:
                raise RuntimeError(f"Unsupported device type {device_type!r}, expected 'Ascend', 'GPU', 'CPU' or None, "
                                   "case ignored.")
            device_type = device_type.lower()
            if device_type == "ascend":
                raise RuntimeError("Unsupported device type 'Ascend': openspore serves on CPU and GPU.")
        self._device_type = device_type
        self._num_parallel_workers = _int("num_parallel_workers", num_parallel_workers, 0, 64)
        if dec_key is not None:
            raise RuntimeError("For 'ServableStartConfig', encrypted models ('dec_key') are not supported by "
                               "openspore serving yet.")
        if dec_mode not in ("AES-GCM", "AES-CBC"):
            raise RuntimeError(f"For 'ServableStartConfig', the parameter 'dec_mode' should be 'AES-GCM' or 'AES-CBC', "
                               f"but got {dec_mode!r}.")
        self._dec_key, self._dec_mode = dec_key, dec_mode
        if max_batch_size is not None:
            _int("max_batch_size", max_batch_size, 1)
        self.max_batch_size = max_batch_size
        if isinstance(max_queue_delay, bool) or not isinstance(max_queue_delay, (int, float)) or max_queue_delay < 0:
            raise RuntimeError(f"For 'ServableStartConfig', the parameter 'max_queue_delay' should be a number of "
                               f"seconds >= 0, but got {max_queue_delay!r}.")
        self.max_queue_delay = float(max_queue_delay)
        self.resolved_version = None

    servable_directory = property(lambda self: self._servable_directory)
    servable_name = property(lambda self: self._servable_name)
    device_ids = property(lambda self: self._device_ids)
    version_number = property(lambda self: self._version_number)
    device_type = property(lambda self: self._device_type)
    num_parallel_workers = property(lambda self: self._num_parallel_workers)
    dec_key = property(lambda self: self._dec_key)
    dec_mode = property(lambda self: self._dec_mode)

    def __repr__(self):
        return (f"ServableStartConfig({self._servable_directory!r}, {self._servable_name!r}, device_ids="
                f"{list(self._device_ids)}, version_number={self._version_number})")


def merge_configs(configs):
    """Check the directories and resolve versions; configs of the same (name, version) are merged (device ids
    unioned, the larger batch knobs win)."""
    if isinstance(configs, ServableStartConfig):
        configs = [configs]
    if not isinstance(configs, (list, tuple)) or not configs:
        raise RuntimeError(f"The parameter 'servable_configs' of start_servables should be a ServableStartConfig or a "
                           f"non-empty list/tuple of them, but got {configs!r}.")
    directories, merged = {}, {}
    for config in configs:
        if not isinstance(config, ServableStartConfig):
            raise RuntimeError(f"The item of 'servable_configs' should be a ServableStartConfig, but got "
                               f"{type(config).__name__}.")
        name, directory = config.servable_name, config.servable_directory
        if directories.setdefault(name, directory) != directory:
            raise RuntimeError(f"The servable directories of servable '{name}' differ: '{directories[name]}' and "
                               f"'{directory}'.")
        servable_directory_check(directory, name)
        version = config.version_number or newest_version(directory, name)
        config.resolved_version = version
        key = (name, version)
        if key not in merged:
            merged[key] = config
            continue
        first = merged[key]
        first._device_ids = tuple(sorted(set(first.device_ids) | set(config.device_ids)))
        first._num_parallel_workers = max(first.num_parallel_workers, config.num_parallel_workers)
        if config.max_batch_size is not None:
            first.max_batch_size = max(first.max_batch_size or 0, config.max_batch_size)
        first.max_queue_delay = max(first.max_queue_delay, config.max_queue_delay)
    return list(merged.values())
