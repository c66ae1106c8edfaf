"""MindSpore 2.x's official tutorials run unchanged (issue 19): each script under scripts/ is a tutorial page's
code as published, except that the download step is replaced by synthetic data of the same shape (MNIST-format
IDX files under ./MNIST_Data/{train,test}, 28x28 uint8 images and labels 0-9, as the archive unpacks). Each runs in
its own interpreter through the `mindspore` → `openspore` import alias (tools/difftest.py's hook) in a temporary
working directory, and must exit cleanly and print the lines the page shows (checked loosely: their labels)."""
import glob
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import child_env
from tests.dataset.test_sources import write_idx

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPTS = sorted(glob.glob(os.path.join(HERE, "scripts", "*.py")))


def _difftest():
    spec = importlib.util.spec_from_file_location("difftest", os.path.join(REPO, "tools", "difftest.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_mnist_data(root, n_train=640, n_test=128, seed=0):
    """MNIST_Data/train holds only train-*, MNIST_Data/test only t10k-*, as the official archive unpacks. The
    images are noisy class templates, so that a network can learn them."""
    rng = np.random.default_rng(seed)
    templates = rng.integers(0, 256, (10, 28, 28))
    for folder, prefix, n in (("train", "train", n_train), ("test", "t10k", n_test)):
        path = os.path.join(root, "MNIST_Data", folder)
        os.makedirs(path, exist_ok=True)
        labels = rng.integers(0, 10, n).astype(np.uint8)
        images = np.clip(templates[labels] * 0.7 + rng.integers(0, 77, (n, 28, 28)), 0, 255).astype(np.uint8)
        write_idx(os.path.join(path, f"{prefix}-images-idx3-ubyte"), images, 2051)
        write_idx(os.path.join(path, f"{prefix}-labels-idx1-ubyte"), labels, 2049)


def make_download_stand_ins(root, seed=0):
    """What the dataset tutorials download, synthetic and small: the CIFAR-10 binary folder (10 classes, noise
    images), banana.jpg (a 356x200 JPEG), a 16 kHz mono PCM WAV and ImageNetSimilar/ (5 JPEGs in class folders,
    as the augmentation page's archive unpacks)."""
    import wave
    import cv2
    rng = np.random.default_rng(seed)
    cifar = os.path.join(root, "cifar-10-batches-bin")
    os.makedirs(cifar, exist_ok=True)
    for name in [f"data_batch_{k}.bin" for k in range(1, 6)] + ["test_batch.bin"]:
        labels = np.arange(20, dtype=np.uint8) % 10
        records = np.concatenate([labels[:, None], rng.integers(0, 256, (20, 3072), dtype=np.uint8)], axis=1)
        records.astype(np.uint8).tofile(os.path.join(cifar, name))
    ok, jpeg = cv2.imencode(".jpg", rng.integers(0, 256, (200, 356, 3), dtype=np.uint8))
    assert ok
    with open(os.path.join(root, "banana.jpg"), "wb") as f:
        f.write(jpeg.tobytes())
    for k in range(5):
        folder = os.path.join(root, "ImageNetSimilar", f"n0{k % 2}")
        os.makedirs(folder, exist_ok=True)
        ok, image = cv2.imencode(".JPEG", rng.integers(0, 256, (90 + 10 * k, 120, 3), dtype=np.uint8))
        assert ok
        with open(os.path.join(folder, f"image_{k}.JPEG"), "wb") as f:
            f.write(image.tobytes())
    with wave.open(os.path.join(root, "84-121123-0000.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes((np.sin(np.arange(16000) * 0.05) * 8000).astype("<i2").tobytes())


def _expected_markers(script):
    """Lines of the form `# expect: text` in the script: text its output must contain."""
    with open(script) as f:
        return [line.split("# expect:", 1)[1].strip() for line in f if line.startswith("# expect:")]


def _is_slow(script):
    """A `# slow:` line marks a page whose code runs for more than ~30 s (pytest's `slow` marker)."""
    with open(script) as f:
        return any(line.startswith("# slow:") for line in f)


@pytest.mark.parametrize("script", [pytest.param(s, marks=pytest.mark.slow) if _is_slow(s) else s for s in SCRIPTS],
                         ids=[os.path.basename(s)[:-3] for s in SCRIPTS])
def test_tutorial_runs_unchanged(script, tmp_path):
    make_mnist_data(str(tmp_path))
    make_download_stand_ins(str(tmp_path))
    difftest = _difftest()
    code = difftest._RUNNER.format(hook=difftest._OPENSPORE_HOOK.format(root=REPO), exc_file=difftest.EXC_FILE)
    proc = subprocess.run([sys.executable, "-c", code, script], cwd=tmp_path, env=child_env(), capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-4000:])
    for marker in _expected_markers(script):
        assert marker in proc.stdout, f"{marker!r} not in the output:\n{proc.stdout[-3000:]}"
