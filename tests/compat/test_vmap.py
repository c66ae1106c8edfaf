"""ops.vmap / ms.vmap: in_axes/out_axes, nesting, Cells and CellLists, grads, Graph mode, MindSpore's errors."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops


def T(x):
    return ms.Tensor(np.asarray(x, np.float32))


X = np.arange(6, dtype=np.float32).reshape(2, 3)


def test_in_axes_per_argument_and_unmapped_python_values():
    out = ms.vmap(lambda a, b, n: a * b * n, in_axes=(0, 1, None))(T(X), T(X.T * 2), 3.0)
    np.testing.assert_allclose(out.asnumpy(), X * (X * 2) * 3.0)
    assert ops.vmap is ms.vmap


def test_negative_axes_and_out_axes_tuple():
    sums = ms.vmap(lambda a: a.sum(), in_axes=-1)(T(X))
    assert sums.asnumpy().tolist() == X.sum(0).tolist()
    a, b = ms.vmap(lambda r: (r, r * 2), out_axes=(1, 0))(T(X))
    assert a.shape == (3, 2) and b.shape == (2, 3)
    np.testing.assert_allclose(a.asnumpy(), X.T)
    first, const = ms.vmap(lambda r: (r.sum(), T(1.0)), out_axes=(0, None))(T(X))
    assert first.shape == (2,) and const.shape == ()


def test_tuple_argument_with_nested_in_axes():
    out = ms.vmap(lambda pair: pair[0] + pair[1], in_axes=((0, 1),))((T(X), T(X.T)))
    np.testing.assert_allclose(out.asnumpy(), X * 2)


def test_nested_vmap_equals_loops():
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)
    out = ms.vmap(ms.vmap(lambda a: (a * a).sum(), in_axes=0), in_axes=1)(T(x))
    expected = np.array([[(x[i, j] ** 2).sum() for i in range(2)] for j in range(3)])
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5)


def test_vmap_over_cell_and_cell_list():
    dense = nn.Dense(3, 2)
    x = np.random.default_rng(1).normal(size=(5, 4, 3)).astype(np.float32)
    out = ms.vmap(dense, in_axes=1)(T(x))
    assert out.shape == (4, 5, 2)
    np.testing.assert_allclose(out.asnumpy()[2], dense(T(x[:, 2])).asnumpy(), rtol=1e-5)
    cells = nn.CellList([nn.Dense(3, 2), nn.Dense(3, 2)])
    ens = ms.vmap(cells, in_axes=0)(T(x[:2]))
    np.testing.assert_allclose(ens.asnumpy()[1], cells[1](T(x[1])).asnumpy(), rtol=1e-5)
    shared = ms.vmap(cells, in_axes=None)(T(x[0]))  # one input for every cell
    assert shared.shape == (2, 4, 2)


def test_grad_of_vmap_and_graph_mode():
    g = ms.grad(ms.vmap(lambda a: (a * a).sum()))(T(X))
    np.testing.assert_allclose(g.asnumpy(), 2 * X)

    class Net(nn.Cell):
        def construct(self, x):
            return ops.vmap(lambda r: r.max() - r.min(), in_axes=0)(x)

    eager = Net()(T(X)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(Net()(T(X)).asnumpy(), eager)


def test_errors_match_mindspore():
    add = ms.vmap(lambda a, b: a + b, in_axes=(0, 0))
    with pytest.raises(RuntimeError, match="'axis_size' of each argument .* should be equal, but got 2 and 3"):
        add(T(X), T(np.ones((3, 3))))
    with pytest.raises(RuntimeError, match="cannot be a single None"):
        ms.vmap(lambda a: a, in_axes=None)
    with pytest.raises(RuntimeError, match=r"axis: 3 in 'in_axes' is out of bounds .*\[-2,2\)"):
        ms.vmap(lambda a: a, in_axes=3)(T(X))
    with pytest.raises(RuntimeError, match="should be a None or a scalar"):
        ms.vmap(lambda a: a, in_axes=({"k": 0},))
    with pytest.raises(RuntimeError, match="length of vmap's 'in_axes'"):
        ms.vmap(lambda a, b: a, in_axes=(0, 0, 0))(T(X), T(X))
