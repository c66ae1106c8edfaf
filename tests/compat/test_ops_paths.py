"""ops.composite / ops.primitive / ops.functional paths and their MindSpore names."""
import pytest

import openspore as ms
from openspore import ops
from openspore.ops import composite as C
from openspore.ops import functional as F_
from openspore.ops.primitive import Primitive, constexpr, prim_attr_register


def test_multitype_func_graph_dispatches_on_type_names():
    f = C.MultitypeFuncGraph("f")

    @f.register("Tensor", "Number")
    def _(x, y):
        return "tensor-number"

    @f.register("Number", "Number")
    def _(x, y):
        return "number-number"

    assert f(ms.Tensor([1.0]), 2) == "tensor-number" and f(1, 2.5) == "number-number"
    # MindSpore 2.10: no match is a ValueError, an unknown type name a RuntimeError.
    with pytest.raises(ValueError, match="cannot find fn match"):
        f("a", 1)
    with pytest.raises(RuntimeError, match="Unsupported type name: Matrix"):
        f.register("Matrix")


def test_hyper_map_is_recursive_and_map_is_not():
    assert C.HyperMap()(lambda a, b: a + b, ((1, 2), [3]), ((10, 20), [30])) == ((11, 22), [33])
    assert C.HyperMap(lambda a: a * 2)((1, (2, 3))) == (2, (4, 6))
    assert C.Map()(lambda a: len(a), ((1, 2), (3,))) == (2, 1)
    with pytest.raises(ValueError, match="same structure"):
        C.HyperMap()(lambda a, b: a, (1, 2), (1,))
    seen = []
    C.HyperMap(lambda a: seen.append(a), reverse=True)((1, 2, 3))
    assert seen == [3, 2, 1]


def test_composite_and_functional_names():
    assert C.GradOperation is ms.ops.GradOperation and C.tensor_dot is ops.tensor_dot
    assert C.zip_operation((1, 2), (3, 4)) == ((1, 3), (2, 4))
    assert F_.hypot is ops.hypot and F_.vmap is ops.vmap
    f = C.add_flags(lambda: 1, has_effect=True)
    assert f._flags == {"has_effect": True}


def test_primitive_module():
    assert Primitive is ops.Primitive and ops.constexpr is constexpr
    assert constexpr(lambda n: n + 1)(2) == 3

    class Scale:
        @prim_attr_register
        def __init__(self, factor=2.0, axis=0):
            self.attrs = getattr(self, "attrs", {})

    s = Scale(3.0)
    assert s.factor == 3.0 and s.axis == 0
