import numpy as np
import pytest

from openspore.dataset import config


@pytest.fixture(autouse=True)
def _dataset_config():
    """Each test starts from the same dataset settings and leaves them as it found them."""
    saved = config._snapshot()
    config.set_seed(1234)
    yield
    config._restore(saved)


def numpy_rows(dataset, **kwargs):
    return [tuple(np.asarray(v) for v in row) for row in dataset.create_tuple_iterator(output_numpy=True, **kwargs)]
