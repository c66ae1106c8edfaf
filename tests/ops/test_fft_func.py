"""ops.fft family against numpy.fft (and torch.fft for the n-D Hermitian transforms numpy lacks), on both
backends (the `backend` fixture); the reference values for hfftn/ihfft2 with sizes and norms were also matched against MindSpore 2.10."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import ops

RNG = np.random.default_rng(3)
X = RNG.standard_normal((3, 4, 6)).astype(np.float32)
C = (X + 1j * RNG.standard_normal((3, 4, 6))).astype(np.complex64)

CASES = [  # (function, input, kwargs, reference)
    ("fft", C, {"n": 5, "dim": 1, "norm": "ortho"}, lambda a: np.fft.fft(a, 5, 1, "ortho")),
    ("ifft", X, {}, lambda a: np.fft.ifft(a)),
    ("rfft", X, {"n": 4, "norm": "forward"}, lambda a: np.fft.rfft(a, 4, -1, "forward")),
    ("irfft", C, {"dim": 0}, lambda a: np.fft.irfft(a, axis=0)),
    ("hfft", C, {"n": 7}, lambda a: np.fft.hfft(a, 7)),
    ("ihfft", X, {"norm": "ortho"}, lambda a: np.fft.ihfft(a, norm="ortho")),
    ("fft2", X, {"s": (2, 8)}, lambda a: np.fft.fft2(a, (2, 8))),
    ("ifft2", C, {"dim": (0, 2)}, lambda a: np.fft.ifft2(a, axes=(0, 2))),
    ("rfft2", X, {}, lambda a: np.fft.rfft2(a)),
    ("irfft2", C, {"s": (4, 9)}, lambda a: np.fft.irfft2(a, (4, 9))),
    ("fftn", X, {"s": (2, 3)}, lambda a: np.fft.fftn(a, (2, 3), (-2, -1))),
    ("ifftn", C, {"norm": "forward"}, lambda a: np.fft.ifftn(a, norm="forward")),
    ("rfftn", X, {"dim": (0, 1)}, lambda a: np.fft.rfftn(a, axes=(0, 1))),
    ("irfftn", C, {}, lambda a: np.fft.irfftn(a)),
    ("hfft2", C, {"norm": "ortho"}, lambda a: torch.fft.hfft2(torch.from_numpy(a), norm="ortho").numpy()),
    ("ihfft2", X, {"s": (3, 5), "dim": (0, 2)},
     lambda a: torch.fft.ihfft2(torch.from_numpy(a), s=(3, 5), dim=(0, 2)).numpy()),
    ("hfftn", C, {"s": (5, 7), "norm": "ortho"},
     lambda a: torch.fft.hfftn(torch.from_numpy(a), s=(5, 7), norm="ortho").numpy()),
    ("ihfftn", X, {"norm": "forward"}, lambda a: torch.fft.ihfftn(torch.from_numpy(a), norm="forward").numpy()),
]


@pytest.mark.parametrize("name,x,kwargs,ref", CASES, ids=[c[0] + "-" + str(i) for i, c in enumerate(CASES)])
def test_matches_reference(backend, name, x, kwargs, ref):
    out = getattr(ops, name)(ms.Tensor(x), **kwargs).asnumpy()
    want = ref(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))
    assert out.shape == want.shape
    assert out.dtype == (np.complex64 if np.iscomplexobj(want) else np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def test_dtypes_follow_the_input_width():
    assert ops.fft(ms.Tensor(np.arange(4, dtype=np.int32))).dtype == ms.complex64
    assert ops.rfft(ms.Tensor(np.arange(4, dtype=np.float64))).dtype == ms.complex128
    assert ops.irfft(ms.Tensor(C.astype(np.complex128))).dtype == ms.float64


def test_round_trips():
    x = ms.Tensor(X)
    np.testing.assert_allclose(ops.ifftn(ops.fftn(x)).asnumpy().real, X, atol=1e-5)
    np.testing.assert_allclose(ops.irfft2(ops.rfft2(x), s=(4, 6)).asnumpy(), X, atol=1e-5)
    np.testing.assert_allclose(ops.hfft(ops.ihfft(x), n=6).asnumpy(), X, atol=1e-5)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="norm"):
        ops.fft(ms.Tensor(X), norm="bogus")
    with pytest.raises(TypeError, match="Complex64"):
        ops.rfft(ms.Tensor(C))
    with pytest.raises(ValueError, match="same length"):
        ops.fftn(ms.Tensor(X), s=(2, 3), dim=(0,))
    with pytest.raises(ValueError, match="repeat"):
        ops.fft2(ms.Tensor(X), dim=(1, 1))
    with pytest.raises(TypeError, match="'dim'"):
        ops.fftn(ms.Tensor(X), dim=1.5)


def test_gradient_raises_clearly():
    with pytest.raises(NotImplementedError, match="gradient"):
        ms.grad(lambda a: ops.fft(a))(ms.Tensor(X))


def test_fft_with_size_class():
    c = C[..., :4]
    cases = [((2, False, False), C, np.fft.fft2(C)),
             ((1, True, False), C, np.fft.ifft(C)),
             ((2, False, True), X, np.fft.rfft2(X)),
             ((2, False, True, "ortho", False), X, np.fft.fft2(X, norm="ortho")),
             ((2, True, True, "backward", True, (4, 6)), c, np.fft.irfft2(c, (4, 6))),
             ((1, True, True), c, np.fft.irfft(c))]
    for args, x, want in cases:  # the same values MindSpore 2.10 gives for these arguments
        got = ops.FFTWithSize(*args)(ms.Tensor(x)).asnumpy()
        assert got.shape == want.shape, args
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
