"""ops.kernel / ops.ms_kernel (MindSpore's Hybrid DSL) run as Python on numpy arrays, with the values
MindSpore 2.10 gives for the same functions; ops.Custom(func) runs a kernel function as an operator."""
import numpy as np
import pytest

from openspore import Tensor, ops
from openspore.ops import kernel, ms_kernel


@kernel
def add_mul(a, b):
    c = output_tensor(a.shape, a.dtype)  # noqa: F821  (Hybrid DSL built-ins)
    for i0 in range(a.shape[0]):
        for i1 in range(a.shape[1]):
            c[i0, i1] = a[i0, i1] + b[i0, i1] * 2.0
    return c


@ms_kernel
def row_sqrt_sum(a):
    c = output_tensor((a.shape[0],), a.dtype)  # noqa: F821
    tmp = allocate((1,), a.dtype)  # noqa: F821
    for i0 in range(a.shape[0]):
        tmp[0] = 0.0
        for i1 in reduce(a.shape[1]):  # noqa: F821
            tmp[0] = tmp[0] + sqrt(a[i0, i1]) + exp(0.0)  # noqa: F821
        c[i0] = tmp[0]
    return c


@kernel(compile_attrs={"enable_atomic_add": False})
def grid_cast(a):
    c = output_tensor(a.shape, "float16")  # noqa: F821
    for i in grid(a.shape):  # noqa: F821
        c[i] = float16(a[i]) + rsqrt(4.0) + sign(-2.0) + power(2.0, 3.0)  # noqa: F821
    return c


@kernel
def relu_plus_one(a):
    c = output_tensor(a.shape, a.dtype)  # noqa: F821
    for i in parallel(a.shape[0]):  # noqa: F821
        for j in vectorize(a.shape[1]):  # noqa: F821
            c[i, j] = max(a[i, j], 0.5) + abs(-1.0)
    return c


X = np.arange(6, dtype=np.float32).reshape(2, 3)
Y = np.ones((2, 3), np.float32)


def test_kernel_functions_run_on_numpy_as_mindspore():
    assert add_mul(X, Y).tolist() == [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]]
    np.testing.assert_allclose(row_sqrt_sum(X), [5.4142137, 8.968119], rtol=1e-6)
    out = grid_cast(np.ones((2, 2), np.float32))
    assert out.dtype == np.float16 and out.tolist() == [[8.5, 8.5], [8.5, 8.5]]
    assert grid_cast.ms_kernel_flag is True and grid_cast.compile_attrs == {"enable_atomic_add": False}
    assert relu_plus_one(np.array([[0.0, 1.0]], np.float32)).tolist() == [[1.5, 2.0]]


def test_custom_runs_a_kernel_function():
    out = ops.Custom(add_mul)(Tensor(X), Tensor(Y))
    assert isinstance(out, Tensor) and out.asnumpy().tolist() == [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]]
    with pytest.raises(ValueError, match="needs a kernel compiler"):
        ops.Custom(lambda a: a)   # a plain function is not Hybrid DSL
    with pytest.raises(TypeError, match="must be a function"):
        kernel(3)
