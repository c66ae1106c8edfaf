"""Environments, iteration helpers, hyper_add, put_ and the operator-registration builders."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import ops

T = ms.Tensor


def test_environments_bind_by_parameter_identity_and_add():
    p, q = (ms.Parameter(T(np.zeros(2, np.float32)), name=n) for n in ("p", "q"))
    env = ops.environ_set(ops.environ_create(), p, T(np.array([1.0, 2.0], np.float32)))
    env2 = ops.environ_set(ops.environ_set(ops.environ_create(), p, T(np.array([3.0, 4.0], np.float32))), q, 7)
    merged = ops.environ_add(env, env2)
    assert ops.environ_get(merged, p, None).asnumpy().tolist() == [4.0, 6.0]
    assert ops.env_get(merged, q, 0) == 7 and ops.environ_get(env, q, "none") == "none"
    assert ops.environ_get(env, p, None).asnumpy().tolist() == [1.0, 2.0]  # environments are immutable
    with pytest.raises(TypeError, match="environ_create"):
        ops.environ_get({}, p, None)


def test_iteration_helpers_and_hyper_add():
    assert ops.ms_hasnext((1,)) and not ops.ms_hasnext([])
    assert ops.ms_next([4, 5]) == (4, [5]) and ops.iter_converter({"a": 1, "b": 2}) == ("a", "b")
    first, rest = ops.ms_next(T(np.arange(6).reshape(3, 2)))
    assert first.asnumpy().tolist() == [0, 1] and len(rest) == 2
    with pytest.raises(StopIteration):
        ops.ms_next(())
    out = ops.hyper_add({"a": (1, T(np.array([1.0])))}, {"a": (2, T(np.array([2.0])))})
    assert out["a"][0] == 3 and out["a"][1].asnumpy().tolist() == [3.0]


def test_put_matches_torch():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx, src = np.array([0, 11, -2, 0]), np.array([10.0, 20.0, 30.0, 40.0], np.float32)
    for accumulate in (False, True):
        t = torch.tensor(x)
        t.put_(torch.tensor(idx[:3]), torch.tensor(src[:3]), accumulate=accumulate)
        mine = T(x.copy())
        assert ops.put_(mine, T(idx[:3]), T(src[:3]), accumulate) is mine
        np.testing.assert_array_equal(mine.asnumpy(), t.numpy())
    acc = T(x.copy())
    ops.put_(acc, T(idx), T(src), True)  # repeated index 0 accumulates both
    assert acc.asnumpy()[0, 0] == 50.0
    with pytest.raises(IndexError):
        ops.put_(T(x.copy()), T(np.array([12])), T(np.array([1.0], np.float32)))


def test_registration_builders():
    info = (ops.CustomRegOp("my_add").input(0, "x").input(1, "y").output(0, "z").attr("alpha", "required", "float")
            .dtype_format(ops.DataType.F32_Default, ops.DataType.F32_Default, ops.DataType.F32_Default)
            .dtype_format(ops.DataType.I32_Default, ops.DataType.I32_Default, ops.DataType.I32_Default)
            .target("CPU").get_op_info())
    assert info["op_name"] == "my_add" and info["target"] == "CPU" and len(info["dtype_format"]) == 2
    assert info["attr"][0]["name"] == "alpha" and info["dtype_format"][1][0] == ("int32", "DefaultFormat")
    tbe = ops.TBERegOp("relu").fusion_type("ELEMWISE").kernel_name("relu").get_op_info()
    assert (tbe["imply_type"], tbe["fusion_type"]) == ("TBE", "ELEMWISE")
    assert ops.AiCPURegOp("a").get_op_info()["imply_type"] == "AiCPU"
    assert ops.CpuRegOp("c").get_op_info()["imply_type"] == "CPU"
    assert ops.AkgGpuRegOp("g").get_op_info()["imply_type"] == ops.AkgAscendRegOp("h").get_op_info()["imply_type"]
    with pytest.raises(ValueError, match="pairs"):
        ops.CustomRegOp().input(0, "x").output(0, "y").dtype_format(ops.DataType.F32_Default)

    @ops.custom_info_register(ops.CustomRegOp().input(0, "x").output(0, "y").target("CPU"))
    @ops.op_info_register(ops.TBERegOp("k"))
    def kernel(x):
        return x
    assert [i["imply_type"] for i in kernel.reg_info] == ["TBE", "custom"]
