"""Behaviours an eleventh sample of MindSpore's own system tests (tests/st: control, fallback, syntax, tensor,
mint, scipy_st, numpy_native, ops/cpu) relies on, each checked on MindSpore 2.10: graph `and`/`or` between
traced operands (its branch-join TypeError and one-element ValueError), `in` on lists of tensors, `is` on
variable int scalars, the exception types graph `raise` accepts, a tuple of constants indexed by a traced
bool, `masked_scatter` and `mint.chunk` in graph mode, and the distributions' parameter properties."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, jit, mint, nn
from openspore.nn.probability import distribution as msd

JOIN = "Cannot join the return values of different branches"


class _And(nn.Cell):
    def construct(self, x, y):
        return x and y


class _Or(nn.Cell):
    def construct(self, x, y):
        return x or y


def test_graph_and_or_join_their_operands_as_two_branches(graph_mode):
    one, zero = Tensor(np.ones([1], np.int32)), Tensor(np.zeros([1], np.int32))
    assert _And()(one, zero).asnumpy().tolist() == [0]
    assert _Or()(one, zero).asnumpy().tolist() == [1]
    assert _And()(1, one).asnumpy().tolist() == [1]  # a constant first operand decides in Python
    for net in (_And(), _Or()):
        with pytest.raises(TypeError, match=JOIN):
            net(one, 2)  # a tensor and an int do not join
        with pytest.raises(TypeError, match=JOIN):
            net(Tensor(np.ones([1], np.float32)), zero)  # nor two dtypes
        with pytest.raises(ValueError, match=r"shape is \(\) or \(1,\) .* got tensor shape is \(2, 2\)"):
            net(Tensor(np.ones([2, 2], np.int32)), Tensor(np.zeros([2, 2], np.int32)))


@jit
def _if_and_constant(x):
    if x > 1 and True:
        return x + 1
    return x


@jit
def _bool_tensors(x):
    return x > 1 and x < 5


def test_graph_and_with_a_python_bool_does_not_join_but_two_conditions_do():
    with pytest.raises(TypeError, match=JOIN):
        _if_and_constant(Tensor(3))
    assert bool(_bool_tensors(Tensor(3))) and not bool(_bool_tensors(Tensor(7)))


class _MemberIn(nn.Cell):
    def __init__(self, x, y):
        super().__init__()
        self.x, self.y = x, y

    def construct(self):
        return self.x in self.y


class _MemberInArgs(nn.Cell):
    def construct(self, x, y):
        return x in y


def test_graph_tensor_in_a_list_compares_whole_values(graph_mode):
    ones, zeros = Tensor(np.ones([2, 2], np.int32)), Tensor(np.zeros([2, 2], np.int32))
    other_ones, mixed = Tensor(np.ones([2, 2], np.int32)), Tensor(np.array([[1, 0], [1, 1]], np.int32))
    assert not _MemberIn(ones, [zeros, "a"])()
    assert _MemberIn(ones, [other_ones])()
    assert not _MemberIn(ones, [mixed])()
    assert not _MemberIn(ones, [1])()
    assert _MemberIn(ones, (ones, "a"))()
    assert bool(_MemberInArgs()(ones, [other_ones, zeros]))
    assert not bool(_MemberInArgs()(ones, [mixed]))


ONE, TWO, THREE = 1, 2, 3  # named constants: `is` against a literal is a SyntaxWarning


@jit
def _counted(x):
    a = 0
    i = 0
    while i < x:
        i = i + 1
        a = a + 1
    return a is THREE, a is not TWO, a is TWO


@jit
def _branch_set(x):
    a = 0
    if x > 1:
        a = a + 1
    return a is ONE, a is not ONE


def test_graph_is_on_a_variable_int_compares_its_value():
    same, not_other, other = _counted(Tensor([3]))
    assert bool(same) and bool(not_other) and not bool(other)
    same, not_same = _branch_set(Tensor([3]))
    assert bool(same) and not bool(not_same)


class _RaiseImport(nn.Cell):
    def construct(self, x):
        if x == 1:
            raise ImportError("The input should not be 1.")
        return x


class _RaiseUnknown(nn.Cell):
    def construct(self, x):
        if x == 1:
            raise NotAnExceptionName("The input should not be 1.")  # noqa: F821  (never defined: by name)
        return x


class _RaiseWarning(nn.Cell):
    def construct(self, x):
        if x == 1:
            raise RuntimeWarning("The input should not be 1.")
        return x


def test_graph_raise_knows_a_fixed_set_of_exception_types(graph_mode):
    with pytest.raises(RuntimeError, match="Unsupported exception type: ImportError."):
        _RaiseImport()(1)
    with pytest.raises(RuntimeError, match="Unsupported exception type: NotAnExceptionName."):
        _RaiseUnknown()(1)
    with pytest.raises(RuntimeWarning, match="The input should not be 1."):
        _RaiseWarning()(1)
    assert _RaiseImport()(2) == 2  # only a raise that runs fails


@jit
def _pick_constant(a):
    m = (1, 2, 3, 4)
    return m[a == 1], m[a == 2]


def test_graph_tuple_of_constants_indexed_by_a_traced_bool():
    first, second = _pick_constant(ms.mutable(1))
    assert first == 2 and second == 1


class _MaskedScatter(nn.Cell):
    def construct(self, x, mask, updates):
        return x.masked_scatter(mask, updates)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_masked_scatter_compiles_and_fills_in_order(mode):
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        x = Tensor(np.array([1., 2., 3., 4.], np.float32))
        mask = Tensor(np.array([True, True, False, True]))
        out = _MaskedScatter()(x, mask, Tensor(np.array([5., 6., 7.], np.float32)))
        assert out.asnumpy().tolist() == [5., 6., 3., 7.]
        grid = Tensor(np.arange(6).reshape(2, 3).astype(np.int32))
        row_mask = Tensor(np.array([True, False, True]))  # broadcast over the rows
        out = _MaskedScatter()(grid, row_mask, Tensor(np.arange(10, 20).reshape(2, 5).astype(np.int32)))
        assert out.asnumpy().tolist() == [[10, 1, 11], [12, 4, 13]]
    finally:
        ms.set_context(mode=old)


class _Chunk(nn.Cell):
    def construct(self, x, chunks, dim):
        return mint.chunk(x, chunks, dim)


def test_graph_chunk_wants_constant_chunks_and_dim(graph_mode):
    x = Tensor(np.arange(20).reshape(10, 2).astype(np.float32))
    with pytest.raises(RuntimeError, match="the chunk is a unknown variable"):
        _Chunk()(x, ms.mutable(2), 0)
    with pytest.raises(RuntimeError, match="the dims is a unknown variable"):
        _Chunk()(x, 2, ms.mutable(0))
    assert [p.shape for p in _Chunk()(x, 3, 0)] == [(4, 2), (4, 2), (2, 2)]


def test_distributions_expose_their_constructor_parameters():
    assert msd.Bernoulli(None).probs is None
    assert np.isclose(float(msd.Bernoulli(0.3).probs), 0.3) and np.isclose(float(msd.Geometric(0.5).probs), 0.5)
    assert np.allclose(msd.Categorical([0.2, 0.8]).probs.asnumpy(), [0.2, 0.8])
    uniform = msd.Uniform(0.0, 1.0)
    assert float(uniform.low) == 0.0 and float(uniform.high) == 1.0
    assert float(msd.Exponential(2.0).rate) == 2.0 and msd.Poisson([3.0]).rate.asnumpy().tolist() == [3.0]
    gamma, beta = msd.Gamma([2.0], [3.0]), msd.Beta([2.0], [3.0])
    assert gamma.concentration.asnumpy().tolist() == [2.0] and gamma.rate.asnumpy().tolist() == [3.0]
    assert beta.concentration1.asnumpy().tolist() == [2.0] and beta.concentration0.asnumpy().tolist() == [3.0]
    for cls in (msd.Logistic, msd.Gumbel, msd.Cauchy, msd.LogNormal):
        dist = cls(1.0, 2.0)
        assert float(dist.loc) == 1.0 and float(dist.scale) == 2.0
