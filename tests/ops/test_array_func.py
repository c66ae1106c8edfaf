"""The functional array API against numpy on both backends: shapes, dtypes, values, gradients and errors.

Also checks gradients of the tuple-input primitives (Concat, Stack, Meshgrid), which the generated op-table
tests do not differentiate.
"""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, ops

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 5)).astype(np.float32)


def close(t, expected, **kw):
    got = t.asnumpy() if hasattr(t, "asnumpy") else np.asarray(t)
    assert got.shape == np.shape(expected), f"shape {got.shape} vs {np.shape(expected)}"
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(expected, np.float64), **kw)


# ---- gradients of tuple-input primitives (finite differences, float64) -------------------------
def _numeric_tuple_grad(fn, arrays, eps=1e-6):
    grads = []
    for a in arrays:
        g = np.zeros_like(a)
        flat, gflat = a.reshape(-1), g.reshape(-1)
        for j in range(flat.size):
            old = flat[j]
            flat[j] = old + eps
            plus = fn(arrays)
            flat[j] = old - eps
            minus = fn(arrays)
            flat[j] = old
            gflat[j] = (plus - minus) / (2 * eps)
        grads.append(g)
    return grads


@pytest.mark.parametrize("make,shapes", [
    (lambda ts: ops.concat(ts, axis=1), [(2, 1), (2, 3), (2, 2)]),
    (lambda ts: ops.concat(ts, axis=0), [(1, 3), (2, 3)]),
    (lambda ts: ops.stack(ts, axis=-1), [(2, 3), (2, 3)]),
    (lambda ts: ops.stack(ts, axis=0), [(3,), (3,), (3,)]),
    (lambda ts: ops.meshgrid(*ts)[0] * 2 + ops.meshgrid(*ts)[1], [(2,), (3,)]),
    (lambda ts: ops.meshgrid(ts, indexing="ij")[2], [(2,), (3,), (2,)]),
])
def test_tuple_input_gradients(backend, make, shapes):
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s) for s in shapes]
    out_shape = make([Tensor(a) for a in arrays]).shape
    w = rng.standard_normal(out_shape)

    def value(arrs):
        return float((make([Tensor(a) for a in arrs]).asnumpy() * w).sum())

    def f(*ts):
        return (make(list(ts)) * Tensor(w)).sum()
    analytic = ms.grad(f, grad_position=tuple(range(len(arrays))))(*[Tensor(a) for a in arrays])
    analytic = analytic if isinstance(analytic, tuple) else (analytic,)  # MindSpore unwraps a one-element position tuple
    for a, n in zip(analytic, _numeric_tuple_grad(value, arrays)):
        np.testing.assert_allclose(a.asnumpy(), n, rtol=1e-5, atol=1e-7)


# ---- shape ------------------------------------------------------------------------------------
def test_shape_functions(backend):
    x = Tensor(X)
    close(ops.transpose(x, (2, 0, 1)), X.transpose(2, 0, 1))
    close(ops.permute(x, (1, 0, 2)), X.transpose(1, 0, 2))
    close(ops.swapaxes(x, 0, -1), X.swapaxes(0, -1))
    close(ops.moveaxis(x, (0, 1), (-1, 0)), np.moveaxis(X, (0, 1), (-1, 0)))
    close(ops.expand_dims(x, -1), X[..., None])
    close(ops.unsqueeze(x, 1), X[:, None])
    y = Tensor(X[:, :1, None])
    close(ops.squeeze(y), X[:, 0])
    close(ops.squeeze(y, 2), X[:, :1])
    close(ops.flatten(x), X.reshape(3, -1))
    close(ops.flatten(x, start_dim=0, end_dim=1), X.reshape(12, 5))
    close(ops.flatten(x, order="F"), X.transpose(2, 1, 0).reshape(5, -1))
    close(ops.flatten(Tensor(np.float32(2.0))), [2.0])
    close(ops.ravel(x), X.reshape(-1))
    close(ops.reshape(x, (5, -1)), X.reshape(5, -1))
    close(ops.broadcast_to(Tensor(X[:1]), (2, 3, 4, 5)), np.broadcast_to(X[:1], (2, 3, 4, 5)))
    assert ops.shape(x) == (3, 4, 5) and ops.rank(x) == 3 and ops.size(x) == 60 and ops.numel(x) == 60
    close(ops.Flatten()(Tensor(X)), X.reshape(3, 20))


def test_join_split(backend):
    x = Tensor(X)
    parts = ops.split(x, 2, axis=1)
    assert [p.shape for p in parts] == [(3, 2, 5), (3, 2, 5)]
    parts = ops.split(x, 2, axis=2)
    assert [p.shape[2] for p in parts] == [2, 2, 1]
    parts = ops.split(x, [1, 3, 1], axis=-1)
    for p, e in zip(parts, np.split(X, [1, 4], axis=-1)):
        close(p, e)
    assert [c.shape[1] for c in ops.chunk(x, 3, axis=1)] == [2, 2]
    assert len(ops.chunk(x, 5, axis=0)) == 3
    for u, e in zip(ops.unstack(x, axis=1), np.moveaxis(X, 1, 0)):
        close(u, e)
    close(ops.cat([x, x], axis=2), np.concatenate([X, X], axis=2))
    close(ops.stack((x, x), axis=1), np.stack([X, X], axis=1))
    a, b = Tensor(np.arange(3.0)), Tensor(np.arange(3.0, 6.0))
    close(ops.hstack([a, b]), np.hstack([a.asnumpy(), b.asnumpy()]))
    close(ops.vstack([a, b]), np.vstack([a.asnumpy(), b.asnumpy()]))
    grads = ms.grad(lambda t: ops.split(t, [1, 4], axis=2)[1].sum())(x).asnumpy()
    np.testing.assert_array_equal(grads[..., 0], 0)
    np.testing.assert_array_equal(grads[..., 1:], 1)


def test_slicing_functions(backend):
    x = Tensor(X)
    close(ops.slice(x, (1, 0, 2), (2, -1, 2)), X[1:3, :, 2:4])
    close(ops.strided_slice(x, (0, 3, 0), (3, 0, 5), (2, -1, 2)), X[0:3:2, 3:0:-1, 0:5:2])
    close(ops.strided_slice(x, (1, 0, 0), (2, 4, 5), (1, 1, 1), shrink_axis_mask=1), X[1])
    close(ops.narrow(x, 1, 1, 2), X[:, 1:3])
    close(ops.narrow(x, -1, -2, 2), X[..., 3:5])
    close(ops.flip(x, (0, 2)), X[::-1, :, ::-1])
    close(ops.flip(x, 1), X[:, ::-1])
    close(ops.roll(x, 2), np.roll(X, 2))
    close(ops.roll(x, (1, -1), (0, 2)), np.roll(X, (1, -1), (0, 2)))


def test_gather_family(backend):
    x = Tensor(X)
    idx = np.array([[2, 0], [1, 1]], np.int32)
    close(ops.gather(x, Tensor(idx), 1), np.take(X, idx, axis=1))
    close(ops.index_select(x, 2, Tensor(np.array([4, 0, 4]))), X[:, :, [4, 0, 4]])
    b = np.array([[3, 0], [1, 1], [2, 3]])
    expected = np.stack([np.take(X[i], b[i], axis=0) for i in range(3)])
    close(ops.gather(x, Tensor(b), 1, batch_dims=1), expected)
    e = RNG.integers(0, 4, (3, 2, 5))
    close(ops.gather_elements(x, 1, Tensor(e)), np.take_along_axis(X, e, axis=1))
    close(ops.gather_d(x, 1, Tensor(e)), np.take_along_axis(X, e, axis=1))
    nd = np.array([[0, 1], [2, 3]])
    close(ops.gather_nd(x, Tensor(nd)), X[nd[:, 0], nd[:, 1]])


def test_scatter_family(backend):
    base = np.zeros((3, 4), np.float32)
    idx = np.array([[0, 1], [2, 3], [0, 1]])
    upd = np.array([1.0, 2.0, 3.0], np.float32)
    expected = base.copy()
    np.add.at(expected, (idx[:, 0], idx[:, 1]), upd)
    close(ops.scatter_nd(Tensor(idx), Tensor(upd), (3, 4)), expected)
    close(ops.tensor_scatter_add(Tensor(base), Tensor(idx), Tensor(upd)), expected)
    upd2 = Tensor(np.array([5.0, 6.0], np.float32))
    got = ops.tensor_scatter_update(Tensor(base), Tensor(idx[:2]), upd2).asnumpy()
    assert got[0, 1] == 5 and got[2, 3] == 6 and got.sum() == 11
    src = np.arange(8, dtype=np.float32).reshape(2, 4)
    index = np.array([[2, 0, 1, 2], [0, 2, 0, 1]])
    expected = base.copy()
    np.put_along_axis(expected, index, src, axis=0)
    close(ops.scatter(Tensor(base), 0, Tensor(index), Tensor(src)), expected)
    ones = Tensor(np.ones((1, 3), np.float32))
    added = ops.tensor_scatter_elements(Tensor(base), Tensor(np.array([[1, 1, 3]])), ones, axis=1,
                                        reduction="add").asnumpy()
    np.testing.assert_array_equal(added[0], [0, 2, 0, 1])


def test_tile_repeat_pad(backend):
    x = Tensor(X[:, :2, :3])
    a = X[:, :2, :3]
    close(ops.tile(x, (2, 1, 3)), np.tile(a, (2, 1, 3)))
    close(ops.tile(x, (2, 1, 1, 1)), np.tile(a, (2, 1, 1, 1)))
    close(ops.repeat_interleave(x, 2, axis=1), np.repeat(a, 2, axis=1))
    close(ops.repeat_interleave(x, 3), np.repeat(a, 3))
    close(ops.repeat_interleave(x, Tensor(np.array([1, 0, 2])), axis=0), np.repeat(a, [1, 0, 2], axis=0))
    close(ops.pad(x, (1, 2)), np.pad(a, ((0, 0), (0, 0), (1, 2))))
    close(ops.pad(x, (1, 0, 0, 1), value=2.5), np.pad(a, ((0, 0), (0, 1), (1, 0)), constant_values=2.5))
    close(ops.pad(x, (2, 1, 1, 0), mode="reflect"), np.pad(a, ((0, 0), (1, 0), (2, 1)), mode="reflect"))
    close(ops.pad(x, (3, 1), mode="replicate"), np.pad(a, ((0, 0), (0, 0), (3, 1)), mode="edge"))
    close(ops.pad(x, (2, 4), mode="circular"), np.pad(a, ((0, 0), (0, 0), (2, 4)), mode="wrap"))
    close(ops.pad(x, (-1, 1, 0, -1)), np.pad(a[:, :1, 1:], ((0, 0), (0, 0), (0, 1))))
    close(ops.Pad(((1, 0), (0, 1), (2, 2)))(x), np.pad(a, ((1, 0), (0, 1), (2, 2))))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_gradient_folds_copies(backend, mode):
    x = Tensor(np.arange(4, dtype=np.float32))
    g = ms.grad(lambda t: ops.pad(t, (2, 3), mode=mode).sum())(x).asnumpy()
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    counts = np.zeros(4)
    np.add.at(counts, np.pad(np.arange(4), (2, 3), mode=np_mode), 1)
    np.testing.assert_array_equal(g, counts)


def test_creation(backend):
    z = ops.zeros((2, 3))
    assert z.dtype == ms.float32 and z.shape == (2, 3) and not z.asnumpy().any()
    assert ops.zeros(4, ms.int32).dtype == ms.int32
    o = ops.ones(3)
    assert o.dtype == ms.float32 and o.asnumpy().tolist() == [1, 1, 1]
    assert ops.full((2,), 7).dtype == ms.int64
    assert ops.full((2,), 7.0).dtype == ms.float32
    assert ops.full((2,), True).dtype == ms.bool_
    assert ops.full((2, 2), 1, dtype=ms.float16).dtype == ms.float16
    close(ops.full((2, 2), Tensor(np.float32(1.5))), np.full((2, 2), 1.5))
    f = ops.full_like(Tensor(X), 3)
    assert f.dtype == ms.float32 and f.shape == X.shape
    close(ops.fill(ms.float32, (2,), 4), [4.0, 4.0])
    a = ops.arange(5)
    assert a.dtype == ms.int64 and a.asnumpy().tolist() == [0, 1, 2, 3, 4]
    b = ops.arange(1, 2, 0.25)
    assert b.dtype == ms.float32
    close(b, [1.0, 1.25, 1.5, 1.75])
    assert ops.arange(3, dtype=ms.float32).dtype == ms.float32
    assert ops.arange(Tensor(np.array(4, np.int32))).asnumpy().tolist() == [0, 1, 2, 3]
    close(ops.arange(5, 0, -2), [5, 3, 1])
    e = ops.eye(2, 3)
    assert e.dtype == ms.float32
    close(e, np.eye(2, 3))
    close(ops.tril(Tensor(X), -1), np.tril(X, -1))
    close(ops.triu(Tensor(X), 1), np.triu(X, 1))
    close(ops.diag(Tensor(np.array([1.0, 2.0, 3.0], np.float32))), np.diag([1.0, 2.0, 3.0]))
    d = ops.diag(Tensor(np.arange(4).reshape(2, 2)))
    assert d.shape == (2, 2, 2, 2) and d.asnumpy()[1, 0, 1, 0] == 2 and d.asnumpy().sum() == 6


def test_meshgrid(backend):
    a, b = np.arange(2.0, dtype=np.float32), np.arange(3.0, dtype=np.float32)
    for got, e in zip(ops.meshgrid(Tensor(a), Tensor(b)), np.meshgrid(a, b)):
        close(got, e)
    for got, e in zip(ops.meshgrid((Tensor(a), Tensor(b), Tensor(a)), indexing="ij"),
                      np.meshgrid(a, b, a, indexing="ij")):
        close(got, e)


def test_one_hot(backend):
    idx = Tensor(np.array([[0, 2], [1, 5]], np.int32))
    out = ops.one_hot(idx, 3)
    assert out.dtype == ms.int64
    np.testing.assert_array_equal(out.asnumpy(), np.eye(3, dtype=np.int64)[[[0, 2], [1, 0]]] * [[[1], [1]], [[1], [0]]])
    f = ops.one_hot(idx, 3, Tensor(np.float32(2.0)), Tensor(np.float32(-1.0)), axis=0)
    assert f.shape == (3, 2, 2) and f.dtype == ms.float32
    assert f.asnumpy()[2, 0, 1] == 2.0 and f.asnumpy()[:, 1, 1].tolist() == [-1.0, -1.0, -1.0]
    assert ops.one_hot(idx, 4, 1.0, 0.0).dtype == ms.float32


def test_sort_topk_unique(backend):
    x = np.array([[3.0, 1.0, 3.0, 2.0], [0.5, 0.5, -1.0, 4.0]], np.float32)
    v, i = ops.sort(Tensor(x), descending=True)
    assert i.dtype == ms.int32
    np.testing.assert_array_equal(i.asnumpy(), [[0, 2, 3, 1], [3, 0, 1, 2]])  # stable for ties
    np.testing.assert_array_equal(ops.argsort(Tensor(x), axis=0).asnumpy(), np.argsort(x, axis=0, kind="stable"))
    v, i = ops.topk(Tensor(x), 2)
    np.testing.assert_array_equal(v.asnumpy(), [[3.0, 3.0], [4.0, 0.5]])
    np.testing.assert_array_equal(i.asnumpy(), [[0, 2], [3, 0]])
    v, i = ops.topk(Tensor(x), 1, dim=0, largest=False)
    np.testing.assert_array_equal(v.asnumpy(), [[0.5, 0.5, -1.0, 2.0]])
    np.testing.assert_array_equal(i.asnumpy(), [[1, 1, 1, 0]])
    v, i = ops.top_k(Tensor(x), 3)
    assert v.shape == (2, 3)
    y, idx = ops.unique(Tensor(np.array([1, 2, 5, 2], np.int32)))
    assert y.asnumpy().tolist() == [1, 2, 5] and idx.asnumpy().tolist() == [0, 1, 2, 1] and idx.dtype == ms.int32
    g = ms.grad(lambda t: (ops.topk(t, 2)[0] * Tensor(np.array([[1.0, 10.0]] * 2, np.float32))).sum())(Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), [[1, 0, 10, 0], [10, 0, 0, 1]])
    g = ms.grad(lambda t: (ops.topk(t, 1, dim=0, largest=False)[0] * 3).sum())(Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), [[0, 0, 0, 3], [3, 3, 3, 0]])


def test_masking(backend):
    x = Tensor(X)
    m = X > 0.3
    close(ops.masked_fill(x, Tensor(m), 0.0), np.where(m, 0, X))
    close(ops.masked_fill(x, Tensor(m[0]), Tensor(np.float64(2.0))), np.where(m[0], 2, X))
    close(ops.masked_select(x, Tensor(m)), X[m])
    nz = ops.nonzero(Tensor(m))
    assert nz.dtype == ms.int64
    np.testing.assert_array_equal(nz.asnumpy(), np.argwhere(m))
    for got, e in zip(ops.nonzero(Tensor(m), as_tuple=True), np.nonzero(m)):
        np.testing.assert_array_equal(got.asnumpy(), e)
    np.testing.assert_array_equal(ops.nonzero(Tensor(np.array([0, 3, 0, 1])), as_tuple=True)[0].asnumpy(), [1, 3])
    np.testing.assert_array_equal(ops.argwhere(Tensor(m)).asnumpy(), np.argwhere(m))
    g = ms.grad(lambda t: (ops.masked_select(t, Tensor(m)) * 2).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), np.where(m, 2, 0))


def test_gradients_through_layout_ops(backend):
    x = Tensor(X)
    w = RNG.standard_normal((4, 3, 5)).astype(np.float32)
    g = ms.grad(lambda t: (ops.transpose(t, (1, 0, 2)) * Tensor(w)).sum())(x)
    close(g, w.transpose(1, 0, 2))
    g = ms.grad(lambda t: ops.tile(t, (2, 1, 3)).sum())(x)
    close(g, np.full(X.shape, 6.0))
    g = ms.grad(lambda t: (ops.gather(t, Tensor(np.array([0, 0, 2])), 0) * 1.0).sum())(x)
    close(g, np.stack([np.full((4, 5), 2.0), np.zeros((4, 5)), np.ones((4, 5))]))
    g = ms.grad(lambda t: ops.flip(t * t, (1,)).sum())(x)
    close(g, 2 * X, rtol=1e-6)
    g = ms.grad(lambda t: ops.diag(t).sum())(Tensor(np.array([1.0, 2.0], np.float32)))
    close(g, [1.0, 1.0])


def test_second_order_through_gather_and_slices(backend):
    x = Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))

    def f(t):
        y = ops.gather(t, Tensor(np.array([1, 3, 3])), 0)
        z = ops.strided_slice(t, (3,), (0,), (-2,))
        return (y * y * y).sum() + (z * z * z).sum()
    gg = ms.grad(ms.grad(f))(x).asnumpy()
    # d²/dt² of sum of cubes = 6 t per pick; picks: t1 ×1, t3 ×2 (gather) and t3, t1 (slice)
    np.testing.assert_allclose(gg, [0.0, 6 * 2.0 * 2, 0.0, 6 * 4.0 * 3])


@pytest.mark.parametrize("call,error,text", [
    (lambda: ops.gather(Tensor(X), Tensor(np.array([3])), 0), RuntimeError, "out of range"),
    (lambda: ops.gather(Tensor(X), Tensor(np.array([0.5])), 0), TypeError, "int32 or int64"),
    (lambda: ops.gather_nd(Tensor(X), Tensor(np.array([[0, 9]]))), RuntimeError, "out of range"),
    (lambda: ops.concat([Tensor(X), Tensor(X.astype(np.float64))]), TypeError, "same dtype"),
    (lambda: ops.concat([Tensor(X), Tensor(X[:, :2, :2])], axis=1), ValueError, "does not match"),
    (lambda: ops.stack([Tensor(X), Tensor(X[:1])]), ValueError, "same shape"),
    (lambda: ops.squeeze(Tensor(X), 1), ValueError, "must be 1"),
    (lambda: ops.transpose(Tensor(X), (0, 0, 1)), ValueError, "permutation"),
    (lambda: ops.expand_dims(Tensor(X), 5), ValueError, "out of range"),
    (lambda: ops.strided_slice(Tensor(X), (0,), (1,), (0,)), ValueError, "must not contain 0"),
    (lambda: ops.pad(Tensor(X), (5, 0), mode="reflect"), ValueError, "smaller than the dimension"),
    (lambda: ops.pad(Tensor(X), (1, 0), mode="reflect", value=1.0), ValueError, "only used in 'constant'"),
    (lambda: ops.split(Tensor(X), [1, 1], axis=0), ValueError, "sum of 'size_splits'"),
    (lambda: ops.topk(Tensor(X), 9), ValueError, "'k' must be in"),
    (lambda: ops.slice(Tensor(X), (2, 0, 0), (2, 1, 1)), ValueError, "out of range"),
    (lambda: ops.masked_fill(Tensor(X), Tensor(X > 0).astype(ms.int32), 1.0), TypeError, "bool Tensor"),
    (lambda: ops.arange(0, 5, -1), ValueError, "points away"),
    (lambda: ops.one_hot(Tensor(np.array([0.0])), 3), TypeError, "int Tensor"),
])
def test_errors(backend, call, error, text):
    with pytest.raises(error, match=text):
        call()


def test_zero_d_results_stay_zero_d(backend):
    v = Tensor(np.arange(3.0, dtype=np.float32))
    s = Tensor(np.float32(3.0))
    results = [ops.unstack(v)[2], ops.gather(v, Tensor(np.array(1)), 0), ops.gather_nd(v, Tensor(np.array([2]))),
               ops.transpose(s, ()), ops.slice(s, (), ()), ops.flip(s, ()), ops.squeeze(Tensor(np.ones((1, 1)))),
               ops.strided_slice(v, (1,), (2,), (1,), shrink_axis_mask=1)]
    for r in results:
        assert r.shape == () and isinstance(r.asnumpy(), np.ndarray)
    assert float(results[0]) == 2.0 and float(results[2]) == 2.0
