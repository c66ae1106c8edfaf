"""openspore primitives → ONNX operators (opset `OPSET`), used by `onnx_export`.

Each primitive declares its converter next to its class (`_onnx.declare(...)` in ops/defs; the converter library
is ops/defs/_onnx.py); `CONVERTERS` collects them by primitive name. A primitive without one is either decomposed
into primitives that have one (`export_decomposition`) or marked `not_exportable` with its reason.
"""
from ..core.primitive import PRIMITIVES
from ..ops.defs._onnx import OPSET, Py  # noqa: F401  (re-exported for onnx_export)


def declared_converters():
    """{primitive name: converter} of every primitive that declares one (its own class attribute `onnx`)."""
    return {name: cls.__dict__["onnx"] for name, cls in PRIMITIVES.items() if "onnx" in cls.__dict__}


CONVERTERS = declared_converters()
