"""max_unpool1d/2d (and MaxUnpool2D) against torch, nanmedian against torch, and the functional in-place names."""
import numpy as np
import torch
import torch.nn.functional as tf

import openspore as ms
from openspore import Tensor, ops

RNG = np.random.default_rng(13)


def test_max_unpool_inverts_max_pool(backend):
    x = RNG.standard_normal((2, 3, 6, 4)).astype(np.float32)
    p, i = tf.max_pool2d(torch.from_numpy(x), 2, return_indices=True)
    want = tf.max_unpool2d(p, i, 2).numpy()
    np.testing.assert_array_equal(ops.max_unpool2d(Tensor(p.numpy()), Tensor(i.numpy()), 2).asnumpy(), want)
    np.testing.assert_array_equal(ops.MaxUnpool2D(2)(Tensor(p.numpy()), Tensor(i.numpy())).asnumpy(), want)
    big = ops.max_unpool2d(Tensor(p.numpy()), Tensor(i.numpy()), 2, output_size=(7, 5))
    np.testing.assert_array_equal(big.asnumpy(), tf.max_unpool2d(p, i, 2, output_size=(7, 5)).numpy())
    y = RNG.standard_normal((2, 2, 9)).astype(np.float32)
    p1, i1 = tf.max_pool1d(torch.from_numpy(y), 3, 2, return_indices=True)
    np.testing.assert_array_equal(ops.max_unpool1d(Tensor(p1.numpy()), Tensor(i1.numpy()), 3, 2).asnumpy(),
                                  tf.max_unpool1d(p1, i1, 3, 2).numpy())
    g = ms.grad(lambda t: (ops.max_unpool1d(t, Tensor(i1.numpy()), 3, 2) * 3).sum())(Tensor(p1.numpy()))
    assert (g.asnumpy() == 3).all()


def test_nanmedian_matches_torch():
    y = np.array([[1, np.nan, 3, 2, np.nan], [5, 4, 3, 2, 1], [np.nan, 7, np.nan, np.nan, np.nan]], np.float32)
    v, i = ops.nanmedian(Tensor(y))
    tv, ti = torch.nanmedian(torch.from_numpy(y), -1)
    np.testing.assert_array_equal(v.asnumpy(), tv.numpy())
    np.testing.assert_array_equal(i.asnumpy(), ti.numpy())
    v0, _ = Tensor(y).nanmedian(0, True)
    assert v0.shape == (1, 5)
    assert np.isnan(ops.nanmedian(Tensor(np.full((1, 3), np.nan, np.float32)))[0].asnumpy()).all()


def test_functional_in_place_names():
    t = Tensor(np.array([1.0, -2.0, 0.3], np.float32))
    assert ops.clamp_(t, -1.0, 0.5) is t and t.asnumpy().tolist() == [0.5, -1.0, np.float32(0.3)]
    ops.tanh_(t)
    np.testing.assert_allclose(t.asnumpy(), np.tanh([0.5, -1.0, 0.3]), rtol=1e-6)
    ops.zero_(t)
    assert t.asnumpy().tolist() == [0.0, 0.0, 0.0]
    u = Tensor(np.array([0.5], np.float32))
    ops.erfinv_(u)
    np.testing.assert_allclose(u.asnumpy(), [0.4769362762], rtol=1e-6)
    f = ops.fills(Tensor(np.zeros((2, 2), np.int32)), 3)
    assert f.dtype == ms.int32 and f.asnumpy().tolist() == [[3, 3], [3, 3]]
