"""getitem / setitem against numpy on both backends, their gradients, and their errors."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor
from openspore.ops.indexing import getitem, setitem, wrap_by_lookup

A = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
MASK4 = (A % 7) < 3
MASK2 = A[:, :, 0, 0] > 30

# index forms given as numpy/Python objects; numpy computes the expected result directly
HOST_INDICES = [
    0, -1, (1, 2), (-1, -2, 3, -5), slice(None), slice(1, None), slice(None, None, -1), slice(None, None, 2),
    slice(-1, 0, -1), slice(5, 10), (slice(None), slice(3, 0, -2)), Ellipsis, (Ellipsis, 1), (0, Ellipsis, 2),
    None, (None, 0, None), (Ellipsis, None), (slice(1, None), Ellipsis, slice(None, None, 2)),
    (slice(None, None, -2), 1, slice(3, 0, -1)), [0, 1, 1], [-1, 0], (slice(None), [2, 0]), ([0, 1], [1, 2]),
    ([0, 1], slice(None), [1, 2]), (0, slice(None), [1, 2]), (slice(None), [[0], [2]], [1, 3]),
    (Ellipsis, [0, 4, 4]), (1, [0, 2], slice(None), 3), ([[1]], slice(1, 3), [[0, 1, 2]]), MASK4, MASK2,
    (0, A[0, :, :, 0] > 20), (MASK2, slice(None, 2)), (slice(None), A[0, :, 0, 0] > 10, [1, 2]), True, False,
    (True, 0), np.array(1), np.array([1, 0]), (slice(None), slice(None), [1, -1], None), (), [],
]


def _ids(values):
    out = []
    for v in values:
        r = repr(v).replace("\n", "")
        out.append(r if len(r) < 40 else r[:37] + "...")
    return out


@pytest.mark.parametrize("index", HOST_INDICES, ids=_ids(HOST_INDICES))
def test_getitem_matches_numpy(backend, index):
    expected = A[index]
    got = getitem(Tensor(A), index)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.asnumpy(), expected)


TENSOR_CASES = [
    (lambda: Tensor(np.array([0, -1])), np.array([0, -1])),
    (lambda: Tensor(np.array(-2, np.int32)), np.array(-2)),
    (lambda: (slice(None), Tensor(np.array([[1], [0]], np.int32)), Tensor(np.array([3, -2]))),
     (slice(None), np.array([[1], [0]]), np.array([3, -2]))),
    (lambda: Tensor(A > 30), A > 30),
    (lambda: (Tensor(MASK2), 1), (MASK2, 1)),
    (lambda: (1, Tensor(A[1, :, :, 2] > 70)), (1, A[1, :, :, 2] > 70)),
    (lambda: (Tensor(np.array([1, 0])), slice(None), [2, 3]), (np.array([1, 0]), slice(None), [2, 3])),
    (lambda: (Ellipsis, Tensor(np.array([[4, 0]], np.int64))), (Ellipsis, np.array([[4, 0]]))),
    (lambda: (slice(Tensor(np.array(1)), None), 0), (slice(1, None), 0)),
]


@pytest.mark.parametrize("k", range(len(TENSOR_CASES)))
def test_getitem_with_tensor_indices(backend, k):
    make, host = TENSOR_CASES[k]
    expected = A[host]
    got = getitem(Tensor(A), make())
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.asnumpy(), expected)


def test_getitem_keeps_dtype_and_copies(backend):
    x = Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    y = getitem(x, (slice(None), [0, 2]))
    assert y.dtype == ms.int32
    whole = getitem(x, slice(None))
    assert whole is not x
    np.testing.assert_array_equal(whole.asnumpy(), x.asnumpy())
    b = Tensor(np.array([True, False, True]))
    assert getitem(b, [2, 1]).dtype == ms.bool_


SET_INDICES = [0, -1, (1, 2), slice(None, None, -1), (Ellipsis, 1), (slice(1, None), Ellipsis, slice(None, None, 2)),
               [0, 1], (slice(None), [2, 0]), ([0, 1], [1, 2]), ([0, 1], slice(None), [1, 2]),
               (0, slice(None), [1, 2]), MASK4, MASK2, (None, 1, slice(0, 2)), Ellipsis]


@pytest.mark.parametrize("index", SET_INDICES, ids=_ids(SET_INDICES))
def test_setitem_scalar_matches_numpy(backend, index):
    expected = A.copy()
    expected[index] = -7.5
    x = Tensor(A)
    got = setitem(x, index, -7.5)
    np.testing.assert_array_equal(got.asnumpy(), expected)
    np.testing.assert_array_equal(x.asnumpy(), A)  # functional: the input is unchanged


@pytest.mark.parametrize("index", SET_INDICES, ids=_ids(SET_INDICES))
def test_setitem_broadcast_tensor_value(backend, index):
    target = A[index].shape
    rng = np.random.default_rng(3)
    value = rng.standard_normal(target[-1:] if target else ()).astype(np.float32)
    expected = A.copy()
    expected[index] = value
    got = setitem(Tensor(A), index, Tensor(value))
    np.testing.assert_allclose(got.asnumpy(), expected)


def test_setitem_value_forms(backend):
    x = Tensor(np.zeros((3, 4), np.int32))
    out = setitem(x, 1, [1, 2, 3, 4]).asnumpy()
    np.testing.assert_array_equal(out[1], [1, 2, 3, 4])
    out = setitem(x, (slice(None), 0), Tensor(np.array([[5.7, 6.2, 7.9]], np.float32)))  # leading 1 dropped, cast
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy()[:, 0], [5, 6, 7])
    mask = Tensor(np.eye(3, 4, dtype=bool))
    np.testing.assert_array_equal(setitem(x, mask, 9).asnumpy(), np.eye(3, 4, dtype=np.int32) * 9)
    np.testing.assert_array_equal(setitem(x, Tensor(np.array([2, -3])), 1).asnumpy()[[0, 2]], np.ones((2, 4)))
    s = setitem(Tensor(np.float32(2.0)), Ellipsis, 5.0)
    assert s.shape == () and float(s) == 5.0


def _flat_positions(shape, index):
    return np.arange(int(np.prod(shape))).reshape(shape)[index].reshape(-1)


GRAD_INDICES = [1, (slice(None), slice(3, 0, -2)), (Ellipsis, [0, 4, 4]), ([0, 1, 1], slice(None), [1, 2, 2]),
                MASK4, (MASK2, slice(None, 2)), (None, 1, -1), (slice(None), [[0], [2]], [1, 3])]


@pytest.mark.parametrize("index", GRAD_INDICES, ids=_ids(GRAD_INDICES))
def test_getitem_gradient(backend, index):
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal(A.shape).astype(np.float32))
    w = rng.standard_normal(A[index].shape).astype(np.float32)

    def f(t):
        return (getitem(t, index) * Tensor(w)).sum()
    g = ms.grad(f)(x).asnumpy()
    expected = np.zeros(A.size, np.float32)
    np.add.at(expected, _flat_positions(A.shape, index), w.reshape(-1))  # repeated picks accumulate
    np.testing.assert_allclose(g, expected.reshape(A.shape), rtol=1e-6, atol=1e-6)


SETGRAD_INDICES = [1, (slice(None), slice(3, 0, -2)), ([0, 1], slice(None), [1, 2]), MASK4, (Ellipsis, 2)]


@pytest.mark.parametrize("index", SETGRAD_INDICES, ids=_ids(SETGRAD_INDICES))
def test_setitem_gradient(backend, index):
    rng = np.random.default_rng(1)
    x = Tensor(rng.standard_normal(A.shape).astype(np.float32))
    target = A[index].shape
    v = Tensor(rng.standard_normal(target[-1:]).astype(np.float32))
    w = rng.standard_normal(A.shape).astype(np.float32)

    def f(t, val):
        return (setitem(t, index, val) * Tensor(w)).sum()
    gx, gv = ms.grad(f, grad_position=(0, 1))(x, v)
    hit = np.zeros(A.shape, bool)
    hit[index] = True
    np.testing.assert_allclose(gx.asnumpy(), np.where(hit, 0, w), rtol=1e-6)
    picked = w[index].reshape((-1,) + target[-1:])
    np.testing.assert_allclose(gv.asnumpy(), picked.sum(axis=0), rtol=1e-5, atol=1e-5)


def test_setitem_masked_fill_gradient(backend):
    x = Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    mask = np.linspace(-1, 1, 12).reshape(3, 4) > 0.2
    v = Tensor(np.float32(3.0))
    gx, gv = ms.grad(lambda t, val: (setitem(t, Tensor(mask), val) * t).sum(), grad_position=(0, 1))(x, v)
    # d/dt of sum(where(mask, v, t) * t) = where(mask, v, 2t); d/dv = sum(t[mask])
    xn = x.asnumpy()
    np.testing.assert_allclose(gx.asnumpy(), np.where(mask, 3.0, 2 * xn), rtol=1e-6)
    np.testing.assert_allclose(float(gv), xn[mask].sum(), rtol=1e-6)


def test_getitem_second_order(backend):
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))

    def f(t):
        y = getitem(t, [0, 2, 2])
        return (y * y * y).sum()
    gg = ms.grad(ms.grad(f))(x).asnumpy()
    np.testing.assert_allclose(gg, [6.0, 0.0, 2 * 6 * 3.0])


@pytest.mark.parametrize("index,error,text", [
    ((0, 0, 0, 0, 0), IndexError, "too many indices"),
    (5, IndexError, "out of bounds"),
    ((0, -4), IndexError, "out of bounds"),
    ([0, 2], IndexError, "index 2 is out of bounds for dimension 0 with size 2"),
    ((Ellipsis, 0, Ellipsis), IndexError, "single ellipsis"),
    (np.ones((3,), bool), IndexError, "boolean index"),
    (1.5, IndexError, "valid indices"),
    (([0, 1], [[0, 1, 2]] * 2), IndexError, "broadcast"),
    (slice(None, None, 0), ValueError, "step cannot be zero"),
])
def test_getitem_errors(backend, index, error, text):
    with pytest.raises(error, match=text):
        getitem(Tensor(A), index)


def test_getitem_tensor_index_errors(backend):
    with pytest.raises(IndexError, match="int or bool"):
        getitem(Tensor(A), Tensor(np.array([0.0])))
    with pytest.raises(IndexError, match="index -3 is out of bounds"):
        getitem(Tensor(A), Tensor(np.array([1, -3])))


def test_setitem_value_errors(backend):
    with pytest.raises(ValueError, match="could not broadcast"):
        setitem(Tensor(A), 0, Tensor(np.zeros((2,), np.float32)))
    with pytest.raises(TypeError, match="value to assign"):
        setitem(Tensor(A), 0, "text")


def test_wrap_by_lookup_matches_host_wrap(backend):
    idx = Tensor(np.array([[-3, 0], [2, -1]], np.int64))
    np.testing.assert_array_equal(wrap_by_lookup(idx, 3).asnumpy(), [[0, 0], [2, 2]])
    with pytest.raises(RuntimeError, match="out of range"):
        wrap_by_lookup(Tensor(np.array([3])), 3)
