"""mindspore.numpy.fft (NumPy's names and argument spellings over ops.fft*) against numpy.fft, and
mindspore.scipy.fft (the orthonormal DCT-II and its inverse) against scipy.fft and values from MindSpore 2.10."""
import numpy as np
import pytest
import scipy.fft
import torch

import openspore as ms
import openspore.numpy as mnp
from openspore import nn
from openspore.scipy import fft as sfft

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 4, 6)).astype(np.float32)
C = (X + 1j * RNG.standard_normal((3, 4, 6))).astype(np.complex64)


def _torch(name, **kw):
    return lambda a: getattr(torch.fft, name)(torch.from_numpy(a), **kw).numpy()


NUMPY_FFT = [  # (name, input, kwargs in numpy's spelling, reference)
    ("fft", C, {"n": 5, "axis": 1, "norm": "ortho"}, lambda a: np.fft.fft(a, 5, 1, "ortho")),
    ("ifft", X, {}, np.fft.ifft),
    ("rfft", X, {"n": 4, "norm": "forward"}, lambda a: np.fft.rfft(a, 4, -1, "forward")),
    ("irfft", C, {"axis": 0}, lambda a: np.fft.irfft(a, axis=0)),
    ("hfft", C, {"n": 7}, lambda a: np.fft.hfft(a, 7)),
    ("ihfft", X, {"norm": "ortho"}, lambda a: np.fft.ihfft(a, norm="ortho")),
    ("fft2", X, {"s": (2, 8)}, lambda a: np.fft.fft2(a, (2, 8))),
    ("ifft2", C, {"axes": (0, 2)}, lambda a: np.fft.ifft2(a, axes=(0, 2))),
    ("rfft2", X, {}, np.fft.rfft2),
    ("irfft2", C, {"s": (4, 9)}, lambda a: np.fft.irfft2(a, (4, 9))),
    ("hfft2", C, {"norm": "ortho"}, _torch("hfft2", norm="ortho")),
    ("ihfft2", X, {"s": (3, 5), "axes": (0, 2)}, _torch("ihfft2", s=(3, 5), dim=(0, 2))),
    ("fftn", X, {"s": (2, 3)}, lambda a: np.fft.fftn(a, (2, 3), (-2, -1))),
    ("ifftn", C, {"norm": "forward"}, lambda a: np.fft.ifftn(a, norm="forward")),
    ("rfftn", X, {"axes": (0, 1)}, lambda a: np.fft.rfftn(a, axes=(0, 1))),
    ("irfftn", C, {}, np.fft.irfftn),
    ("hfftn", C, {"s": (5, 7)}, _torch("hfftn", s=(5, 7))),
    ("ihfftn", X, {"norm": "forward"}, _torch("ihfftn", norm="forward")),
    ("fftshift", X, {"axes": (0, 2)}, lambda a: np.fft.fftshift(a, (0, 2))),
    ("ifftshift", X, {}, np.fft.ifftshift),
]


@pytest.mark.parametrize("name,x,kwargs,ref", NUMPY_FFT, ids=[c[0] for c in NUMPY_FFT])
def test_numpy_fft_matches_numpy(name, x, kwargs, ref):
    out = getattr(mnp.fft, name)(ms.Tensor(x), **kwargs).asnumpy()
    want = ref(x)
    assert out.shape == want.shape
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def test_numpy_fft_frequencies_and_names():
    np.testing.assert_allclose(mnp.fft.fftfreq(7, 0.5).asnumpy(), np.fft.fftfreq(7, 0.5), rtol=1e-6)
    np.testing.assert_allclose(mnp.fft.rfftfreq(8).asnumpy(), np.fft.rfftfreq(8), rtol=1e-6)
    assert mnp.fft.fftfreq(4, dtype=ms.float64).dtype == ms.float64


def test_numpy_fft_inside_graph_mode():
    class Net(nn.Cell):
        def construct(self, x):
            return mnp.fft.irfft(mnp.fft.rfft(x, axis=1), n=4, axis=1)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = Net()(ms.Tensor(X)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out, X, atol=1e-5)


# Outputs of mindspore.scipy.fft in MindSpore 2.10 (CPU) for A below.
A = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]], np.float32)
MS_2_10 = {
    ("dct", ()): [[3.464101791381836, -1.4142136573791504, -5.960464477539063e-08],
                  [2.020725965499878, -3.535533905029297, 0.8164964914321899]],
    ("dct", (("n", 5),)): [[2.683281421661377, 1.3449970483779907, -1.776578426361084, -0.8312540054321289,
                            1.0694714784622192],
                           [1.565247654914856, -0.4156268835067749, -3.1392087936401367, -0.6724985837936401,
                            2.078549385070801]],
    ("dct", (("axis", 0),)): [[0.0, 1.7677669525146484, 4.949747562408447],
                              [1.4142135381698608, 1.0606601238250732, -0.7071067690849304]],
    ("idct", ()): [[3.216308832168579, -1.8721394538879395, 0.3878815770149231],
                   [1.4091962575912476, -3.843336582183838, 0.7020894289016724]],
    ("idct", (("n", 2),)): [[2.1213202476501465, -0.7071067690849304], [-0.3535533845424652, -1.0606601238250732]],
    ("dctn", ()): [[3.878359079360962, -3.499999761581421, 0.5773499011993408],
                   [1.0206207036972046, 1.4999998807907104, -0.5773502588272095]],
    ("idctn", ()): [[3.270725727081299, -4.041451454162598, 0.7707259654998779],
                    [1.2778213024139404, 1.393846869468689, -0.22217857837677002]],
}


@pytest.mark.parametrize("name,kwargs", list(MS_2_10), ids=[f"{n}-{dict(k)}" for n, k in MS_2_10])
def test_scipy_dct_matches_mindspore_and_scipy(name, kwargs):
    out = getattr(sfft, name)(ms.Tensor(A), **dict(kwargs))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), MS_2_10[(name, kwargs)], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), getattr(scipy.fft, name)(A.astype(np.float64), norm="ortho",
                                                                         **dict(kwargs)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["dctn", "idctn"])
def test_scipy_dctn_sizes_axes_dtypes_against_scipy(name):
    x = RNG.standard_normal((3, 4, 5))
    for kwargs in ({"s": (2, 6)}, {"axes": (0, 2)}, {"s": (4, 3), "axes": (2, 0)}, {"axes": 1}):
        out = getattr(sfft, name)(ms.Tensor(x), **kwargs)
        assert out.dtype == ms.float64
        np.testing.assert_allclose(out.asnumpy(), getattr(scipy.fft, name)(x, norm="ortho", **kwargs),
                                   rtol=1e-10, atol=1e-12, err_msg=str(kwargs))
    c = (x + 1j * RNG.standard_normal(x.shape)).astype(np.complex64)
    np.testing.assert_allclose(getattr(sfft, name)(ms.Tensor(c), axes=(1, 2)).asnumpy(),
                               getattr(scipy.fft, name)(c, norm="ortho", axes=(1, 2)), rtol=1e-4, atol=1e-5)
    ints = getattr(sfft, name)(ms.Tensor(np.arange(6, dtype=np.int32).reshape(2, 3)))
    assert ints.dtype == ms.float32


def test_scipy_dct_inverse_round_trip_gradient_and_graph_mode():
    x = RNG.standard_normal((2, 7))
    back = sfft.idct(sfft.dct(ms.Tensor(x), axis=0), axis=0).asnumpy()
    np.testing.assert_allclose(back, x, atol=1e-12)
    # the transform is orthogonal: the gradient of sum(dct(x) * w) is idct(w)
    w = RNG.standard_normal((2, 7))
    grad = ms.grad(lambda t: (sfft.dct(t) * ms.Tensor(w)).sum())(ms.Tensor(x))
    np.testing.assert_allclose(grad.asnumpy(), scipy.fft.idct(w, norm="ortho"), atol=1e-12)

    class Net(nn.Cell):
        def construct(self, t):
            return sfft.dctn(t, s=(3, 5))

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = Net()(ms.Tensor(A)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out, scipy.fft.dctn(A.astype(np.float64), s=(3, 5), norm="ortho"), rtol=1e-5,
                               atol=1e-6)


def test_scipy_dct_refuses_what_mindspore_refuses():
    with pytest.raises(ValueError, match="only dct type II"):
        sfft.dct(ms.Tensor(A), type=1)
    with pytest.raises(ValueError, match="only norm 'ortho'"):
        sfft.idct(ms.Tensor(A), norm="forward")
    with pytest.raises(ValueError, match="length must be an int >= 1"):
        sfft.dct(ms.Tensor(A), n=0)
    with pytest.raises(ValueError, match=r"axis must be an int in \[-2, 2\)"):
        sfft.dct(ms.Tensor(A), axis=2)
    with pytest.raises(ValueError, match="same length"):
        sfft.dctn(ms.Tensor(A), s=(2,), axes=(0, 1))
    with pytest.raises(TypeError, match="must be a Tensor"):
        sfft.dct(A)
