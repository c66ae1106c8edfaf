"""What the two code generators share (runtime/executor.py writes Python for compiled graphs, lite/executor.py
for lite programs): naming the values generated code reads, loading the source so that tracebacks show its
lines, finding the node whose generated line raised, and which constants may be written as literals.
Torch-free and below both users in the layering (lite must never import torch).

>>> from openspore.common.codegen import Bindings, is_literal, load_source
>>> gen = Bindings({"k": 2})
>>> name = gen.bind("c", 3)
>>> load_source(f"def f(x):\\n    return x * {name} + k\\n", "<codegen example>", gen.bindings)["f"](1)
5
>>> is_literal((1, 2.5, "a")), is_literal(float("nan")), is_literal([1])
(True, False, False)
"""
import linecache
import math

_LITERAL_TYPES = (int, float, bool, str, type(None))


class Bindings:
    """The module namespace of generated code: `bind` adds a value under a fresh name and returns the name."""

    def __init__(self, bindings):
        self.bindings = bindings
        self.serial = 0  # also numbers the generated functions, so names never collide

    def bind(self, prefix, value):
        self.serial += 1
        name = f"_{prefix}{self.serial}"
        self.bindings[name] = value
        return name


def load_source(source, filename, bindings):
    """Run generated `source` in a copy of `bindings` and return that namespace; linecache holds the source
    under `filename`, so tracebacks through the generated functions show their lines."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(bindings)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (our own generated code)
    return namespace


def failing_item(tb, filename, by_line):
    """What `by_line` (line number -> node) holds for the innermost frame of traceback `tb` that runs in the
    generated file `filename`, or None when the error arose outside it."""
    found = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            found = by_line.get(tb.tb_lineno, found)
        tb = tb.tb_next
    return found


def is_literal(value):
    """Whether `value` can be written into generated source as a Python literal (NaN and inf cannot)."""
    if type(value) in _LITERAL_TYPES:
        return not (type(value) is float and not math.isfinite(value))
    if type(value) is tuple:
        return all(is_literal(v) for v in value)
    return False
