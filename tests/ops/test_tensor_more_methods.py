"""Tensor methods added in ops/tensor_more_methods.py: the forwarded ones agree with their ops functions; the
composed ones against numpy/torch."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import Tensor, ops
from openspore.ops.tensor_more_methods import _FORWARDED

RNG = np.random.default_rng(5)
M = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
SPD = M @ M.T


def test_every_forwarded_name_is_a_method_calling_its_function():
    missing = [n for n in _FORWARDED if not callable(getattr(Tensor, n, None))]
    assert not missing, missing


@pytest.mark.parametrize("name, args", [
    ("sinc", ()), ("i0", ()), ("lgamma", ()), ("digamma", ()), ("det", ()), ("logdet", ()), ("adjoint", ()),
    ("cholesky", ()), ("matrix_power", (3,)), ("diagonal", ()), ("frac", ()), ("deg2rad", ()), ("logit", ()),
    ("cummax", (1,)), ("msort", ()), ("t", ()), ("rot90", (1, (0, 1))), ("fliplr", ()), ("nansum", ()), ("signbit", ()),
    ("float_power", (2,)), ("hypot", (Tensor(SPD),)), ("xlogy", (Tensor(SPD),)), ("baddbmm", None),
    ("cholesky_solve", (Tensor(np.linalg.cholesky(SPD)),)), ("diagonal_scatter", (Tensor(np.ones(3)),)),
])
def test_forwarded_methods_equal_the_functions(name, args):
    x = Tensor(SPD / 10)
    if args is None:  # baddbmm on batches
        b = Tensor(RNG.standard_normal((2, 3, 3)))
        want, got = ops.baddbmm(b, b, b, beta=0.5, alpha=2), b.baddbmm(b, b, beta=0.5, alpha=2)
    else:
        want, got = getattr(ops, name)(x, *args), getattr(x, name)(*args)
    for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())


def test_baddbmm_cholesky_and_i0_match_torch():
    b = RNG.standard_normal((2, 3, 4))
    c = RNG.standard_normal((2, 4, 3))
    i = RNG.standard_normal((2, 3, 3))
    np.testing.assert_allclose(Tensor(i).baddbmm(Tensor(b), Tensor(c), beta=0.5, alpha=2).asnumpy(),
                               torch.baddbmm(torch.from_numpy(i), torch.from_numpy(b), torch.from_numpy(c), beta=0.5,
                                             alpha=2).numpy(), rtol=1e-10)
    np.testing.assert_allclose(Tensor(SPD).cholesky().asnumpy(), np.linalg.cholesky(SPD), rtol=1e-10)
    np.testing.assert_allclose(Tensor(SPD).sinc().asnumpy(), np.sinc(SPD), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(Tensor(SPD).i0().asnumpy(), torch.special.i0(torch.from_numpy(SPD)).numpy(), rtol=1e-7)


def test_new_tensors_and_queries():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    z = x.new_zeros((2, 2))
    assert z.dtype == ms.float32 and z.asnumpy().tolist() == [[0, 0], [0, 0]]
    assert x.new_ones(3, dtype=ms.int32).asnumpy().tolist() == [1, 1, 1]
    assert x.new_full((1, 2), 7).asnumpy().tolist() == [[7.0, 7.0]] and x.new_empty((4,)).shape == (4,)
    assert x.dim() == 2 and x.ndimension() == 2 and x.nelement() == 6 and x.is_signed()
    assert not Tensor(np.zeros(2, np.uint8)).is_signed()
    assert x.byte().dtype == ms.uint8 and x.short().dtype == ms.int16
    assert x.reshape_as(Tensor(np.zeros((3, 2)))).shape == (3, 2)
    assert x.mH.shape == (3, 2) and x.H.asnumpy().tolist() == x.asnumpy().T.tolist()
    assert x.type() == "Float32" and x.type(ms.int32).dtype == ms.int32
    np.testing.assert_array_equal(x.ptp(1).asnumpy(), [2, 2])
    assert float(x.ptp().asnumpy()) == 5
    np.testing.assert_array_equal(x.sum_to_size(1, 3).asnumpy(), [[3, 5, 7]])
    np.testing.assert_array_equal(x.sum_to_size(3).asnumpy(), [3, 5, 7])
    assert Tensor(np.array([5, -6], np.int32)).bitwise_not().asnumpy().tolist() == [-6, 5]


def test_fill_diagonal_and_in_place_methods():
    tall = np.zeros((7, 3), np.float32)
    want = tall.copy()
    np.fill_diagonal(want, 5.0, wrap=True)
    np.testing.assert_array_equal(Tensor(tall).fill_diagonal(5.0, wrap=True).asnumpy(), want)
    x = Tensor(np.zeros((3, 3), np.float32))
    x.fill_diagonal_(2.0)
    assert x.asnumpy().trace() == 6
    y = Tensor(np.array([0.5, 1.0], np.float32))
    y.exp_()
    np.testing.assert_allclose(y.asnumpy(), np.exp([0.5, 1.0]), rtol=1e-6)
    z = Tensor(np.array([5.0, -7.0], np.float32))
    z.remainder_(3.0)
    assert z.asnumpy().tolist() == [2.0, 2.0]
    w = Tensor(np.zeros((2, 3), np.float32))
    w.index_add_(1, Tensor(np.array([0, 2], np.int32)), Tensor(np.ones((2, 2), np.float32)), alpha=3)
    assert w.asnumpy().tolist() == [[3, 0, 3], [3, 0, 3]]


def test_indexed_values():
    x = Tensor(np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], np.float32))
    v, i = x.argmax_with_value(axis=1)
    assert v.asnumpy().tolist() == [5.0, 7.0] and i.asnumpy().tolist() == [1, 0]
    v, i = x.argmin_with_value(axis=0, keep_dims=True)
    assert v.asnumpy().tolist() == [[1.0, 0.0, 2.0]] and i.asnumpy().tolist() == [[0, 1, 0]]
    v, i = x.kthvalue(2, 1)
    tv, ti = torch.kthvalue(torch.from_numpy(x.asnumpy()), 2, 1)
    assert v.asnumpy().tolist() == tv.tolist() and i.asnumpy().tolist() == ti.tolist()
    with pytest.raises(ValueError, match="k must be"):
        x.kthvalue(4, 1)
    seq = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert seq.reverse_sequence(Tensor([2, 3]), seq_dim=1).asnumpy().tolist() == [[1, 0, 2], [5, 4, 3]]
