"""The executor's first-output kernels: a multi-output primitive of which a graph reads only output 0 runs the
backend's `<backend>_first` kernel when the primitive has one (LayerNorm on torch: no mean/variance kernels),
with the same values; a graph that reads another output still runs the full kernel."""
import numpy as np
import pytest

from openspore import backends
from openspore.ops.defs.nn_norm import LayerNorm
from tests.runtime.test_executor import Builder, _run


def _layer_norm_graph(read_variance):
    b = Builder()
    x, gamma, beta = b.input("x", (3, 8)), b.input("gamma", (8,)), b.input("beta", (8,))
    ln = b.op("LayerNorm", x, gamma, beta, begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-5)
    y = b.item(ln, 0)
    out = b.tuple(y, b.item(ln, 2)) if read_variance else b.op("Mul", y, y)
    return b.graph("ln", out)


def _inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype(np.float32) for s in ((3, 8), (8,), (8,))]


@pytest.mark.parametrize("read_variance", [False, True])
def test_first_output_kernel_only_where_nothing_else_is_read(read_variance):
    x, gamma, beta = _inputs()
    with backends.scoped(backends.get("torch")):
        compiled, got = _run(_layer_norm_graph(read_variance), x, gamma, beta)
    first = backends.get("torch").first_kernel(LayerNorm(begin_norm_axis=-1, begin_params_axis=-1))
    assert first is LayerNorm.torch_first
    # only output 0 read: a first-output kernel (here the node's bound one, test_executor_bound_kernels.py)
    assert any(v is LayerNorm.torch for v in compiled.fn.__kwdefaults__.values()) == read_variance
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + 1e-5) * gamma + beta
    np.testing.assert_allclose(got[0], y if read_variance else y * y, rtol=1e-5, atol=1e-5)
    if read_variance:
        np.testing.assert_allclose(got[1], var, rtol=1e-5, atol=1e-6)


def test_params_axis_before_norm_axis_first_kernel_matches_full():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    gamma, beta = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    prim = LayerNorm(begin_norm_axis=2, begin_params_axis=1)
    with backends.scoped(backends.get("torch")):
        be = backends.current()
        args = [be.from_numpy(a) for a in (x, gamma, beta)]
        full = be.to_numpy(prim.torch(be.xp, *args)[0])
        (first,) = LayerNorm.torch_first(prim, be.xp, *args)
    np.testing.assert_array_equal(be.to_numpy(first), full)


def test_numpy_backend_has_no_first_kernel():
    assert backends.get("numpy").first_kernel(LayerNorm()) is None
