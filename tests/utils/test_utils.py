"""openspore.utils (mindspore.utils): DLPack exchange with torch and numpy on both backends, and dryrun.mock
with the dry run off and on (in a child process, so MS_SIMULATION_LEVEL does not leak into other tests)."""
import subprocess
import sys

import numpy as np
import pytest
import torch

import openspore as ms
from openspore import utils
from tests.conftest import child_env


def test_import_paths():
    import openspore.utils.dlpack as dlpack_module
    from openspore.utils import dryrun, from_dlpack, to_dlpack  # noqa: F401
    assert dlpack_module.to_dlpack is utils.to_dlpack and ms.utils is utils


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.float64])
def test_round_trip_and_torch_sees_the_values(backend, dtype):
    x = ms.Tensor((np.arange(12).reshape(3, 4) % 7).astype(dtype))
    back = utils.from_dlpack(utils.to_dlpack(x))
    assert back.shape == (3, 4) and back.dtype == x.dtype
    np.testing.assert_array_equal(back.asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(torch.from_dlpack(utils.to_dlpack(x)).numpy(), x.asnumpy())


def test_from_producers_shares_memory(backend):
    t = torch.arange(5, dtype=torch.float32)
    y = utils.from_dlpack(t)
    assert y.dtype == ms.float32 and y.asnumpy().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    a = np.arange(4, dtype=np.int32)
    z = utils.from_dlpack(a)
    a[0] = 9  # DLPack hands over the buffer itself, not a copy
    assert z.asnumpy().tolist() == [9, 1, 2, 3]
    assert (ms.ops.add(z, 1)).asnumpy().tolist() == [10, 2, 3, 4]


def test_bad_input():
    with pytest.raises(TypeError, match="Tensor"):
        utils.to_dlpack(np.ones(2))
    with pytest.raises(TypeError, match="DLPack"):
        utils.from_dlpack([1, 2])


def test_mock_off_returns_the_real_value():
    x = ms.Tensor(np.array([0.2, 0.9], np.float32))
    assert not bool(utils.dryrun.mock(True, x[0] > 0.5))
    assert bool(utils.dryrun.mock(False, (x > 0.5).any))
    assert utils.dryrun.mock(0, lambda a, b: a + b, 2, 3) == 5
    with pytest.raises(TypeError, match="real value"):
        utils.dryrun.mock(1)


def test_set_simulation_makes_mock_return_the_mock_value():
    code = ("import os, openspore as ms\nfrom openspore.utils import dryrun\n"
            "dryrun.set_simulation()\n"
            "print(os.environ['MS_SIMULATION_LEVEL'], dryrun.mock('mocked', lambda: 'real'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=child_env())
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "mocked"]
