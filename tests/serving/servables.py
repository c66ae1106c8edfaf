"""servable_config.py texts of the test servables."""

LENET = """
import numpy as np
from openspore.serving.server import register
from tests.serving.nets import LeNet5

model = register.declare_model("lenet5.ckpt", "Checkpoint", network=LeNet5,
                               inputs=[((4, 1, 32, 32), np.float32)])


def top1(logits):
    return int(np.argmax(logits)), float(np.max(logits))


def top1_batch(instances):
    for (logits,) in instances:
        yield int(np.argmax(logits))


def decode_image(data):
    if data.size != 1024:
        raise ValueError(f"image bytes should hold 1024 pixels, but got {data.size}")
    return data.reshape(1, 32, 32).astype(np.float32) / 255.0


def call_model(image):
    return model.call(image)


@register.register_method(output_names=["logits"])
def predict(image):
    return register.add_stage(model, image, outputs_count=1)


@register.register_method(output_names=["label", "score"])
def classify(image):
    logits = register.add_stage(model, image, outputs_count=1)
    label, score = register.add_stage(top1, logits, outputs_count=2, tag="Postprocess")
    return label, score


@register.register_method(output_names=["label"])
def classify_batched(image):
    logits = register.add_stage(model, image, outputs_count=1)
    return register.add_stage(top1_batch, logits, outputs_count=1, batch_size=0)


@register.register_method(output_names=["logits"])
def predict_bytes(data):
    image = register.add_stage(decode_image, data, outputs_count=1, tag="Preprocess")
    return register.add_stage(model, image, outputs_count=1)


@register.register_method(output_names=["logits"])
def predict_call(image):
    return register.add_stage(call_model, image, outputs_count=1)
"""

PYFUNC = """
import numpy as np
from openspore.serving.server import register


def add(x1, x2):
    return x1 + x2


def text_ops(text, blob):
    return text.upper(), blob.size, bytes(blob[::-1])


def checked_sqrt(x):
    if np.any(x < 0):
        raise ValueError(f"x should be >= 0, but got {x.tolist()}")
    return np.sqrt(x)


def sum_batch(instances):
    if len(instances) > 3:
        raise RuntimeError(f"got {len(instances)} instances, more than batch_size=3")
    return [a + b for a, b in instances]


@register.register_method(output_names=["y"])
def add_common(x1, x2):
    return register.add_stage(add, x1, x2, outputs_count=1)


@register.register_method(output_names=["upper", "size", "reversed"])
def text(text, blob):
    return register.add_stage(text_ops, text, blob, outputs_count=3)


@register.register_method(output_names=["y"])
def sqrt(x):
    return register.add_stage(checked_sqrt, x, outputs_count=1)


@register.register_method(output_names=["y", "x1"])
def add_batch(x1, x2):
    y = register.add_stage(sum_batch, x1, x2, outputs_count=1, batch_size=3)
    return y, x1
"""

MINDIR = """
from openspore.serving.server import register

model = register.declare_model("{file}", "MindIR")


@register.register_method(output_names=["y"])
def predict(x):
    return register.add_stage(model, x, outputs_count=1)
"""

SLOW = """
import os
import time

from openspore.serving.server import register

MARKS = os.environ["OPENSPORE_TEST_MARK_DIR"]


def work(x, tag):
    if tag == "crash":
        os._exit(7)
    if tag == "mark":
        path = os.path.join(MARKS, f"inflight_{os.getpid()}")
        with open(path + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(path + ".tmp", path)
        time.sleep(1.5)
    elif tag == "slow":
        time.sleep(0.05)
    return x * 2, os.getpid()


@register.register_method(output_names=["y", "pid"])
def double(x, tag):
    y, pid = register.add_stage(work, x, tag, outputs_count=2)
    return y, pid
"""
