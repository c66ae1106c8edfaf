"""utils.MsDispatchMode: eager op calls go to the innermost mode's __ms_dispatch__, which may change arguments
and results or skip the op; a handler's own ops are not intercepted; modes nest, decorate, and unwind on errors."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops
from openspore.core import dispatch
from openspore.utils import MsDispatchMode


class Recorder(MsDispatchMode):
    def __init__(self, tag, log):
        self.tag, self.log = tag, log

    def __ms_dispatch__(self, func, args, kwargs=None):
        self.log.append((self.tag, func.name))
        out = func(*args)
        ops.abs(out)  # the handler's own op: not intercepted
        return out


X = ms.Tensor(np.array([1.0, -2.0], np.float32))


def test_nesting_innermost_handles_and_outer_resumes():
    log = []
    with Recorder("outer", log):
        a = X * 2
        with Recorder("inner", log):
            b = X + X
        c = X - 1
    d = X + 1  # outside every mode
    assert log == [("outer", "Mul"), ("inner", "Add"), ("outer", "Sub")]
    assert a.asnumpy().tolist() == [2.0, -4.0] and b.asnumpy().tolist() == [2.0, -4.0]
    assert c.asnumpy().tolist() == [0.0, -3.0] and d.asnumpy().tolist() == [2.0, -1.0]


def test_a_handler_may_change_args_results_or_skip_the_op():
    class Rewrite(MsDispatchMode):
        def __ms_dispatch__(self, func, args, kwargs=None):
            if func.name == "ReLU":
                return ms.Tensor(np.zeros(2, np.float32))  # the op never runs
            if func.name == "Add":
                return func(args[0], args[1] * 10) + 0.5  # the + inside the handler is not intercepted
            return func(*args)

    with Rewrite():
        assert ops.relu(X).asnumpy().tolist() == [0.0, 0.0]
        assert (X + 1).asnumpy().tolist() == [11.5, 8.5]
        assert (X * 3).asnumpy().tolist() == [3.0, -6.0]


def test_decorator_and_the_default_handler():
    log = []

    @Recorder("deco", log)
    def f(a):
        return ops.exp(a)

    np.testing.assert_allclose(f(X).asnumpy(), np.exp([1.0, -2.0]), rtol=1e-6)
    assert log == [("deco", "Exp")]
    with MsDispatchMode():  # the base class runs every op unchanged
        assert (X * X).asnumpy().tolist() == [1.0, 4.0]


def test_errors_unwind_and_a_wrong_handler_signature_is_a_type_error():
    class Bad(MsDispatchMode):
        def __ms_dispatch__(self, func):
            return func()

    with pytest.raises(TypeError):
        with Bad():
            X + X
    assert not dispatch._dispatch_modes  # the stack is empty again
    assert (X + X).asnumpy().tolist() == [2.0, -4.0]
