"""The `lenet` servable: LeNet5 with a pre-processing and a post-processing stage.

Model files live in version folders: `lenet/1/lenet5.ckpt` (written by ../prepare.py). A MindIR export
(`lenet/1/lenet5.mindir`, written by prepare.py when openspore.export exists) is declared with
    model = register.declare_model("lenet5.mindir", "MindIR")
"""
import numpy as np

from openspore.serving.server import register
from lenet.network import BATCH, LeNet5

model = register.declare_model("lenet5.ckpt", "Checkpoint", network=LeNet5,
                               inputs=[((BATCH, 1, 32, 32), np.float32)])


def preprocess(image):
    """uint8 pixels [32, 32] (or raw bytes of them) → float32 [1, 32, 32] in [0, 1]."""
    pixels = np.asarray(image, np.uint8)
    if pixels.size != 32 * 32:
        raise ValueError(f"image should have 32x32 = 1024 pixels, but got {pixels.size}")
    return pixels.reshape(1, 32, 32).astype(np.float32) / 255.0


def postprocess(logits):
    """logits [10] → (label, probability of that label)."""
    shifted = np.exp(logits - logits.max())
    probs = shifted / shifted.sum()
    label = int(probs.argmax())
    return label, float(probs[label])


@register.register_method(output_names=["logits"])
def predict(image):
    """image: float32 [1, 32, 32] → logits: float32 [10]."""
    return register.add_stage(model, image, outputs_count=1)


@register.register_method(output_names=["label", "probability"])
def classify(image):
    """image: uint8 [32, 32] pixels → label (int), probability (float)."""
    x = register.add_stage(preprocess, image, outputs_count=1, tag="Preprocess")
    logits = register.add_stage(model, x, outputs_count=1)
    label, probability = register.add_stage(postprocess, logits, outputs_count=2, tag="Postprocess")
    return label, probability
