"""Converter passes over a lite Program, each a pure function Program → Program in its own file.

The converter runs them once, offline; a `.ms` file holds their result, so loading it optimises nothing.

* `strip_training` — drop in-place state updates nobody reads (an inference model keeps its weights fixed);
* `fold_constants` — evaluate operators whose inputs are all known (weights included, for inference);
* `fuse` — Conv2D + BatchNorm + bias + ReLU/ReLU6 → LiteConv2D, MatMul + bias + ReLU → LiteDense;
* `eliminate_dead` — drop operators whose results nobody reads, and unreferenced tensors;
* `to_nhwc` (LAYOUT_PASSES, after quantization) — float convolutions channels-last with packed weights, residual
  Add + ReLU fused into them; `share_outputs` then lets convolutions whose results are never alive together
  write one buffer.
"""
from .dce import eliminate_dead
from .fold import fold_constants
from .fuse import fuse
from .layout import to_nhwc
from .out_slots import share_outputs
from .strip import strip_training

INFERENCE_PASSES = (strip_training, fold_constants, fuse, eliminate_dead)
TRAINING_PASSES = (eliminate_dead,)
LAYOUT_PASSES = (to_nhwc, share_outputs)


def run_passes(program, passes):
    for p in passes:
        program = p(program)
    return program
