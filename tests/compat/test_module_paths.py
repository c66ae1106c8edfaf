"""MindSpore module paths: common.parameter/common.tensor, common.Tensor/Parameter/mutable, mindspore.log, and
the clear ImportError of a MindSpore module openspore does not have yet."""
import subprocess
import sys

import numpy as np
import pytest

import openspore as ms
from tests.conftest import child_env


def test_common_parameter_and_tensor_modules():
    from openspore.common.parameter import Parameter, ParameterTuple
    from openspore.common.tensor import Tensor
    assert Parameter is ms.Parameter and ParameterTuple is ms.ParameterTuple and Tensor is ms.Tensor
    import openspore.common as common
    assert common.Tensor is ms.Tensor and common.Parameter is ms.Parameter and common.mutable is ms.mutable
    with pytest.raises(AttributeError):
        common.no_such_name


def test_swap_tensors_exchanges_data_shape_and_dtype():
    from openspore.common.tensor import swap_tensors
    a, b = ms.Tensor(np.zeros(2, np.float32)), ms.Tensor(np.arange(3, dtype=np.int32))
    swap_tensors(a, b)
    assert a.asnumpy().tolist() == [0, 1, 2] and a.dtype == ms.int32
    assert b.shape == (2,) and b.dtype == ms.float32
    with pytest.raises(TypeError):
        swap_tensors(a, 1)


def test_log_module_levels_and_format():
    code = ("from openspore import log as logger\n"
            "print(logger.get_level(), sorted(logger.get_log_config()))\n"
            "logger.info('hidden'); logger.warning('shown %d', 7); logger.error('bad')\n")
    env = child_env()
    env["GLOG_v"] = "2"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[0] == "2"
    assert "hidden" not in proc.stderr
    assert "[WARNING] ME(" in proc.stderr and "shown 7" in proc.stderr and "[ERROR] ME(" in proc.stderr
    env["GLOG_v"] = "1"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert "[INFO] ME(" in proc.stderr and "hidden" in proc.stderr


def test_missing_mindspore_module_names_itself():
    with pytest.raises(ImportError, match=r"mindspore\.scipy\.sparse .*not implemented in openspore"):
        import openspore.scipy.sparse  # noqa: F401
    with pytest.raises(ModuleNotFoundError, match="No module named 'openspore.no_such_module'"):
        import openspore.no_such_module  # noqa: F401
