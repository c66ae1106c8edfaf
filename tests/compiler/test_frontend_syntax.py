"""The graph subset of Python: what is rejected (with the user's file:line and the reason), and how the rewrite
keeps Python semantics (closures, globals, defaults, decorators, super(), private names)."""
import functools

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.compiler.frontend import GraphCaptureError, GraphSyntaxError, convert, trace
from openspore.compiler.frontend.ast_transform import rewritten_source
from openspore.ir.interpret import run_graph
from tests.conftest import assert_close

SCALE = 3.0


def T(*values):
    return ms.Tensor(np.array(values, np.float32))


def _line_of(fn, text):
    """Absolute line number of the first source line of fn containing `text`."""
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _expect_syntax(fn, kind, marker):
    with pytest.raises(GraphSyntaxError) as info:
        trace(fn, (T(1., 2.),))
    message = str(info.value)
    assert message.startswith(f"{__file__}:{_line_of(fn, marker)}: Unsupported {kind}."), message
    return message


def test_try_is_rejected():
    def f(x):
        try:  # marker
            return x * 2
        except ValueError:
            return x

    assert "Exceptions can not be caught" in _expect_syntax(f, "statement 'Try'", "# marker")


def test_yield_is_rejected():
    def f(x):
        yield x  # marker

    _expect_syntax(f, "expression 'Yield'", "# marker")


def test_global_nonlocal_and_del_are_rejected():
    def global_(x):
        global SCALE  # marker
        SCALE = 2.0
        return x

    def nonlocal_(x):
        y = x

        def inner():
            nonlocal y  # marker
            y = y * 2
        inner()
        return y

    def del_(x):
        y = x * 2
        if x.sum() > 0:
            del y  # marker
        return x

    _expect_syntax(global_, "statement 'Global'", "# marker")
    _expect_syntax(nonlocal_, "statement 'Nonlocal'", "# marker")
    _expect_syntax(del_, "statement 'Delete' of a local variable", "# marker")


def test_syntax_errors_in_called_helpers_name_the_helper():
    def helper(v):
        try:  # marker
            return v
        finally:
            pass

    def f(x):
        return helper(x) + 1

    with pytest.raises(GraphSyntaxError) as info:
        trace(f, (T(1., 2.),))
    assert str(info.value).startswith(f"{__file__}:{_line_of(helper, '# marker')}: Unsupported statement 'Try'.")


def test_tensor_in_python_only_positions():
    def rng(x):
        n = x.sum()
        return [i for i in range(n)]  # marker

    def conv(x):
        return int(x.max()) + 1  # marker

    for fn in (rng, conv):
        with pytest.raises(GraphCaptureError) as info:
            trace(fn, (T(1., 2.),))
        assert f"{__file__}:{_line_of(fn, '# marker')}:" in str(info.value)


def test_mismatched_branch_shapes():
    def f(x):
        if x.sum() > 0:  # marker
            y = x
        else:
            y = ops.concat((x, x))
        return y

    with pytest.raises(GraphCaptureError) as info:
        trace(f, (T(1., 2.),))
    message = str(info.value)
    assert message.startswith(f"{__file__}:{_line_of(f, '# marker')}: the variable 'y' is a Tensor[Float32] of "
                              "shape [2] in the then-branch but a Tensor[Float32] of shape [4] in the else-branch")


def test_branches_disagreeing_on_python_values_or_kinds():
    def text(x):
        if x.sum() > 0:
            mode = "a"
        else:
            mode = "b"
        return x, mode

    def kind(x):
        if x.sum() > 0:
            y = None
        else:
            y = x
        return y

    with pytest.raises(GraphCaptureError, match="'mode' is the Python value 'a' in the then-branch but 'b'"):
        trace(text, (T(1., 2.),))
    with pytest.raises(GraphCaptureError, match="'y' is a NoneType in the then-branch but a Tensor in the else-branch"):
        trace(kind, (T(1., 2.),))


def test_variable_defined_in_one_branch_fails_only_when_used():
    def unused(x):
        if x.sum() > 0:
            tmp = x * 2
            x = tmp + 1
        return x

    def used(x):
        if x.sum() > 0:  # marker
            z = x * 2
        return z

    assert trace(unused, (T(1., 2.),)).graph is not None
    with pytest.raises(GraphCaptureError) as info:
        trace(used, (T(1., 2.),))
    assert f"{__file__}:{_line_of(used, '# marker')}: the variable 'z' is assigned only in the then-branch" \
        in str(info.value)


def test_tensor_escaping_its_branch():
    box = []

    def f(x):
        if x.sum() > 0:
            box.append(x * 2)
        return box[-1] + 1 if box else x  # marker

    with pytest.raises(GraphCaptureError, match="computed inside an `if` branch or a loop body"):
        trace(f, (T(1., 2.),))


def test_loop_carried_value_must_keep_its_shape():
    def f(x):
        while x.sum() < 10:  # marker
            x = ops.concat((x, x))
        return x

    with pytest.raises(GraphCaptureError) as info:
        trace(f, (T(1., 2.),))
    assert str(info.value).startswith(f"{__file__}:{_line_of(f, '# marker')}: the loop variable 'x' is a "
                                      "Tensor[Float32] of shape [2] before the loop but a Tensor[Float32] of shape [4]")


def test_condition_must_have_one_element():
    def f(x):
        if x > 0:
            x = x * 2
        return x

    with pytest.raises(GraphCaptureError, match="must be a one-element tensor, but got shape \\[2\\]"):
        trace(f, (T(1., 2.),))


def _double(fn):
    @functools.wraps(fn)
    def wrapper(*args, scale=2.0):
        return fn(*args) * scale
    return wrapper


@_double
def _decorated(x, bias=1.0, *, extra=0.0):
    if x.sum() > SCALE:
        return x + bias + extra
    return x - bias - extra


def test_rewrite_keeps_closures_globals_defaults_and_decorators():
    captured = T(10., 20.)

    def f(x, k=2.0, *, mul=3.0):
        if x.sum() > 0:
            x = x * k * mul + captured
        return x * SCALE + _decorated(x)

    for args in ((T(1., 2.),), (T(-1., -2.),)):
        traced = trace(f, args)
        assert_close(run_graph(traced.graph, list(args)), f(*args))
        assert_close(convert(f)(*args), f(*args))
    assert rewritten_source(f) is not None and "_os_cf.cond_if" in rewritten_source(f)
    assert convert(f).__code__ is convert(f).__code__  # cached per code object
    assert rewritten_source(lambda v: v) is None and rewritten_source(ops.relu) is None


class _Base(nn.Cell):
    def construct(self, x):
        return x * 2


class _Child(_Base):
    def __init__(self):
        super().__init__()
        self.__limit = 5.0

    def construct(self, x):
        y = super().construct(x)
        if y.sum() > self.__limit:
            y = y - self.__limit
        return y


def test_super_and_private_names_in_construct():
    net = _Child()
    for x in (T(1., 2.), T(3., 4.)):
        traced = trace(net.construct, (x,))
        assert_close(run_graph(traced.graph, [x]), net(x))


GRAPH_DICT = {"a": 1.0, "b": 2.0}


def test_graph_dicts_have_mindspores_methods():
    """In graph code keys()/values() are tuples, items() a list of pairs, and has_key exists (MindSpore's graph
    dict); `self.__name(...)` calls keep Python's name mangling."""
    class Net(nn.Cell):
        def __private(self, x):
            return x * 2

        @ms.jit
        def construct(self, x):
            d = {"x": x, "y": 3}
            assert d.keys() == ("x", "y") and len(d.values()) == 2 and d.items()[1] == ("y", 3)
            return self.__private(x) + GRAPH_DICT.get("a"), GRAPH_DICT.keys(), d.has_key("y"), d.has_key("z")

    out, keys, has_y, has_z = Net()(T(1.0, 2.0))
    assert_close(out, [3.0, 5.0])
    assert keys == ("a", "b") and has_y is True and has_z is False


def test_primitive_inputs_by_name():
    x = ms.Tensor(np.ones((2, 3, 4), np.float32))
    assert ops.ReduceSum(True)(x, axis=2).shape == (2, 3, 1)
    assert ops.ReduceSum()(x=x, axis=(0, 1)).shape == (4,)
    with pytest.raises(TypeError, match="unexpected input 'dim'"):
        ops.ReduceSum()(x, dim=1)
    with pytest.raises(TypeError, match="both by position and by name"):
        ops.ReduceSum()(x, x=x)
