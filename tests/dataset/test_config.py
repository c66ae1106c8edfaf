import subprocess
import sys

import pytest

from openspore.dataset import config


def test_defaults_in_a_fresh_process():
    code = ("from openspore.dataset import config as c; import os; "
            "print(c.get_seed(), c.get_prefetch_size(), c.get_enable_shared_mem(), c.get_debug_mode(), "
            "c.get_num_parallel_workers() == min(8, os.cpu_count()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["5489", "16", "True", "False", "True"]


def test_setters_validate_and_round_trip():
    config.set_seed(42)
    assert config.get_seed() == 42
    config.set_prefetch_size(4)
    assert config.get_prefetch_size() == 4
    config.set_enable_shared_mem(False)
    assert config.get_enable_shared_mem() is False
    config.set_debug_mode(True)
    assert config.get_debug_mode() is True
    with pytest.raises(ValueError, match=r"seed given is not within the required range \[0, UINT32_MAX"):
        config.set_seed(-1)
    with pytest.raises(TypeError, match="bool"):
        config.set_enable_shared_mem(1)
    with pytest.raises(TypeError, match="callable"):
        config.set_debug_mode(True, [3])


def test_autotune_output_path_is_checked_when_set(tmp_path):
    # MindSpore 2.10's RuntimeErrors (the dataset AutoTune tutorial's placeholder path hits the second)
    try:
        with pytest.raises(RuntimeError, match=r"is a directory, not filename"):
            config.set_enable_autotune(True, str(tmp_path))
        with pytest.raises(RuntimeError, match=r"Directory <.*missing> does not exist"):
            config.set_enable_autotune(True, str(tmp_path / "missing" / "out"))
        config.set_enable_autotune(True, str(tmp_path / "out"))
        assert config.get_enable_autotune()
        config.set_enable_autotune(False, "/no/such/folder/out")  # only checked when enabling
    finally:
        config.set_enable_autotune(False)
