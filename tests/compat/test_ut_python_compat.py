"""Behaviours MindSpore's own unit tests (tests/ut/python) check: graph-mode builtin argument errors, gradients
with respect to bool inputs, and how an in-place write refuses a dtype conversion."""
import numpy as np
import pytest

import openspore as ms
from openspore import Parameter, Tensor, nn, ops
from openspore.ops import composite as C


class _EnumerateFrom(nn.Cell):
    def __init__(self, start):
        super().__init__()
        self.start = start

    def construct(self, x):
        total = 0
        for i, _ in enumerate((x, x, x), self.start):
            total += i
        return total


def test_graph_enumerate_counts_from_start(graph_mode):
    assert _EnumerateFrom(3)(Tensor(np.ones(2, np.float32))) == 3 + 4 + 5


@pytest.mark.parametrize("start", [1.5, "1", True])
def test_graph_enumerate_rejects_non_int_start(graph_mode, start):
    with pytest.raises(TypeError, match="For 'enumerate', the 'start' should be a const int number"):
        _EnumerateFrom(start)(Tensor(np.ones(2, np.float32)))


def test_graph_enumerate_rejects_non_iterable(graph_mode):
    class Net(nn.Cell):
        def construct(self, x):
            return enumerate(7)

    with pytest.raises(TypeError, match="For 'enumerate', the 'first input'"):
        Net()(Tensor(np.ones(2, np.float32)))


def test_user_function_named_enumerate_is_left_alone(graph_mode):
    def enumerate(seq, start):  # shadows the builtin: no check applies
        return ((start, v) for v in seq)

    class Net(nn.Cell):
        def construct(self, x):
            return tuple(i for i, _ in enumerate((x, x), 0.5))

    assert Net()(Tensor(np.ones(2, np.float32))) == (0.5, 0.5)


def test_grad_of_bool_input_is_cast_to_bool():
    grad_all = C.GradOperation(get_all=True, sens_param=True)
    x = Tensor(np.array([[0.5, 1.5], [2.5, 3.5]], np.float32))
    mask = Tensor(np.array([[True, False], [False, True]]))
    sens = Tensor(np.array([[2.0, 0.0], [1.0, 0.0]], np.float32))
    dx, dmask = grad_all(lambda a, b: a + b)(x, mask, sens)
    assert dx.dtype == ms.float32 and dmask.dtype == ms.bool_
    np.testing.assert_array_equal(dx.asnumpy(), sens.asnumpy())
    np.testing.assert_array_equal(dmask.asnumpy(), [[True, False], [True, False]])


def test_assign_widening_value_into_float_parameter_is_allowed():
    p = Parameter(Tensor(0.0, ms.float32), name="p", requires_grad=False)
    ops.assign(p, Tensor(3, ms.uint8))
    assert p.asnumpy() == 3.0 and p.dtype == ms.float32


def test_assign_refusing_conversion_names_parameter():
    with pytest.raises(TypeError, match="data type conversion of 'Parameter' is not supported") as err:
        ops.assign(Tensor(2, ms.int8), Tensor(3, ms.uint8))
    assert "int16" in str(err.value).lower()


def test_graph_unknown_name_error_is_worded_as_mindspore(graph_mode):
    class Net(nn.Cell):
        def construct(self, x):
            return x + undefined_here  # noqa: F821

    with pytest.raises(NameError, match="The name 'undefined_here' is not defined") as err:
        Net()(Tensor(np.ones(2, np.float32)))
    assert err.value.name == "undefined_here"
