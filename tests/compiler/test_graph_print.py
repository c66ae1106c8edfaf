"""print(...) and ops.Print() in a compiled construct are Print nodes of the graph (ops/defs/debug.py): they print
each time the graph runs, in program order, in MindSpore 2.10's graph layout (the expected texts were printed by
MindSpore 2.10 for the same code), and the function does not fall back to running in Python."""
import importlib

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.compiler.frontend import trace

jit_runtime = importlib.import_module("openspore.runtime.jit")


def _t(values, dtype=np.float32):
    return ms.Tensor(np.array(values, dtype))


class _Printing(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(_t([1.0]), "w")
        self.print = ops.Print()

    def construct(self, x, n):
        self.print("a:", 2, 1.2, False, x, (1, 2), n)
        while n < 3:
            print("loop", n)
            n = n + 1
        print("before", self.w)
        ops.assign(self.w, self.w + 2.0)
        print("after", self.w)
        return n


def test_print_runs_in_the_graph_each_call_in_program_order(graph_mode, capsys):
    net = _Printing()
    x = _t([[1, 2], [3, 4]])
    for _ in range(2):
        assert int(net(x, ms.Tensor(np.int32(1))).asnumpy()) == 3
    assert jit_runtime.cell_cache(net).eager_reason is None  # compiled, not run in Python
    out = capsys.readouterr().out
    first = ["a:", "2", "1.2", "0", "Tensor(shape=[2, 2], dtype=Float32, value=",
             "[[ 1.00000000e+00  2.00000000e+00]", " [ 3.00000000e+00  4.00000000e+00]])", "(1, 2)", "1",
             "loop", "1", "loop", "2", "before", "Tensor(shape=[1], dtype=Float32, value=[ 1.00000000e+00])",
             "after", "Tensor(shape=[1], dtype=Float32, value=[ 3.00000000e+00])"]
    lines = out.splitlines()
    assert lines[:len(first)] == first
    assert lines[len(first):len(first) + 13] == first[:13]  # the second call prints the same until the Parameter
    assert lines[len(first) + 13:] == ["before", "Tensor(shape=[1], dtype=Float32, value=[ 3.00000000e+00])",
                                       "after", "Tensor(shape=[1], dtype=Float32, value=[ 5.00000000e+00])"]


def test_print_values_in_graph_layout(graph_mode, capfd):
    @ms.jit
    def f(x, i, b, s):
        print((x, 1))
        print([1, 2], {"a": 1}, (1, (2.5, "s")))
        print(1.0, -3, 1e-9, 123456789.0, True, None, x.dtype)
        print(i)
        print(b)
        print(s)
        print()
        return x

    f(_t([1.5, 2]), ms.Tensor(np.arange(24, dtype=np.int32).reshape(2, 3, 4)), ms.Tensor(np.array([True, False])),
      _t(-0.1))
    assert capfd.readouterr().out.splitlines() == [
        "Tensor(shape=[2], dtype=Float32, value=[ 1.50000000e+00  2.00000000e+00])", "1",
        "(1, 2)", "(1)", "1", "2.5", "s",
        "1", "-3", "1e-09", "1.23457e+08", "1", "None", "Float32",
        "Tensor(shape=[2, 3, 4], dtype=Int32, value=",
        "[[[ 0  1  2  3]", "  [ 4  5  6  7]", "  [ 8  9 10 11]]", " [[12 13 14 15]", "  [16 17 18 19]",
        "  [20 21 22 23]]])",
        "Tensor(shape=[2], dtype=Bool, value=[ True False])",
        "-0.1"]


def test_long_tensors_wrap_and_summarise_without_commas(graph_mode, capsys):
    @ms.jit
    def f(a, b):
        print(a)
        print(b)
        return a

    f(ms.Tensor(np.arange(30, dtype=np.int32)), ms.Tensor(np.arange(16, dtype=np.float32).reshape(2, 8)))
    assert capsys.readouterr().out.splitlines() == [
        "Tensor(shape=[30], dtype=Int32, value=[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 "
        "23 ", " 24 25 26 27 28 29])",
        "Tensor(shape=[2, 8], dtype=Float32, value=",
        "[[ 0.00000000e+00  1.00000000e+00  2.00000000e+00 ...  5.00000000e+00  6.00000000e+00  7.00000000e+00]",
        " [ 8.00000000e+00  9.00000000e+00  1.00000000e+01 ...  1.30000000e+01  1.40000000e+01  1.50000000e+01]])"]


def test_print_nodes_survive_dce_and_cse():
    def f(x):
        print("same", x)
        print("same", x)
        return x + 1

    traced = trace(f, (_t([1.0]),))
    from openspore.compiler.passes.cse import cse
    from openspore.compiler.passes.dce import dce
    graph = dce(cse(traced.graph))
    assert [n.op_name for n in graph.nodes].count("Print") == 2


def test_print_keywords_are_refused_as_mindspore_does(graph_mode):
    @ms.jit
    def f(x):
        print("a", x, sep="-")
        return x

    with pytest.raises(RuntimeError, match="Got an unexpected keyword argument 'sep'"):
        f(_t([1.0]))


def test_pynative_print_uses_the_tensor_repr(capsys):
    ops.Print()("v:", 2, False, _t(2.5), (1, 2))
    assert capsys.readouterr().out.splitlines() == [
        "v:", "2", "False", "Tensor(shape=[], dtype=Float32, value= 2.5)", "(1, 2)"]


def test_export_leaves_print_out(graph_mode, tmp_path, capsys):
    class Net(nn.Cell):
        def construct(self, x):
            print("x", x)
            return x * 2

    ms.export(Net(), _t([1.0, 2.0]), file_name=str(tmp_path / "net"), file_format="MINDIR")
    loaded = nn.GraphCell(ms.load(str(tmp_path / "net.mindir")))
    capsys.readouterr()
    np.testing.assert_allclose(loaded(_t([1.0, 2.0])).asnumpy(), [2.0, 4.0])
    assert capsys.readouterr().out == ""
