"""The host memory pool (`mempool_block_size`): freed CPU memory stays in the process between steps."""
import subprocess
import sys

import pytest

import openspore as ms
from openspore import context

from ..conftest import child_env


def test_block_size_follows_mindspore_format():
    assert context.block_size_bytes("1GB") == 1 << 30
    assert context.block_size_bytes("2.5GB") == int(2.5 * (1 << 30))
    for bad in ("512MB", "0.5GB", 1, "GB"):
        with pytest.raises(ValueError, match="mempool_block_size"):
            ms.set_context(mempool_block_size=bad)
    assert ms.get_context("mempool_block_size") == "1GB"  # a refused value leaves the old one


LOOP = """
import resource, numpy as np, openspore as ms
x = ms.Tensor(np.ones((512, 1024), np.float32))
for _ in range(5):
    (x * 2.0 + 1.0).sum()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    (x * 2.0 + 1.0).sum()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux-only")
def test_a_training_loop_stops_faulting_pages_in():
    # 2 MiB temporaries freed every step: without the pool each step maps (and zeroes) them again, ~10,000
    # faults over 20 steps. A fresh process, so nothing else the suite does is counted.
    res = subprocess.run([sys.executable, "-c", LOOP], capture_output=True, text=True, env=child_env(), timeout=120)
    assert res.returncode == 0, res.stderr
    assert int(res.stdout.strip().splitlines()[-1]) < 3000  # a heap growth or two, not one remap per step
