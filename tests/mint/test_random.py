"""mint's random functions: MindSpore's signatures, reproducibility under set_seed and under a Generator's
manual_seed/get_state (eager and jit), distributions checked on large draws, and errors on bad input."""
import numpy as np
import pytest

import openspore as ms
from openspore import mint


def _np(t):
    return t.asnumpy()


# (name, call) for every function that takes generator=
WITH_GENERATOR = [
    ("rand", lambda g: mint.rand(3, 4, generator=g)),
    ("randn", lambda g: mint.randn((3, 4), generator=g)),
    ("randint", lambda g: mint.randint(-5, 50, [3, 4], generator=g)),
    ("randperm", lambda g: mint.randperm(12, generator=g)),
    ("normal", lambda g: mint.normal(ms.Tensor(np.zeros((2, 3), np.float32)), 2.0, generator=g)),
    ("bernoulli", lambda g: mint.bernoulli(ms.Tensor(np.full((4, 5), 0.5, np.float32)), generator=g)),
    ("multinomial", lambda g: mint.multinomial(ms.Tensor(np.ones((2, 6), np.float32)), 3, generator=g)),
]


@pytest.mark.parametrize("name,call", WITH_GENERATOR, ids=[c[0] for c in WITH_GENERATOR])
def test_generator_manual_seed_replays_and_streams_advance(name, call):
    g = ms.Generator().manual_seed(11)
    first, second = _np(call(g)), _np(call(g))
    g.manual_seed(11)
    np.testing.assert_array_equal(_np(call(g)), first)
    np.testing.assert_array_equal(_np(call(g)), second)
    assert not np.array_equal(first, second) or name == "bernoulli" and first.size < 4


@pytest.mark.parametrize("name,call", WITH_GENERATOR, ids=[c[0] for c in WITH_GENERATOR])
def test_set_seed_replays_the_default_stream(name, call):
    ms.set_seed(5)
    first = _np(call(None))
    ms.set_seed(5)
    np.testing.assert_array_equal(_np(call(None)), first)
    ms.manual_seed(5)  # the default generator is the same stream
    np.testing.assert_array_equal(_np(call(ms.default_generator)), first)


def test_a_generator_is_independent_of_the_global_stream():
    g = ms.Generator().manual_seed(3)
    alone = _np(mint.rand(5, generator=g))
    g.manual_seed(3)
    ms.set_seed(1)
    _ = mint.rand(7)  # draws from the global stream do not move g
    np.testing.assert_array_equal(_np(mint.rand(5, generator=g)), alone)
    state = g.get_state()
    after = _np(mint.randn(4, generator=g))
    g.set_state(state)
    np.testing.assert_array_equal(_np(mint.randn(4, generator=g)), after)


def test_like_functions_follow_set_seed():
    x = ms.Tensor(np.zeros((2, 3), np.float64))
    for fn in (lambda: mint.rand_like(x), lambda: mint.randn_like(x), lambda: mint.randint_like(x, 2, 9)):
        ms.set_seed(8)
        a = _np(fn())
        ms.set_seed(8)
        np.testing.assert_array_equal(_np(fn()), a)


def test_generator_in_a_compiled_function_draws_per_call():
    g = ms.Generator().manual_seed(4)

    @ms.jit
    def f(x):
        return x + mint.rand(3, generator=g)

    zeros = ms.ops.zeros(3)
    a, b = _np(f(zeros)), _np(f(zeros))
    assert not np.array_equal(a, b)
    g.manual_seed(4)
    np.testing.assert_array_equal(_np(f(zeros)), a)


def test_shapes_and_dtypes():
    assert mint.rand(2, 3).shape == (2, 3) and mint.rand(2, 3).dtype == ms.float32
    assert mint.rand([4]).shape == (4,) and mint.randn(2, dtype=ms.float64).dtype == ms.float64
    assert mint.randint(5, (2, 2)).dtype == ms.int64


def test_an_empty_size_is_a_0_d_draw_on_both_backends(backend):
    assert mint.rand().shape == () and mint.randn(()).shape == () and mint.randint(0, 3, ()).shape == ()
    assert mint.randint(0, 5, (3,), dtype=ms.int32).dtype == ms.int32
    x = ms.Tensor(np.zeros((3, 2), np.float16))
    assert mint.rand_like(x).dtype == ms.float16 and mint.randn_like(x, dtype=ms.float32).dtype == ms.float32
    assert mint.randint_like(x, 4).dtype == ms.float16 and mint.randint_like(x, 4).shape == (3, 2)
    assert mint.randperm(6, dtype=ms.int32).dtype == ms.int32
    assert mint.multinomial(ms.Tensor([1.0, 2.0]), 2).dtype == ms.int64
    assert mint.normal(1.0, ms.Tensor(np.ones((2, 5), np.float32))).shape == (2, 5)
    assert mint.normal(ms.Tensor(np.ones((3, 1), np.float32)), ms.Tensor(np.ones((4,), np.float32))).shape == (3, 4)
    assert mint.normal(0.0, 1.0, (7,)).shape == (7,) and mint.normal(0.0, 1.0, (7,)).dtype == ms.float32


def test_value_ranges_and_distributions():
    ms.set_seed(0)
    u = _np(mint.rand(20000))
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.01
    z = _np(mint.randn(20000))
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1.0) < 0.03
    r = _np(mint.randint(3, 7, (5000,)))
    assert set(np.unique(r)) == {3, 4, 5, 6}
    r = _np(mint.randint(4, (500,)))  # randint(high, size): low 0
    assert r.min() == 0 and r.max() == 3
    assert sorted(_np(mint.randperm(9)).tolist()) == list(range(9))
    n = _np(mint.normal(ms.Tensor(np.array([-100.0, 100.0], np.float32)), ms.Tensor(np.array([0.0, 0.0], np.float32))))
    np.testing.assert_array_equal(n, [-100.0, 100.0])  # zero spread: exactly the mean
    n = _np(mint.normal(3.0, 2.0, (20000,)))
    assert abs(n.mean() - 3.0) < 0.06 and abs(n.std() - 2.0) < 0.06


def test_bernoulli_uses_each_probability():
    p = np.array([0.0, 1.0, 0.25], np.float32)
    draws = _np(mint.bernoulli(ms.Tensor(np.tile(p, (4000, 1)))))
    assert draws.dtype == np.float32 and set(np.unique(draws)) <= {0.0, 1.0}
    np.testing.assert_allclose(draws.mean(0), p, atol=0.03)


def test_multinomial_with_and_without_replacement():
    w = ms.Tensor(np.array([[0.0, 1.0, 3.0, 0.0]], np.float32))
    rows = _np(mint.multinomial(w, 2))  # without replacement: both nonzero classes, once each
    assert sorted(rows[0].tolist()) == [1, 2]
    many = _np(mint.multinomial(w, 4000, replacement=True))[0]
    assert set(np.unique(many)) == {1, 2} and abs((many == 2).mean() - 0.75) < 0.03
    with pytest.raises(ValueError, match="cannot exceed"):
        mint.multinomial(w, 5)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="'size'"):
        mint.rand(2, -1)
    with pytest.raises(TypeError, match="'dtype'"):
        mint.rand(2, dtype=ms.int32)
    with pytest.raises(ValueError, match="'low' must be less than 'high'"):
        mint.randint(5, 5, (2,))
    with pytest.raises(TypeError, match="'size'"):
        mint.randint(0, 5, 3)
    with pytest.raises(TypeError, match="Generator"):
        mint.rand(2, generator=np.random.default_rng(0))
    with pytest.raises(ValueError, match="'size' is required"):
        mint.normal(0.0, 1.0)
    with pytest.raises(ValueError, match="'std'"):
        mint.normal(0.0, -1.0, (2,))
    with pytest.raises(ValueError, match="'n'"):
        mint.randperm(-1)
