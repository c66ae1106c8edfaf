"""Random ops: reproducibility under set_seed (identical on both backends), seeded streams, dtypes and shapes,
and distribution sanity checks."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops
from tests.device import use_backend

CALLS = {
    "rand": lambda: ops.rand(3, 4),
    "randn": lambda: ops.randn((2, 5), dtype=ms.float64),
    "uniform": lambda: ops.uniform((3, 2), ms.Tensor(-1.0), ms.Tensor(2.0)),
    "uniform_int": lambda: ops.uniform((6,), ms.Tensor(0, ms.int32), ms.Tensor(5, ms.int32), dtype=ms.int32),
    "standard_normal": lambda: ops.standard_normal((4,)),
    "normal": lambda: ops.normal((2, 3), ms.Tensor(1.0), ms.Tensor([0.5, 1.0, 2.0])),
    "randint": lambda: ops.randint(-5, 5, (3, 3)),
    "rand_like": lambda: ops.rand_like(ms.Tensor(np.zeros((2, 2), np.float64))),
    "randn_like": lambda: ops.randn_like(ms.Tensor(np.zeros((3,), np.float32))),
    "randint_like": lambda: ops.randint_like(ms.Tensor(np.zeros((4,), np.int32)), 0, 3),
    "bernoulli": lambda: ops.bernoulli(ms.Tensor(np.zeros((3, 4), np.float32)), 0.4),
    "randperm": lambda: ops.randperm(7),
    "shuffle": lambda: ops.shuffle(ms.Tensor(np.arange(12.0).reshape(6, 2))),
    "multinomial": lambda: ops.multinomial(ms.Tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 3.0]]), 5),
    "multinomial_no_replacement": lambda: ops.multinomial(ms.Tensor([0.2, 0.3, 0.5, 0.1]), 3, replacement=False),
    "seeded_rand": lambda: ops.rand(5, seed=11),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_same_seed_same_numbers_on_both_backends(name):
    results = {}
    for backend in ("numpy", "torch"):
        use_backend(backend)
        ms.set_seed(42)
        first = CALLS[name]().asnumpy()
        second = CALLS[name]().asnumpy()
        ms.set_seed(42)
        again = CALLS[name]().asnumpy()
        np.testing.assert_array_equal(first, again)
        results[backend] = (first, second)
    np.testing.assert_array_equal(results["numpy"][0], results["torch"][0])
    np.testing.assert_array_equal(results["numpy"][1], results["torch"][1])


def test_successive_draws_and_seeds_differ(backend):
    ms.set_seed(1)
    a, b = ops.rand(50).asnumpy(), ops.rand(50).asnumpy()
    assert not np.array_equal(a, b)
    ms.set_seed(2)
    assert not np.array_equal(a, ops.rand(50).asnumpy())
    ms.set_seed(1)
    np.testing.assert_array_equal(a, ops.rand(50).asnumpy())


def test_op_seed_owns_a_stream():
    op = ms.ops.UniformReal(seed=5, seed2=1)
    first, second = op((4,)).asnumpy(), op((4,)).asnumpy()
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(ms.ops.UniformReal(seed=5, seed2=1)((4,)).asnumpy(), first)
    ops.rand(10)  # the global stream does not disturb a seeded op
    np.testing.assert_array_equal(ms.ops.UniformReal(seed=5, seed2=1)((4,)).asnumpy(), first)
    ms.set_seed(9)  # set_seed restarts seeded streams
    np.testing.assert_array_equal(op((4,)).asnumpy(), first)


def test_dtypes_and_shapes(backend):
    assert ops.rand(2, 3).dtype == ms.float32 and ops.rand(2, 3).shape == (2, 3)
    assert ops.randn(4, dtype=ms.float16).dtype == ms.float16
    assert ops.randint(0, 4, (5,)).dtype == ms.int64
    assert ops.randint(0, 4, (5,), dtype=ms.int32).dtype == ms.int32
    assert ops.randperm(4).dtype == ms.int64
    assert ops.multinomial(ms.Tensor([0.5, 0.5]), 3).dtype == ms.int32
    assert ops.multinomial(ms.Tensor([[0.5, 0.5]] * 2), 3).shape == (2, 3)
    assert ops.bernoulli(ms.Tensor([1, 2, 3], ms.int32)).dtype == ms.int32
    assert ops.rand_like(ms.Tensor(np.zeros((2,), np.float64))).dtype == ms.float64
    assert ops.normal((3, 1), ms.Tensor(0.0), ms.Tensor([1.0, 2.0])).shape == (3, 2)
    assert ms.ops.StandardNormal()((2, 2)).dtype == ms.float32
    assert ms.ops.UniformInt()((2,), ms.Tensor(0, ms.int32), ms.Tensor(3, ms.int32)).dtype == ms.int32
    out = ms.ops.Randperm(max_length=6, pad=-1)(ms.Tensor([4], ms.int32))
    assert out.shape == (6,) and out.asnumpy()[4:].tolist() == [-1, -1]
    assert sorted(out.asnumpy()[:4].tolist()) == [0, 1, 2, 3]


def test_distributions_look_right(backend):
    ms.set_seed(0)
    u = ops.uniform((20000,), ms.Tensor(2.0), ms.Tensor(4.0)).asnumpy()
    assert u.min() >= 2.0 and u.max() < 4.0 and abs(u.mean() - 3.0) < 0.03
    n = ops.normal((20000,), ms.Tensor(1.0), ms.Tensor(2.0)).asnumpy()
    assert abs(n.mean() - 1.0) < 0.06 and abs(n.std() - 2.0) < 0.06
    t = ms.ops.TruncatedNormal()((20000,)).asnumpy()
    assert np.abs(t).max() <= 2.0 and abs(t.std() - 0.88) < 0.03
    r = ops.randint(-3, 3, (20000,)).asnumpy()
    assert set(np.unique(r).tolist()) == {-3, -2, -1, 0, 1, 2}
    b = ops.bernoulli(ms.Tensor(np.zeros((20000,), np.float32)), 0.25).asnumpy()
    assert set(np.unique(b).tolist()) <= {0.0, 1.0} and abs(b.mean() - 0.25) < 0.02
    p = ms.Tensor(np.array([[0.0, 2.0, 3.0, 5.0]] * 2, np.float32))
    draws = ops.multinomial(p, 5000).asnumpy()
    freq = np.bincount(draws.reshape(-1), minlength=4) / draws.size
    np.testing.assert_allclose(freq, [0.0, 0.2, 0.3, 0.5], atol=0.02)
    unique = ops.multinomial(ms.Tensor(np.ones((3, 6), np.float32)), 6, replacement=False).asnumpy()
    assert all(sorted(row) == list(range(6)) for row in unique.tolist())


def test_permutations(backend):
    ms.set_seed(4)
    assert sorted(ops.randperm(10).asnumpy().tolist()) == list(range(10))
    x = np.arange(20.0).reshape(10, 2)
    shuffled = ops.shuffle(ms.Tensor(x)).asnumpy()
    assert sorted(map(tuple, shuffled.tolist())) == sorted(map(tuple, x.tolist()))
    assert not np.array_equal(shuffled, x)
    ms.set_seed(0)
    seeded = ops.randperm(8, seed=3).asnumpy()
    ms.set_seed(0)
    np.testing.assert_array_equal(ops.randperm(8, seed=3).asnumpy(), seeded)


def test_random_errors():
    with pytest.raises(ValueError, match="'minval' must be less than 'maxval'"):
        ops.randint(3, 3, (2,))
    with pytest.raises(ValueError, match="finite and non-negative"):
        ops.multinomial(ms.Tensor([0.5, -0.1]), 2)
    with pytest.raises(ValueError, match="cannot exceed"):
        ops.multinomial(ms.Tensor([0.5, 0.5]), 3, replacement=False)
    with pytest.raises(ValueError, match="max_length"):
        ms.ops.Randperm(max_length=3)(ms.Tensor([5], ms.int32))
    with pytest.raises(ValueError, match="non-negative ints"):
        ops.rand(2, -1)
    with pytest.raises(ValueError, match="'p' must be a float in"):
        ops.bernoulli(ms.Tensor([1.0]), 1.5)


def test_random_ops_are_not_differentiable():
    x = ms.Tensor(np.ones((3,), np.float32))
    ms.set_seed(5)
    g = ms.grad(lambda t: (t * ops.rand_like(t)).sum())(x)
    ms.set_seed(5)
    np.testing.assert_array_equal(g.asnumpy(), ops.rand(3).asnumpy())  # the draw is a constant factor
    assert not ms.ops.UniformReal.differentiable and ms.ops.UniformReal.nondiff_reason
