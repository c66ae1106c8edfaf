"""ops.PrimitiveWithInfer / PrimitiveWithCheck: user primitives in Python over registered kernels."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, ops
from openspore.ops import PrimitiveWithCheck, PrimitiveWithInfer, prim_attr_register


class MyReduceSum(PrimitiveWithInfer):
    @prim_attr_register
    def __init__(self, keep_dims=False):
        super().__init__("ReduceSum")
        self.init_prim_io_names(inputs=["x", "axis"], outputs=["y"])
        self.calls = []

    def infer_shape(self, x, axis):
        self.calls.append(("shape", x, axis))
        return None

    def infer_dtype(self, x, axis):
        self.calls.append(("dtype", x, axis))
        return x


def test_infer_runs_then_the_named_kernel_with_the_recorded_attributes():
    op = MyReduceSum(keep_dims=True)
    assert op.attrs["keep_dims"] is True and op.attrs["input_names"] == ["x", "axis"]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = op(Tensor(x), 1)
    np.testing.assert_array_equal(out.asnumpy(), x.sum(1, keepdims=True))
    assert op.calls == [("dtype", ms.float32, int), ("shape", (2, 3), None)]


def test_infer_value_folds_constants():
    class Twice(PrimitiveWithInfer):
        def __init__(self):
            super().__init__("Twice")

        def infer_value(self, x):
            return 2 * x

    assert Twice()(21) == 42
    with pytest.raises(RuntimeError, match="no kernel registered"):
        Twice()(Tensor([1.0]))


def test_wrong_infer_shape_is_reported():
    class BadAdd(PrimitiveWithInfer):
        def __init__(self):
            super().__init__("Add")

        def infer_shape(self, x, y):
            return (7,)

    with pytest.raises(ValueError, match="infer_shape gave"):
        BadAdd()(Tensor([1.0, 2.0]), Tensor([1.0, 2.0]))


def test_primitive_with_check():
    class Mul(PrimitiveWithCheck):
        def __init__(self):
            super().__init__("Mul")

        def check_shape(self, x, y):
            if x != y:
                raise ValueError(f"shapes differ: {x} {y}")

    x = Tensor(np.ones(3, np.float32))
    np.testing.assert_array_equal(Mul()(x, x * 3).asnumpy(), [3.0, 3.0, 3.0])
    with pytest.raises(ValueError, match="shapes differ"):
        Mul()(x, Tensor(np.ones(2, np.float32)))
    assert ops.primitive.PrimitiveWithCheck is PrimitiveWithCheck
