"""Scatter and segment reductions (TensorScatterMax/Min/Mul/Div and the functions and classes built on them)
against numpy references, in PyNative and under jit, with gradients."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, ops

RNG = np.random.default_rng(7)
X = RNG.uniform(-1, 1, (4, 3)).astype(np.float32)
IDX = np.array([[0], [2], [0], [3]], np.int32)
UPD = RNG.uniform(0.5, 1.5, (4, 3)).astype(np.float32)


def _np_scatter(ufunc, x, idx, upd):
    out = x.copy()
    ufunc.at(out, tuple(np.moveaxis(idx, -1, 0)), upd)
    return out


@pytest.mark.parametrize("name, ufunc", [("max", np.maximum), ("min", np.minimum), ("mul", np.multiply),
                                         ("div", np.divide)])
def test_tensor_scatter_reductions_match_numpy(backend, name, ufunc):
    fn = getattr(ops, f"tensor_scatter_{name}")
    got = fn(Tensor(X), Tensor(IDX), Tensor(UPD)).asnumpy()
    np.testing.assert_allclose(got, _np_scatter(ufunc, X, IDX, UPD), rtol=1e-6)
    jitted = ms.jit(lambda a, i, u: fn(a, i, u) * 2)(Tensor(X), Tensor(IDX), Tensor(UPD)).asnumpy()
    np.testing.assert_allclose(jitted, 2 * got, rtol=1e-6)
    cls = getattr(ops, f"TensorScatter{name.capitalize()}")
    np.testing.assert_allclose(cls()(Tensor(X), Tensor(IDX), Tensor(UPD)).asnumpy(), got)


def test_scatter_nd_on_a_parameter_writes_in_place():
    p = ms.Parameter(Tensor(X.copy()), name="p")
    ops.scatter_nd_mul(p, Tensor(IDX), Tensor(UPD))
    np.testing.assert_allclose(p.asnumpy(), _np_scatter(np.multiply, X, IDX, UPD), rtol=1e-6)
    q = ms.Parameter(Tensor(X.copy()), name="q")
    ops.ScatterMin()(q, Tensor(IDX[:, 0]), Tensor(UPD - 1))
    np.testing.assert_allclose(q.asnumpy(), _np_scatter(np.minimum, X, IDX, UPD - 1), rtol=1e-6)
    r = ms.Parameter(Tensor(X.copy()), name="r")
    ops.ScatterSub()(r, Tensor(IDX[:, 0]), Tensor(UPD))
    np.testing.assert_allclose(r.asnumpy(), _np_scatter(np.subtract, X, IDX, UPD), rtol=1e-6)


def test_unsorted_segments_fill_and_drop():
    x = np.array([[1, 2], [7, -4], [3, 9], [5, 5]], np.float32)
    ids = np.array([0, 2, 0, -1], np.int32)  # -1 is dropped; segment 1 is empty
    low, high = np.finfo(np.float32).min, np.finfo(np.float32).max
    np.testing.assert_array_equal(ops.unsorted_segment_max(Tensor(x), Tensor(ids), 3).asnumpy(),
                                  [[3, 9], [low, low], [7, -4]])
    np.testing.assert_array_equal(ops.UnsortedSegmentMin()(Tensor(x), Tensor(ids), 3).asnumpy(),
                                  [[1, 2], [high, high], [7, -4]])
    np.testing.assert_array_equal(ops.unsorted_segment_prod(Tensor(x), Tensor(ids), 3).asnumpy(),
                                  [[3, 18], [1, 1], [7, -4]])
    ints = ops.unsorted_segment_max(Tensor(x.astype(np.int32)), Tensor(ids), 2)
    assert ints.dtype == ms.int32 and ints.asnumpy().tolist() == [[3, 9], [np.iinfo(np.int32).min] * 2]


@pytest.mark.parametrize("cls, ref, empty", [("SegmentSum", np.sum, 0), ("SegmentMean", np.mean, 0),
                                             ("SegmentMax", np.max, 0), ("SegmentMin", np.min, 0),
                                             ("SegmentProd", np.prod, 1)])
def test_sorted_segment_classes(cls, ref, empty):
    x = RNG.uniform(-2, 2, (5, 2)).astype(np.float32)
    ids = np.array([0, 0, 1, 3, 3])
    want = np.stack([ref(x[ids == s], axis=0) if (ids == s).any() else np.full(2, empty, np.float32)
                     for s in range(4)])
    np.testing.assert_allclose(getattr(ops, cls)()(Tensor(x), Tensor(ids)).asnumpy(), want, rtol=1e-6)
    with pytest.raises(ValueError, match="sorted"):
        getattr(ops, cls)()(Tensor(x), Tensor(np.array([1, 0, 0, 0, 0])))


def test_segment_max_gradient_goes_to_the_winners():
    x = np.array([1.0, 5.0, 2.0, 4.0], np.float32)
    g = ms.grad(lambda t: (ops.unsorted_segment_max(t, Tensor([0, 0, 1, 1]), 2) * Tensor([2.0, 3.0])).sum())(
        Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), [0, 2, 0, 3])
    g = ms.grad(lambda t: ops.unsorted_segment_prod(t, Tensor([0, 0, 1, 1]), 2).sum())(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), [5, 1, 4, 2])


def test_bad_inputs_name_the_problem():
    with pytest.raises(ValueError, match="prefix"):
        ops.unsorted_segment_max(Tensor(X), Tensor(np.zeros(3, np.int32)), 2)
    with pytest.raises(TypeError, match="num_segments"):
        ops.unsorted_segment_min(Tensor(X), Tensor(np.zeros(4, np.int32)), 1.5)
    with pytest.raises(TypeError, match="input_x"):
        ops.tensor_scatter_div(Tensor(X.astype(np.int32)), Tensor(IDX), Tensor(UPD.astype(np.int32)))
