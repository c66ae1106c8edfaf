"""Primitives: dense linear algebra on the last two axes (batched): MatrixInverse, Cholesky.

Cholesky reads only the lower triangle of its input (as LAPACK does), so its gradient is the gradient with
respect to those entries: the symmetric cotangent folded onto the lower triangle.
"""
import numpy as np

from ...core.primitive import Primitive, Sample, register
from ._util import check_dtype, check_tensor, prim, same_as


def _swap_last(x):
    perm = tuple(range(len(x.shape) - 2)) + (len(x.shape) - 1, len(x.shape) - 2)
    return prim("Transpose")(x, perm)


def _matmul(a, b, transpose_a=False, transpose_b=False):
    return prim("BatchMatMul", transpose_a=transpose_a, transpose_b=transpose_b)(a, b)


def _check_square(op, x):
    check_tensor(op, "x", x)
    check_dtype(op, "x", x, ("float",))
    if len(x.shape) < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"For '{op}', the input must be a (batch of) square matrices, but got shape {list(x.shape)}.")


def _well_conditioned(rng, shape):
    """Random matrices comfortably away from singular: noise plus a dominant diagonal."""
    n = shape[-1]
    return (rng.uniform(-0.5, 0.5, size=shape) + 2.0 * np.eye(n)).astype(np.float32)


def _spd(rng, shape):
    """Random symmetric positive definite matrices."""
    m = rng.uniform(-1.0, 1.0, size=shape)
    n = shape[-1]
    return (m @ np.swapaxes(m, -1, -2) + n * np.eye(n)).astype(np.float32)


@register
class MatrixInverse(Primitive):
    """MatrixInverse(adjoint=False)(x): the inverse of each square matrix (of its conjugate transpose when adjoint)."""
    attr_defaults = {"adjoint": False}
    input_names = ("x",)

    def infer(self, x):
        _check_square(self.name, x)
        return same_as(x)

    def numpy(self, np, x):
        out = np.linalg.inv(x)
        return (np.swapaxes(out, -1, -2) if self.adjoint else out).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        out = torch.linalg.inv(x)
        return out.transpose(-1, -2) if self.adjoint else out

    def bprop(self, x, out, dout):
        # d(A⁻¹) = −A⁻¹ dA A⁻¹  ⇒  Ā = −A⁻ᵀ B̄ A⁻ᵀ with B̄ the cotangent of A⁻¹ (Ȳᵀ for the adjoint form)
        inv = _swap_last(out) if self.adjoint else out
        g = dout if not self.adjoint else _swap_last(dout)
        return (prim("Neg")(_matmul(_matmul(inv, g, transpose_a=True), inv, transpose_b=True)),)

    @classmethod
    def samples(cls, rng):
        yield Sample(_well_conditioned(rng, (3, 3)), rtol=1e-4, atol=1e-5)
        yield Sample(_well_conditioned(rng, (2, 2, 2)).astype(np.float64), name="batched64")
        yield Sample(_well_conditioned(rng, (3, 3)), attrs={"adjoint": True}, rtol=1e-4, atol=1e-5, name="adjoint")


@register
class Cholesky(Primitive):
    """Cholesky(upper=False)(x): the triangular factor of each symmetric positive definite matrix (lower L with
    x = L Lᵀ, or upper U = Lᵀ); only the lower triangle of x is read."""
    attr_defaults = {"upper": False}
    input_names = ("input_x",)

    def infer(self, x):
        _check_square(self.name, x)
        return same_as(x)

    def numpy(self, np, x):
        lower = np.tril(x)
        sym = lower + np.swapaxes(np.tril(x, -1), -1, -2)
        out = np.linalg.cholesky(sym)
        return (np.swapaxes(out, -1, -2) if self.upper else out).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        out = torch.linalg.cholesky(x)  # reads the lower triangle
        return out.transpose(-1, -2) if self.upper else out

    def bprop(self, x, out, dout):
        # For x = L Lᵀ: Φ(Lᵀ L̄) with Φ = lower triangle, diagonal halved; S = L⁻ᵀ Φ L⁻¹ symmetrised is the
        # gradient for a symmetric x; folding it onto the lower triangle gives 2·tril(S) − diag(S).
        lower = _swap_last(out) if self.upper else out
        bar = _swap_last(dout) if self.upper else dout
        phi = prim("Tril")(_matmul(lower, bar, transpose_a=True))
        phi = prim("Sub")(phi, prim("Mul")(_diag_part_as_matrix(phi), 0.5))
        inv = prim("MatrixInverse")(lower)
        s = _matmul(_matmul(inv, phi, transpose_a=True), inv)
        sym = prim("Mul")(prim("Add")(s, _swap_last(s)), 0.5)
        folded = prim("Sub")(prim("Mul")(prim("Tril")(sym), 2.0), _diag_part_as_matrix(sym))
        return (folded,)

    @classmethod
    def samples(cls, rng):
        yield Sample(_spd(rng, (3, 3)), rtol=1e-4, atol=1e-5)
        yield Sample(_spd(rng, (2, 3, 3)).astype(np.float64), name="batched64")
        yield Sample(_spd(rng, (2, 2)), attrs={"upper": True}, rtol=1e-4, atol=1e-5, name="upper")


def _diag_part_as_matrix(x):
    """x with everything off the diagonal zeroed (tril ∘ triu)."""
    return prim("Triu")(prim("Tril")(x))
