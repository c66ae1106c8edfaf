"""Complex numbers: Complex/Real/Imag/Conj/ComplexAbs/Angle primitives and real/imag/conj/angle/polar/view_as_real,
against numpy on both backends (the `backend` fixture); gradients through complex intermediates against
closed forms (the same values MindSpore 2.10 gives)."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops

A = np.array([3.0, 1.0, -0.5], np.float32)
B = np.array([4.0, -2.0, 0.25], np.float32)
Z = (A + 1j * B).astype(np.complex64)


def test_parts_match_numpy(backend):
    z = ops.Complex()(ms.Tensor(A), ms.Tensor(B))
    assert z.dtype == ms.complex64
    np.testing.assert_array_equal(z.asnumpy(), Z)
    np.testing.assert_array_equal(ops.real(z).asnumpy(), A)
    np.testing.assert_array_equal(ops.imag(z).asnumpy(), B)
    np.testing.assert_array_equal(ops.conj(z).asnumpy(), np.conj(Z))
    np.testing.assert_allclose(ops.ComplexAbs()(z).asnumpy(), np.abs(Z), rtol=1e-6)
    np.testing.assert_allclose(ops.angle(z).asnumpy(), np.angle(Z), rtol=1e-6)
    np.testing.assert_array_equal(ops.view_as_real(z).asnumpy(), np.stack([A, B], -1))


def test_real_inputs_follow_mindspore(backend):
    x = ms.Tensor(A)
    np.testing.assert_array_equal(ops.real(x).asnumpy(), A)
    np.testing.assert_array_equal(ops.imag(x).asnumpy(), np.zeros_like(A))
    np.testing.assert_array_equal(ops.conj(x).asnumpy(), A)
    with pytest.raises(TypeError, match="Float32"):
        ops.angle(x)
    with pytest.raises(TypeError, match="complex"):
        ops.view_as_real(x)


def test_polar_and_widths(backend):
    r, t = np.array([2.0, 0.5]), np.array([0.5, -2.0])
    z = ops.polar(ms.Tensor(r), ms.Tensor(t))
    assert z.dtype == ms.complex128
    np.testing.assert_allclose(z.asnumpy(), r * np.exp(1j * t), rtol=1e-12)
    np.testing.assert_allclose(ops.Polar()(ms.Tensor(r.astype(np.float32)), ms.Tensor(t.astype(np.float32)))
                               .asnumpy(), r * np.exp(1j * t), rtol=1e-6)
    with pytest.raises(TypeError, match="same"):
        ops.Complex()(ms.Tensor(A), ms.Tensor(B.astype(np.float64)))


def test_gradients_through_complex_values():
    a, b = ms.Tensor(A), ms.Tensor(B)
    r2 = A * A + B * B
    da, db = ms.grad(lambda a, b: ops.ComplexAbs()(ops.Complex()(a, b)).sum(), (0, 1))(a, b)
    np.testing.assert_allclose(da.asnumpy(), A / np.sqrt(r2), rtol=1e-6)
    np.testing.assert_allclose(db.asnumpy(), B / np.sqrt(r2), rtol=1e-6)
    da, db = ms.grad(lambda a, b: ops.angle(ops.conj(ops.Complex()(a, b))).sum(), (0, 1))(a, b)
    np.testing.assert_allclose(da.asnumpy(), B / r2, rtol=1e-6)
    np.testing.assert_allclose(db.asnumpy(), -A / r2, rtol=1e-6)
    dr, dt = ms.grad(lambda r, t: ops.imag(ops.polar(r, t)).sum(), (0, 1))(a, b)
    np.testing.assert_allclose(dr.asnumpy(), np.sin(B), rtol=1e-6)
    np.testing.assert_allclose(dt.asnumpy(), A * np.cos(B), rtol=1e-6)
    dv = ms.grad(lambda a: (ops.view_as_real(ops.Complex()(a, a)) * 2).sum())(a)
    np.testing.assert_allclose(dv.asnumpy(), np.full(3, 4.0), rtol=1e-6)
