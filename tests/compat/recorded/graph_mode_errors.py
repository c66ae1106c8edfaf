"""Graph-mode error behaviour, construct by construct: the exception type each case raises, or ok and the value.
The type is the first of KINDS the exception is an instance of (openspore's graph errors subclass these: a
GraphSyntaxError is a RuntimeError, a `range(tensor)` GraphTypeError is a TypeError)."""
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor

ms.set_context(mode=ms.GRAPH_MODE)
x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))


KINDS = (NameError, AttributeError, IndexError, AssertionError, TypeError, ValueError, RuntimeError, Exception)


def run(name, cell, *args):
    try:
        out = cell(*args)
        print(name, "ok", out)
    except Exception as e:  # noqa: BLE001
        print(name, next(k.__name__ for k in KINDS if isinstance(e, k)))


class Undefined(nn.Cell):
    def construct(self, x):
        return x + undefined_name  # noqa: F821
run("undefined_name", Undefined(), x)


class UndefinedAttr(nn.Cell):
    def construct(self, x):
        return x + self.nothing
run("undefined_attr", UndefinedAttr(), x)


class OneArg(nn.Cell):
    def construct(self, x):
        return x * 2
run("too_many_args", OneArg(), x, x)
run("too_few_args", OneArg())


class TwoArgs(nn.Cell):
    def construct(self, x, y):
        return x * y
run("missing_arg", TwoArgs(), x)


class TryStmt(nn.Cell):
    def construct(self, x):
        try:
            y = x * 2
        except ValueError:
            y = x
        return y
run("try", TryStmt(), x)


class Yield(nn.Cell):
    def construct(self, x):
        yield x
run("yield", Yield(), x)


class RaiseConst(nn.Cell):
    def construct(self, x):
        raise ValueError("bad input")
run("raise_const", RaiseConst(), x)


class RaiseCond(nn.Cell):
    def construct(self, x):
        if x.sum() > 100:
            raise ValueError("too big")
        return x
run("raise_cond_true", RaiseCond(), x * 100)


class RaiseTensorMsg(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            raise ValueError(f"sum is {x.sum()}")
        return x
run("raise_tensor_msg", RaiseTensorMsg(), x)


class RangeTensor(nn.Cell):
    def construct(self, x):
        s = 0
        for i in range(x.sum()):
            s = s + i
        return s
run("range_tensor", RangeTensor(), x)


class AssertFalse(nn.Cell):
    def construct(self, x):
        assert x.shape[0] == 5, "wrong"
        return x
run("assert_const_false", AssertFalse(), x)


class DelStmt(nn.Cell):
    def construct(self, x):
        y = x
        del y
        return x
run("del", DelStmt(), x)


class WithStmt(nn.Cell):
    def construct(self, x):
        with open("f") as f:
            f.read()
        return x
run("with", WithStmt(), x)


class SetComp(nn.Cell):
    def construct(self, x):
        s = {i for i in range(3)}
        return x
run("set_comp", SetComp(), x)


class ZerosTensorShape(nn.Cell):
    def construct(self, x):
        return ops.zeros((x.sum(),))
run("zeros_tensor_shape", ZerosTensorShape(), x)


class Recursive(nn.Cell):
    def f(self, x, n):
        if n == 0:
            return x
        return self.f(x + 1, n - 1)

    def construct(self, x):
        return self.f(x, 5)
run("recursion_5", Recursive(), x)


class DeepRecursive(nn.Cell):
    def f(self, x, n):
        if n == 0:
            return x
        return self.f(x + 1, n - 1)

    def construct(self, x):
        return self.f(x, 3000)
run("recursion_3000", DeepRecursive(), x)


class StrPlusTensor(nn.Cell):
    def construct(self, x):
        return "a" + x
run("str_plus_tensor", StrPlusTensor(), x)


class AttrAssignTensor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = 1

    def construct(self, x):
        self.a = x
        return x
run("attr_assign", AttrAssignTensor(), x)


class BadIndex(nn.Cell):
    def construct(self, x):
        return x[5]
run("index_out_of_range", BadIndex(), x)


class TupleIndex(nn.Cell):
    def construct(self, x):
        t = (1, 2)
        return t[3]
run("tuple_index_oor", TupleIndex(), x)


class CallNonCallable(nn.Cell):
    def construct(self, x):
        a = 3
        return a(x)
run("call_int", CallNonCallable(), x)


class WrongOpArg(nn.Cell):
    def construct(self, x):
        return ops.reshape(x, (2, 2))
run("reshape_bad", WrongOpArg(), x)


class Lambda(nn.Cell):
    def construct(self, x):
        f = lambda v: v * 2
        return f(x)
run("lambda", Lambda(), x)


class WhileElse(nn.Cell):
    def construct(self, x):
        i = 0
        while i < 3:
            i += 1
        else:
            x = x + 1
        return x
run("while_else", WhileElse(), x)


class Starred(nn.Cell):
    def construct(self, x):
        a, *b = (1, 2, 3)
        return x + a
run("starred_assign", Starred(), x)


class Walrus(nn.Cell):
    def construct(self, x):
        if (n := 2) > 1:
            x = x * n
        return x
run("walrus", Walrus(), x)


class Nonlocal(nn.Cell):
    def construct(self, x):
        a = 1
        def g():
            nonlocal a
            a = 2
        g()
        return x + a
run("nonlocal", Nonlocal(), x)


class FStringTensor(nn.Cell):
    def construct(self, x):
        s = f"{x}"
        return x
run("fstring_tensor", FStringTensor(), x)
