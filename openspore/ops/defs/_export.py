"""Export marks that live with the primitives: `not_exportable(reason, *classes, formats=...)`.

Every primitive either has a converter for each file format (MindIR: `serialization/mindir_write_ops`; ONNX:
`serialization/onnx_ops`), or a decomposition into primitives that have one (`export_decomposition` on its class),
or is marked here, in its own family's module, with the reason it is not written. The op-table test
(tests/ops/test_op_table.py) checks that each primitive is in one of these states for each format and prints the
export coverage.

>>> from openspore.core.primitive import PRIMITIVES
>>> PRIMITIVES["ReLU6Grad"].not_exportable["MINDIR"][:20]
'a backward primitive'
"""
FORMATS = ("MINDIR", "ONNX")

BACKWARD = ("a backward primitive: inference exports hold the forward computation only; MindIR training-step "
            "graphs (for openspore.lite's on-device training) have encodings for the backward ops of the networks "
            "lite trains, not yet for this one; ONNX holds no training steps")
UPDATE = ("an in-place optimizer update: ONNX holds no training steps; MindIR training-step graphs have "
          "ApplyMomentum only so far")
RANDOM = ("draws from openspore's generator: a file cannot reproduce its stream, and exported graphs are "
          "traced in eval mode")
NO_MINDIR = "no MindIR encoding written yet (MindSpore's op of the same name would be the target)"
NO_ONNX = "no ONNX converter written yet"
LAYOUT_ONLY = ("a memory-layout conversion that the layout_channels_last pass inserts into compiled graphs; exported "
               "graphs are captured before any pass")
PASS_MADE = ("a fusion a compiler pass makes in compiled training graphs (after autodiff); exported graphs are "
             "captured before any pass, so they hold the two primitives it merges")
STATEFUL = "an in-place write of a Parameter (training-mode BatchNorm statistics): ONNX graphs are stateless"
ORDERING = "orders side effects, which the eval-mode graphs written as ONNX do not have"


def not_exportable(reason, *classes, formats=FORMATS):
    """Mark `classes` as not written to `formats`, with `reason`; returns nothing."""
    unknown = set(formats) - set(FORMATS)
    if unknown or not reason:
        raise ValueError(f"not_exportable needs a reason and formats among {FORMATS}, got {formats!r}.")
    for cls in classes:
        marks = dict(cls.__dict__.get("not_exportable", {}))
        marks.update((fmt, reason) for fmt in formats)
        cls.not_exportable = marks
