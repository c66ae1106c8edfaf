"""Synthetic 32x32 "digits" for the serving example: each class is a fixed random stroke pattern plus noise, so
the example trains in seconds and needs no download."""
import numpy as np


def prototypes(classes=10, seed=1234):
    rng = np.random.default_rng(seed)
    protos = np.zeros((classes, 32, 32), np.float32)
    for c in range(classes):
        for _ in range(6):
            r, k = rng.integers(4, 28, size=2)
            if rng.random() < 0.5:
                protos[c, r - 1:r + 2, 4:28] = 1.0
            else:
                protos[c, 4:28, k - 1:k + 2] = 1.0
    return protos


def make_digits(count, seed=0, noise=0.3):
    """(uint8 images [count, 32, 32], int32 labels [count])."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, size=count).astype(np.int32)
    images = prototypes()[labels] + noise * rng.standard_normal((count, 32, 32)).astype(np.float32)
    return (np.clip(images, 0.0, 1.0) * 255).astype(np.uint8), labels
