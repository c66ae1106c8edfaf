"""The real-data example: its data pipeline, and a one-epoch run through its command line."""
import importlib.util
import os

import numpy as np
import pytest

import openspore as ms

pytest.importorskip("sklearn")

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "digits_lenet.py")


def _example():
    spec = importlib.util.spec_from_file_location("digits_lenet", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fixed_split_and_pipeline_shapes():
    ex = _example()
    a = ex.load_split()
    b = ex.load_split()
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    x_train, y_train, x_test, y_test = a
    assert x_train.shape == (1438, 8, 8) and x_test.shape == (359, 8, 8)
    assert set(np.unique(y_test)) == set(range(10))
    data = ex.create_dataset(x_test, y_test, batch_size=32, shuffle=False)
    assert data.get_dataset_size() == 12
    images, labels = next(iter(data.create_tuple_iterator(num_epochs=1)))
    assert images.shape == (32, 1, 32, 32) and images.dtype == ms.float32
    assert labels.shape == (32,) and labels.dtype == ms.int32
    np.testing.assert_array_equal(labels.asnumpy(), y_test[:32])
    # bilinear upsampling keeps the image: the mean of each 4x4 block follows the 8x8 pixel it came from
    first = images.asnumpy()[0, 0] * ex.STD + ex.MEAN
    blocks = first.reshape(8, 4, 8, 4).mean(axis=(1, 3))
    assert np.corrcoef(blocks.ravel(), x_test[0].ravel())[0, 1] > 0.9


def test_one_epoch_run_and_min_accuracy_exit_code(capsys):
    ex = _example()
    # one epoch learns a lot but not everything: the run prints its accuracy and fails the 0.9999 threshold
    assert ex.main(["--epochs", "1", "--min-accuracy", "0.9999"]) == 1
    captured = capsys.readouterr()
    assert "epoch: 1 step: 45, loss is" in captured.out and "Train epoch time:" in captured.out
    accuracy = float(captured.out.split("test accuracy: ")[1].split()[0])
    assert 0.5 < accuracy < 0.9999
    assert "below --min-accuracy 0.9999" in captured.err
