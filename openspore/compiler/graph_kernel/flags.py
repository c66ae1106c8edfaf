"""Graph-kernel fusion switches: `enable_graph_kernel`, `graph_kernel_flags`, the environment, `jit_level="O1"`.

MindSpore's flag string is `--key=value` items separated by spaces; list values are comma separated; a bare
`--key` of a boolean flag means true. The flags a compile runs with come from (later wins on a conflict)
`MS_GRAPH_KERNEL_FLAGS`, `MS_DEV_GRAPH_KERNEL_FLAGS`, then `set_context(graph_kernel_flags=...)`. Fusion is on
when `opt_level` > 0: `opt_level` given in the flags wins, else it is 2 when `enable_graph_kernel=True` or the
user chose `jit_level="O1"` (ms.jit / JitConfig / set_context), else 0.

>>> flags = parse_flags("--opt_level=2 --dump_as_text --disable_cluster_ops=ReLU,Add")
>>> flags["opt_level"], flags["dump_as_text"], flags["disable_cluster_ops"]
(2, True, ('ReLU', 'Add'))
>>> parse_flags("--opt_levle=2")
Traceback (most recent call last):
...
ValueError: graph_kernel_flags: unknown flag '--opt_levle' in '--opt_levle=2'; supported flags: ...
>>> resolve("--dump_as_text", enabled=True).opt_level
2
>>> resolve("", enabled=False) is None
True
"""
import json
import logging

from ... import context

logger = logging.getLogger("openspore.graph_kernel")

_BOOL, _INT, _LIST, _STR = "bool", "int", "list", "str"
FLAG_KINDS = {
    "opt_level": _INT, "dump_as_text": _BOOL,
    "enable_expand_ops": _LIST, "enable_expand_ops_only": _LIST, "disable_expand_ops": _LIST,
    "enable_cluster_ops": _LIST, "enable_cluster_ops_only": _LIST, "disable_cluster_ops": _LIST,
    "path": _STR,
}
# MindSpore flags that tune AKG/Ascend/GPU parts openspore does not have: accepted (scripts keep running), with
# a warning that they change nothing here.
NO_EFFECT = {
    "enable_stitch_fusion": _BOOL, "enable_recompute_fusion": _BOOL, "enable_parallel_fusion": _BOOL,
    "enable_horizontal_fusion": _BOOL, "enable_auto_tensor_inplace": _BOOL, "enable_low_precision": _BOOL,
    "enable_debug_mode": _BOOL, "enable_vectorization": _BOOL, "exact_precision_mode": _BOOL,
    "reduce_fuse_depth": _INT, "online_tuning": _INT, "fusion_ops_level": _INT, "parallel_ops_level": _INT,
    "cpu_refer_thread_num": _INT, "composite_op_limit_size": _INT, "kernel_generator": _STR,
}
_TRUE, _FALSE = ("true", "1", "on", "yes"), ("false", "0", "off", "no")


def parse_flags(text, where="graph_kernel_flags"):
    """The flag string as a dict {name: value} (bool, int, tuple of op names or str); a clear error otherwise."""
    if not isinstance(text, str):
        raise TypeError(f"{where}: the flags must be a str, but got {type(text).__name__}.")
    out = {}
    for item in text.split():
        if not item.startswith("--"):
            raise ValueError(f"{where}: each flag is written '--name=value' (or '--name' for a true boolean), "
                             f"but got {item!r} in {text!r}.")
        name, eq, value = item[2:].partition("=")
        kind = FLAG_KINDS.get(name) or NO_EFFECT.get(name)
        if kind is None:
            raise ValueError(f"{where}: unknown flag '--{name}' in {text!r}; supported flags: "
                             f"{', '.join('--' + k for k in FLAG_KINDS)} (accepted without effect: "
                             f"{', '.join('--' + k for k in NO_EFFECT)}).")
        out[name] = _value(name, kind, value if eq else None, where)
        if name in NO_EFFECT:
            logger.warning("%s: '--%s' tunes a part of MindSpore's graph-kernel compiler that openspore does not "
                           "have; it is accepted and has no effect.", where, name)
    if "path" in out:  # MindSpore: a JSON file of flag -> string value; the other flags are then ignored
        return _from_json(out["path"], where)
    return out


def _value(name, kind, value, where):
    if kind == _BOOL:
        if value is None or value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
        raise ValueError(f"{where}: '--{name}' takes true or false, but got {value!r}.")
    if value is None or value == "":
        raise ValueError(f"{where}: '--{name}' needs a value ('--{name}=...').")
    if kind == _INT:
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"{where}: '--{name}' takes an integer, but got {value!r}.") from None
        if name == "opt_level" and number not in (0, 1, 2, 3):
            raise ValueError(f"{where}: '--opt_level' must be 0, 1, 2 or 3, but got {number}.")
        return number
    if kind == _LIST:
        return tuple(v for v in value.split(",") if v)
    return value


def _from_json(path, where):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{where}: '--path={path}' must name a readable JSON file of flags: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where}: '--path={path}' must hold a JSON object of flag -> value.")
    text = " ".join(f"--{k}={v}" if not isinstance(v, bool) else f"--{k}={str(v).lower()}" for k, v in data.items())
    return parse_flags(text, f"{where} (from {path})")


class GraphKernelFlags:
    """The resolved switches of one compile (hashable: part of the compiled-graph cache key)."""

    __slots__ = ("opt_level", "dump_as_text", "enable_expand_ops", "enable_expand_ops_only", "disable_expand_ops",
                 "enable_cluster_ops", "enable_cluster_ops_only", "disable_cluster_ops", "_key")

    def __init__(self, values):
        for name in self.__slots__[:-1]:
            setattr(self, name, values.get(name, () if FLAG_KINDS[name] == _LIST else False))
        self.opt_level = int(values.get("opt_level", 0))
        self._key = tuple(getattr(self, n) for n in self.__slots__[:-1])

    def __eq__(self, other):
        return isinstance(other, GraphKernelFlags) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return "GraphKernelFlags(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__[:-1]
                                               if getattr(self, n)) + ")"


_resolved = {}


def resolve(text, enabled):
    """The GraphKernelFlags of a compile, or None when fusion is off. `text`: the flag strings joined (environment
    first, context last); `enabled`: enable_graph_kernel or a user-chosen jit_level O1. Memoised: it runs on
    every graph call (as part of the cache key)."""
    key = (text, enabled)
    if key not in _resolved:
        values = parse_flags(text)
        values.setdefault("opt_level", 2 if enabled else 0)
        flags = GraphKernelFlags(values)
        _resolved[key] = flags if flags.opt_level > 0 else None
    return _resolved[key]


def active_flags(jit_o1=False):
    """The GraphKernelFlags for a compile now (None: fusion off), from the context and the environment;
    `jit_o1`: the user chose jit_level "O1" for this function or cell."""
    text = context.graph_kernel_env_flags()
    user = context.get_context("graph_kernel_flags")
    if user:
        text = f"{text} {user}" if text else user
    return resolve(text, jit_o1 or context.get_context("enable_graph_kernel"))
