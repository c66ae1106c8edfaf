"""Errors name the op, what it received (shapes, dtypes) and the user's source line (facts §3.4)."""
import inspect

import numpy as np
import pytest

import openspore as ms
from openspore import ops
from openspore.core.autograd import custom_bprop_call

HERE = __file__


def ones(*shape, dtype=np.float32):
    return ms.Tensor(np.ones(shape, dtype))


def next_line():
    """The line number just after the caller's line (where the failing call sits)."""
    return inspect.currentframe().f_back.f_lineno + 1


def assert_located(exc_info, line):
    msg = str(exc_info.value)
    assert f"In file {HERE}:{line}" in msg, msg
    assert msg.count("In file ") == 1, msg
    return msg


@pytest.mark.parametrize("call", ["functional", "primitive", "operator"])
def test_matmul_shape_mismatch(backend, call):
    a, b = ones(3, 5), ones(4, 2)
    # ops.matmul and `@` are MindSpore's MatMulExt (RuntimeError, facts §3.4); the MatMul primitive raises ValueError
    with pytest.raises(ValueError if call == "primitive" else RuntimeError) as info:
        if call == "functional":
            line = next_line()
            ops.matmul(a, b)
        elif call == "primitive":
            line = next_line()
            ops.MatMul()(a, b)
        else:
            line = next_line()
            a @ b
    msg = assert_located(info, line)
    if call == "primitive":
        assert msg.startswith("For 'MatMul' the input dimensions must be equal, but got 'x1_col': 5 and 'x2_row': 4.")
    else:
        assert msg.startswith("For 'MatMulExt' op, shape1[-1] must be equal to shape2[-2], but got 5 and 4")
    assert "[3, 5]" in msg and "[4, 2]" in msg
    assert "ops.matmul(a, b)" in msg or "ops.MatMul()(a, b)" in msg or "a @ b" in msg  # the source text


def test_matmul_transpose_mismatch_names_the_shapes():
    with pytest.raises(ValueError) as info:
        line = next_line()
        ops.MatMul(transpose_b=True)(ones(2, 3), ones(3, 2))
    msg = assert_located(info, line)
    assert "'MatMul'" in msg and "[2, 3]" in msg and "[3, 2]" in msg


@pytest.mark.parametrize("op", ["Add", "Mul", "Sub"])
def test_broadcast_mismatch(backend, op):
    a, b = ones(2, 3), ones(4, 3)
    fn = {"Add": lambda: a + b, "Mul": lambda: a * b, "Sub": lambda: ops.sub(a, b)}[op]
    with pytest.raises(ValueError) as info:
        fn()
    msg = str(info.value)
    assert f"For '{op}'" in msg and "[2, 3]" in msg and "[4, 3]" in msg
    assert f"In file {HERE}:" in msg


def test_broadcast_mismatch_points_at_the_line():
    a, b = ones(2, 3), ones(4, 3)
    with pytest.raises(ValueError) as info:
        line = next_line()
        ops.add(a, b)
    msg = assert_located(info, line)
    assert "For 'Add'" in msg and "[2, 3]" in msg and "[4, 3]" in msg


def _helper(x, y):
    return x * y  # the innermost user line is reported


def test_location_is_the_innermost_user_frame():
    line = inspect.getsourcelines(_helper)[1] + 1
    with pytest.raises(ValueError) as info:
        _helper(ones(2), ones(3))
    assert_located(info, line)


def test_error_inside_a_grad_transform_points_into_the_function():
    def loss(x):
        y = x * 2
        return ops.matmul(y, ones(5, 1)).sum()
    line = inspect.getsourcelines(loss)[1] + 2
    with pytest.raises(RuntimeError) as info:  # ops.matmul is MindSpore's MatMulExt: RuntimeError
        ms.grad(loss)(ones(2, 3))
    assert_located(info, line)


def test_error_in_a_backward_rule_is_located_once():
    def bprop(x, out, dout):
        return (dout + ones(7),)  # wrong shape on purpose
    with pytest.raises(ValueError) as info:
        ms.grad(lambda t: custom_bprop_call(lambda a: a * 2, bprop, (t,)).sum())(ones(3))
    msg = str(info.value)
    assert "In the backward rule" in msg and "For 'Add'" in msg
    assert msg.count("In file ") == 1


def test_matmul_dtype_mismatch_is_a_type_error():
    with pytest.raises(TypeError) as info:
        ops.matmul(ones(2, 2, dtype=np.int32), ones(2, 2))
    assert str(info.value).startswith(
        "For 'MatMul', the type of 'x2' should be same as 'x1', but got 'x1' with type Tensor[Int32] and 'x2' "
        "with type Tensor[Float32].")


def test_bad_operand_type():
    with pytest.raises(TypeError) as info:
        line = next_line()
        ones(2) + "a"
    msg = assert_located(info, line)
    assert "For 'Add'" in msg and "str" in msg


def test_reshape_error_names_the_op_and_the_input():
    with pytest.raises(ValueError) as info:
        ops.reshape(ones(2, 3), (4,))
    msg = str(info.value)
    assert "'Reshape'" in msg and "[2, 3]" in msg


def test_primitive_attribute_errors():
    with pytest.raises(TypeError, match="unexpected attribute 'transpose_c'"):
        ops.MatMul(transpose_c=True)
    with pytest.raises(TypeError, match="at most 2 positional"):
        ops.MatMul(True, False, True)


def test_assign_errors():
    w = ms.Parameter(ones(2, 2), name="w")
    with pytest.raises(ValueError) as info:
        ops.assign(w, ones(3))
    assert "'Assign'" in str(info.value) and "[3]" in str(info.value) and "[2, 2]" in str(info.value)
    with pytest.raises(TypeError, match="'Assign'.*Float64"):
        ops.assign(w, ones(2, 2, dtype=np.float64))
    with pytest.raises(TypeError, match="'AssignAdd'.*variable"):
        ops.assign_add(np.ones(2), ones(2))
    assert w.tolist() == [[1.0, 1.0], [1.0, 1.0]]  # nothing was written
