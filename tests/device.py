"""The device the suite runs the torch backend on: CPU, or the GPU when OPENSPORE_TEST_DEVICE=GPU (a lent CUDA
machine; CI never sets it). Tests switch backends through `use_backend` so numpy runs stay on the CPU."""
import os

import openspore as ms

TEST_DEVICE = os.environ.get("OPENSPORE_TEST_DEVICE", "CPU")


def use_backend(name):
    """Switch to backend `name`: numpy on the CPU, torch on the suite's device."""
    if name == "numpy":
        ms.set_context(device_target="CPU", backend="numpy")
    else:
        ms.set_context(backend=name, device_target=TEST_DEVICE)
