"""MindSpore's dump JSON config (`MINDSPORE_DUMP_CONFIG=/path/dump.json`), read and checked.

    {"common_dump_settings": {"dump_mode": 0, "path": "/abs/dump", "net_name": "LeNet", "iteration": "0|5-8",
                              "saved_data": "tensor", "input_output": 0, "kernels": [], "support_device": [0],
                              "op_debug_mode": 0},
     "e2e_dump_settings": {"enable": true, "trans_flag": true}}

`dump_mode` 0 dumps every kernel, 1 the kernels listed in `kernels` (full scope names, or operator types matched
case-insensitively as substrings: "conv" selects Conv2D-op3), 2 the cells/primitives marked by `set_dump`.
`saved_data`: "tensor" (.npy files), "statistic" (statistic.csv only) or "full" (both). `input_output`: 0 both,
1 inputs only, 2 outputs only. `op_debug_mode` != 0 keeps only kernels whose output overflowed (NaN/Inf).
An empty `path` means `$MS_DIAGNOSTIC_DATA_PATH/debug_dump`.
"""
import json
import os

from .dump_names import parse_iterations

_SAVED = ("tensor", "statistic", "full")


class DumpConfig:
    """A checked dump config; `DumpConfig.load(path)` reads the file, `DumpConfig(dict)` takes the parsed JSON."""

    def __init__(self, data, source="dump config", diagnostic_path=""):
        if not isinstance(data, dict) or not isinstance(data.get("common_dump_settings"), dict):
            raise ValueError(f"{source}: expected an object with a 'common_dump_settings' object.")
        c = data["common_dump_settings"]
        self.raw = data
        self.dump_mode = _choice(c, "dump_mode", (0, 1, 2), 0, source)
        self.path = c.get("path", "")
        if not isinstance(self.path, str):
            raise ValueError(f"{source}: 'path' should be a string, but got {self.path!r}.")
        if not self.path:
            if not diagnostic_path:
                raise ValueError(f"{source}: 'path' is empty and MS_DIAGNOSTIC_DATA_PATH is not set.")
            self.path = os.path.join(diagnostic_path, "debug_dump")
        if not os.path.isabs(self.path):
            raise ValueError(f"{source}: 'path' should be an absolute path, but got {self.path!r}.")
        self.net_name = c.get("net_name", "Net")
        if not isinstance(self.net_name, str) or not self.net_name or "/" in self.net_name:
            raise ValueError(f"{source}: 'net_name' should be a non-empty name without '/', got {self.net_name!r}.")
        self.iteration_spec = c.get("iteration", "all")
        self.iterations = parse_iterations(self.iteration_spec, f"{source}: iteration")
        self.saved_data = _choice(c, "saved_data", _SAVED, "tensor", source)
        self.input_output = _choice(c, "input_output", (0, 1, 2), 0, source)
        self.kernels = c.get("kernels", [])
        if not isinstance(self.kernels, list) or not all(isinstance(k, str) and k for k in self.kernels):
            raise ValueError(f"{source}: 'kernels' should be a list of kernel names, but got {self.kernels!r}.")
        if self.dump_mode == 1 and not self.kernels:
            raise ValueError(f"{source}: dump_mode 1 dumps the listed kernels, but 'kernels' is empty.")
        self.op_debug_mode = _choice(c, "op_debug_mode", (0, 1, 2, 3, 4), 0, source)
        self.support_device = c.get("support_device", list(range(8)))
        e2e = data.get("e2e_dump_settings", {})
        if not isinstance(e2e, dict):
            raise ValueError(f"{source}: 'e2e_dump_settings' should be an object.")
        self.e2e_enable = bool(e2e.get("enable", True))
        self.trans_flag = bool(e2e.get("trans_flag", True))

    @classmethod
    def load(cls, path, diagnostic_path=""):
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except OSError as exc:
            raise ValueError(f"MINDSPORE_DUMP_CONFIG: cannot read {path!r}: {exc.strerror}.") from None
        except ValueError as exc:
            raise ValueError(f"MINDSPORE_DUMP_CONFIG: {path!r} is not valid JSON: {exc}.") from None
        return cls(data, f"dump config {path!r}", diagnostic_path)

    @property
    def tensors(self):
        return self.saved_data in ("tensor", "full")

    @property
    def statistics(self):
        return self.saved_data in ("statistic", "full")

    def selects(self, full_name, op_type, marked=False):
        """Whether a kernel is dumped (decided once per kernel, at compile time)."""
        if self.dump_mode == 0:
            return True
        if self.dump_mode == 2:
            return marked
        for k in self.kernels:
            if "/" in k or "-op" in k:
                if k == full_name:
                    return True
            elif k.lower() in op_type.lower():
                return True
        return False


def _choice(section, key, choices, default, source):
    value = section.get(key, default)
    if isinstance(value, bool) or value not in choices:
        raise ValueError(f"{source}: '{key}' should be one of {list(choices)}, but got {value!r}.")
    return value
