"""Initializers: distributions (statistics on large shapes), bounds, fans, aliases, reproducibility."""
import math

import numpy as np
import pytest

import openspore as ms
from openspore.common import initializer as init
from openspore.common.initializer import (Constant, Dirac, HeNormal, HeUniform, Identity, Normal, One, Orthogonal,
                                          Sparse, TruncatedNormal, Uniform, VarianceScaling, XavierNormal,
                                          XavierUniform, Zero, initializer)


def sample(initer, shape, dtype=ms.float32):
    return initializer(initer, shape, dtype).init_data().asnumpy().astype(np.float64)


def test_fan_computation():
    assert init._calculate_fan_in_and_fan_out((30, 20)) == (20, 30)
    assert init._calculate_fan_in_and_fan_out((16, 6, 5, 5)) == (150, 400)
    assert init._calculate_fan_in_and_fan_out((8, 4, 3)) == (12, 24)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out((5,))
    assert init._calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init._calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    assert init._calculate_gain("tanh") == pytest.approx(5 / 3)
    with pytest.raises(ValueError, match="nonlinearity"):
        init._calculate_gain("swishy")


def test_normal_and_uniform_statistics():
    a = sample(Normal(sigma=0.5, mean=1.0), (400, 250))
    assert a.mean() == pytest.approx(1.0, abs=0.01) and a.std() == pytest.approx(0.5, rel=0.02)
    u = sample(Uniform(scale=0.3), (400, 250))
    assert u.min() >= -0.3 and u.max() <= 0.3
    assert u.std() == pytest.approx(0.3 / math.sqrt(3), rel=0.02) and abs(u.mean()) < 0.005
    d = sample("normal", (400, 250))  # default sigma 0.01
    assert d.std() == pytest.approx(0.01, rel=0.02)


def test_truncated_normal_bounds_are_absolute():
    # MindSpore 2.x: a/b bound the values (default [-2, 2]); sigma=0.1 is then practically untruncated
    t = sample(TruncatedNormal(sigma=0.1, mean=0.5), (400, 250))
    assert t.min() >= -2.0 and t.max() <= 2.0
    assert t.mean() == pytest.approx(0.5, abs=0.002)
    assert t.std() == pytest.approx(0.1, rel=0.02)
    unit = sample(TruncatedNormal(sigma=1.0), (400, 250))
    assert unit.min() >= -2.0 and unit.max() <= 2.0
    assert unit.std() == pytest.approx(0.8796, rel=0.02)  # std of N(0,1) truncated to [-2, 2]
    lopsided = sample(TruncatedNormal(sigma=1.0, a=0.0, b=1.0), (1000,))
    assert lopsided.min() >= 0.0 and lopsided.max() <= 1.0
    shifted = sample(TruncatedNormal(sigma=0.5, mean=3.0, a=2.5, b=3.5), (1000,))
    assert shifted.min() >= 2.5 and shifted.max() <= 3.5
    with pytest.raises(ValueError, match="probability mass"):
        sample(TruncatedNormal(a=10.0, b=11.0), (4,))


def test_custom_initializer_implements_initialize():
    from openspore.common.initializer import Initializer, initializer

    class Ramp(Initializer):
        def __init__(self, step):
            super().__init__(step=step)
            self.step = step

        def _initialize(self, arr):
            arr[...] = np.arange(arr.size).reshape(arr.shape) * self.step

    t = initializer(Ramp(0.5), [2, 3], ms.float32)
    assert t.asnumpy().tolist() == [[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]] and t.dtype == ms.float32
    p = ms.Parameter(initializer(Ramp(2), [3], ms.int32), name="p")
    assert p.asnumpy().tolist() == [0, 2, 4] and p.dtype == ms.int32
    assert Ramp(1)(np.zeros(2, np.float32)).tolist() == [0.0, 1.0]

    class Empty(Initializer):
        pass
    with pytest.raises(NotImplementedError, match="_initialize"):
        initializer(Empty(), [2]).asnumpy()


@pytest.mark.parametrize("shape", [(256, 300), (64, 32, 3, 3)])
def test_he_and_xavier(shape):
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(shape)
    hu = sample(HeUniform(), shape)  # leaky_relu with slope 0 → gain sqrt(2)
    bound = math.sqrt(3) * math.sqrt(2) / math.sqrt(fan_in)
    assert np.abs(hu).max() <= bound and np.abs(hu).max() > 0.98 * bound
    hu5 = sample(HeUniform(negative_slope=math.sqrt(5)), shape)  # the Dense/Conv default
    assert np.abs(hu5).max() <= 1 / math.sqrt(fan_in)
    hn = sample(HeNormal(mode="fan_out", nonlinearity="relu"), shape)
    assert hn.std() == pytest.approx(math.sqrt(2 / fan_out), rel=0.03)
    xu = sample(XavierUniform(gain=2.0), shape)
    limit = 2.0 * math.sqrt(6 / (fan_in + fan_out))
    assert np.abs(xu).max() <= limit and xu.std() == pytest.approx(limit / math.sqrt(3), rel=0.03)
    xn = sample(XavierNormal(), shape)
    assert xn.std() == pytest.approx(math.sqrt(2 / (fan_in + fan_out)), rel=0.03)
    with pytest.raises(ValueError, match="'mode'"):
        sample(HeNormal(mode="fan_avg"), shape)


def test_variance_scaling():
    shape = (200, 500)
    for dist in ("truncated_normal", "untruncated_normal", "uniform"):
        v = sample(VarianceScaling(scale=2.0, mode="fan_avg", distribution=dist), shape)
        assert v.std() == pytest.approx(math.sqrt(2.0 / 350), rel=0.03), dist
    t = sample(VarianceScaling(scale=1.0, distribution="truncated_normal"), shape)
    assert np.abs(t).max() <= 2 * math.sqrt(1 / 500) / 0.87962566103423978
    with pytest.raises(ValueError, match="distribution"):
        VarianceScaling(distribution="cauchy")


def test_structured_initializers():
    q = sample(Orthogonal(gain=2.0), (6, 10))
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(6), atol=1e-5)
    q = sample(Orthogonal(), (3, 2, 2, 2)).reshape(3, 8)
    np.testing.assert_allclose(q @ q.T, np.eye(3), atol=1e-5)
    np.testing.assert_array_equal(sample(Identity(), (3, 4)), np.eye(3, 4))
    dirac = sample(Dirac(groups=2), (4, 2, 3, 3))
    assert dirac.sum() == 4 and dirac[0, 0, 1, 1] == dirac[1, 1, 1, 1] == dirac[2, 0, 1, 1] == dirac[3, 1, 1, 1] == 1
    s = sample(Sparse(sparsity=0.5, sigma=0.1), (10, 30))
    assert ((s == 0).sum(axis=0) == 5).all()
    np.testing.assert_array_equal(sample(Zero(), (2, 3)), np.zeros((2, 3)))
    np.testing.assert_array_equal(sample(One(), (2,)), np.ones(2))
    np.testing.assert_array_equal(sample(Constant(0.25), (3,)), np.full(3, 0.25))
    np.testing.assert_array_equal(sample(7, (2,)), np.full(2, 7.0))
    with pytest.raises(ValueError, match="dimension"):
        sample(Identity(), (2, 2, 2))


def test_aliases():
    assert isinstance(init._resolve("zeros"), Zero) and isinstance(init._resolve("ZERO"), Zero)
    assert isinstance(init._resolve("ones"), One)
    for name, cls in [("he_uniform", HeUniform), ("heuniform", HeUniform), ("he_normal", HeNormal),
                      ("henormal", HeNormal), ("xavier_uniform", XavierUniform), ("xavier_normal", XavierNormal),
                      ("truncatednormal", TruncatedNormal), ("orthogonal", Orthogonal), ("dirac", Dirac),
                      ("identity", Identity), ("variancescaling", VarianceScaling), ("normal", Normal),
                      ("uniform", Uniform)]:
        assert isinstance(init._resolve(name), cls), name
    with pytest.raises(ValueError, match="must be one of"):
        init._resolve("glorot")
    with pytest.raises(ValueError, match="needs arguments"):
        init._resolve("sparse")
    with pytest.raises(TypeError):
        init._resolve([1])


def test_reproducible_under_set_seed():
    ms.set_seed(7)
    a = sample("he_uniform", (8, 8))
    b = sample(TruncatedNormal(), (8, 8))
    ms.set_seed(7)
    np.testing.assert_array_equal(sample("he_uniform", (8, 8)), a)
    np.testing.assert_array_equal(sample(TruncatedNormal(), (8, 8)), b)
    ms.set_seed(8)
    assert not np.array_equal(sample("he_uniform", (8, 8)), a)


def test_initializer_tensor_contract():
    t = initializer("normal", [2, 3], ms.float16)
    assert t.has_init and t.shape == (2, 3) and t.dtype == ms.float16
    assert t.init_data().asnumpy().dtype == np.float16
    assert initializer(Normal(sigma=5.0), 4, ms.int32).init_data().dtype == ms.int32
    existing = ms.Tensor(np.ones((2, 2), np.float32))
    assert initializer(existing, (2, 2)) is existing
    with pytest.raises(ValueError, match="differs"):
        initializer(existing, (3, 2))
    with pytest.raises(ValueError, match="shape"):
        initializer("zeros")
    with pytest.raises(ValueError, match="non-negative"):
        initializer("zeros", (2, -1))
    p = ms.Parameter(initializer("ones", (2,)), name="p")
    np.testing.assert_array_equal(p.asnumpy(), np.ones(2, np.float32))
    arr = np.zeros((3, 3), np.float32)
    assert One()(arr) is arr and arr.sum() == 9
