"""Names in MindSpore's dump layout: tensor file names, node-name sanitising and `iteration` specs.

A dumped tensor file is `{op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}.{input|output}.{slot}.{format}`
followed by `.{dtype}` (MindSpore 2.x writes the dtype too) and `.npy`. Scope separators `/` and the
characters `.`, `\\` and space inside names become `_`, so the names contain no dots and the fields split
cleanly.

>>> info = parse_tensor_file("Conv2D.Default_conv1-Conv2d_Conv2D-op0.0.0.17.output.0.DefaultFormat.Float32.npy")
>>> info.op_type, info.op_name, info.io, info.slot, info.timestamp
('Conv2D', 'Default_conv1-Conv2d_Conv2D-op0', 'output', 0, 17)
>>> tensor_file_name("Conv2D", "Default/conv1-Conv2d/Conv2D-op0", "output", 0, 17, "Float32")
'Conv2D.Default_conv1-Conv2d_Conv2D-op0.0.0.17.output.0.DefaultFormat.Float32.npy'
>>> parse_iterations("0|5-7")(6), parse_iterations("all")(123), parse_iterations("1|3")(2)
(True, True, False)
"""
import re
from collections import namedtuple

TensorFile = namedtuple("TensorFile", "op_type op_name task_id stream_id timestamp io slot format dtype")
_BAD = re.compile(r"[./\\ ]")


def sanitize(name):
    """`Default/fc-Dense/MatMul-op0` -> `Default_fc-Dense_MatMul-op0`; `fc1.weight` -> `fc1_weight`."""
    return _BAD.sub("_", str(name))


def tensor_file_name(op_type, op_name, io, slot, timestamp, dtype, task_id=0, stream_id=0, fmt="DefaultFormat"):
    return (f"{sanitize(op_type)}.{sanitize(op_name)}.{task_id}.{stream_id}.{timestamp}.{io}.{slot}.{fmt}."
            f"{dtype}.npy")


def parse_tensor_file(filename):
    """The fields of a dumped tensor's file name, or None when the name is not one."""
    if not filename.endswith(".npy"):
        return None
    parts = filename[:-4].split(".")
    if len(parts) not in (8, 9) or parts[5] not in ("input", "output"):
        return None
    try:
        task, stream, ts, slot = int(parts[2]), int(parts[3]), int(parts[4]), int(parts[6])
    except ValueError:
        return None
    return TensorFile(parts[0], parts[1], task, stream, ts, parts[5], slot, parts[7],
                      parts[8] if len(parts) == 9 else "")


def parse_iterations(spec, where="iteration"):
    """A predicate over iteration numbers from MindSpore's `iteration` setting: "all", or items separated by
    '|', each a number or an inclusive range 'a-b' (0-based). Raises ValueError naming the bad item."""
    if isinstance(spec, int) and not isinstance(spec, bool):
        spec = str(spec)
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"'{where}' should be \"all\" or a string like \"0|5-8\", but got {spec!r}.")
    spec = spec.strip()
    if spec == "all":
        return _All()
    singles, ranges = set(), []
    for item in spec.split("|"):
        item = item.strip()
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", item)
        if not m:
            raise ValueError(f"'{where}' item {item!r} in {spec!r} is not a number or a range 'a-b'.")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) is not None else lo
        if hi < lo:
            raise ValueError(f"'{where}' range {item!r} in {spec!r} ends before it starts.")
        if hi == lo:
            singles.add(lo)
        else:
            ranges.append((lo, hi))
    return _Selected(singles, ranges, spec)


class _All:
    spec = "all"

    def __call__(self, iteration):
        return True

    def __repr__(self):
        return "iterations('all')"


class _Selected:
    def __init__(self, singles, ranges, spec):
        self.singles, self.ranges, self.spec = singles, ranges, spec

    def __call__(self, iteration):
        return iteration in self.singles or any(lo <= iteration <= hi for lo, hi in self.ranges)

    def __repr__(self):
        return f"iterations({self.spec!r})"
