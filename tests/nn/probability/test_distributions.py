"""nn.probability.distribution against scipy.stats (float64 references) and MindSpore 2.10's recorded behaviour."""
import math

import numpy as np
import pytest
from scipy import special, stats

import openspore as ms
from openspore import Tensor
import openspore.nn.probability.distribution as msd

X = np.array([0.5, 1.0, 6.0], np.float32)
UNIT = np.array([0.1, 0.5, 0.9], np.float32)
COUNTS = np.array([0.0, 1.0, 3.0], np.float32)

# (openspore distribution, scipy frozen distribution, values, functions to compare)
CONTINUOUS = ("prob", "log_prob", "cdf", "log_cdf", "survival_function", "log_survival")
CASES = {
    "Normal": (lambda: msd.Normal(3.0, 4.0), stats.norm(3.0, 4.0), X, CONTINUOUS),
    "Exponential": (lambda: msd.Exponential(0.5), stats.expon(scale=2.0), X, CONTINUOUS),
    "Uniform": (lambda: msd.Uniform(0.0, 2.0), stats.uniform(0.0, 2.0), np.array([0.5, 1.0, 1.5], np.float32),
                CONTINUOUS),
    "Gamma": (lambda: msd.Gamma(np.array([2.0], np.float32), np.array([3.0], np.float32)),
              stats.gamma(2.0, scale=1 / 3.0), X[:2], CONTINUOUS),
    "Beta": (lambda: msd.Beta(np.array([2.0], np.float32), np.array([3.0], np.float32)), stats.beta(2.0, 3.0),
             UNIT, ("prob", "log_prob")),
    "LogNormal": (lambda: msd.LogNormal(0.5, 0.8), stats.lognorm(0.8, scale=math.exp(0.5)), X, CONTINUOUS),
    "Logistic": (lambda: msd.Logistic(1.0, 2.0), stats.logistic(1.0, 2.0), X, CONTINUOUS),
    "Gumbel": (lambda: msd.Gumbel(1.0, 2.0), stats.gumbel_r(1.0, 2.0), X, CONTINUOUS),
    "Cauchy": (lambda: msd.Cauchy(1.0, 2.0), stats.cauchy(1.0, 2.0), X, CONTINUOUS),
    "Laplace": (lambda: msd.Laplace(1.0, 2.0), stats.laplace(1.0, 2.0), X, ("prob", "log_prob")),
    "StudentT": (lambda: msd.StudentT(3.0, 1.0, 2.0), stats.t(3.0, 1.0, 2.0), X, ("prob", "log_prob")),
    "HalfNormal": (lambda: msd.HalfNormal(0.0, 2.0), stats.halfnorm(0.0, 2.0), X, ("prob", "log_prob")),
    "Poisson": (lambda: msd.Poisson(np.array([2.0], np.float32)), stats.poisson(2.0), COUNTS, CONTINUOUS),
    "Bernoulli": (lambda: msd.Bernoulli(0.3), stats.bernoulli(0.3), np.array([0, 1, 1], np.int32), CONTINUOUS),
    "Geometric": (lambda: msd.Geometric(0.3), stats.geom(0.3, loc=-1), np.array([0, 1, 4], np.int32), CONTINUOUS),
}
SCIPY_NAMES = {"prob": "pdf", "log_prob": "logpdf", "cdf": "cdf", "log_cdf": "logcdf", "survival_function": "sf",
               "log_survival": "logsf"}
DISCRETE_NAMES = {"pdf": "pmf", "logpdf": "logpmf"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_probability_functions_match_scipy(name):
    make, ref, values, functions = CASES[name]
    dist = make()
    value = Tensor(values)
    for func in functions:
        ref_name = SCIPY_NAMES[func]
        if not hasattr(ref.dist, "pdf"):
            ref_name = DISCRETE_NAMES.get(ref_name, ref_name)
        got = getattr(dist, func)(value).asnumpy()
        want = getattr(ref, ref_name)(values.astype(np.float64))
        np.testing.assert_allclose(got.reshape(want.shape), want, rtol=2e-4, atol=1e-5, err_msg=f"{name}.{func}")
        assert got.dtype == np.float32


MOMENTS = {
    "Normal": (lambda: msd.Normal(3.0, 4.0), stats.norm(3.0, 4.0), ("mean", "var", "sd", "entropy")),
    "Exponential": (lambda: msd.Exponential(0.5), stats.expon(scale=2.0), ("mean", "var", "sd", "entropy")),
    "Uniform": (lambda: msd.Uniform(0.0, 2.0), stats.uniform(0.0, 2.0), ("mean", "var", "sd", "entropy")),
    "Gamma": (lambda: msd.Gamma(np.array([2.0], np.float32), np.array([3.0], np.float32)),
              stats.gamma(2.0, scale=1 / 3.0), ("mean", "var", "sd", "entropy")),
    "Beta": (lambda: msd.Beta(np.array([2.0], np.float32), np.array([3.0], np.float32)), stats.beta(2.0, 3.0),
             ("mean", "var", "sd", "entropy")),
    "LogNormal": (lambda: msd.LogNormal(0.5, 0.8), stats.lognorm(0.8, scale=math.exp(0.5)),
                  ("mean", "var", "sd", "entropy")),
    "Logistic": (lambda: msd.Logistic(1.0, 2.0), stats.logistic(1.0, 2.0), ("mean", "var", "sd", "entropy")),
    "Gumbel": (lambda: msd.Gumbel(1.0, 2.0), stats.gumbel_r(1.0, 2.0), ("mean", "var", "sd", "entropy")),
    "Cauchy": (lambda: msd.Cauchy(1.0, 2.0), stats.cauchy(1.0, 2.0), ("entropy",)),
    "Bernoulli": (lambda: msd.Bernoulli(0.3), stats.bernoulli(0.3), ("mean", "var", "sd", "entropy")),
    "Geometric": (lambda: msd.Geometric(0.3), stats.geom(0.3, loc=-1), ("mean", "var", "sd", "entropy")),
    "Poisson": (lambda: msd.Poisson(np.array([2.0], np.float32)), stats.poisson(2.0), ("mean", "var", "sd")),
    "Categorical": (lambda: msd.Categorical([0.2, 0.5, 0.3]), stats.rv_discrete(values=([0, 1, 2], [0.2, 0.5, 0.3])),
                    ("mean", "var", "sd", "entropy")),
}
SCIPY_MOMENTS = {"mean": "mean", "var": "var", "sd": "std", "entropy": "entropy"}


@pytest.mark.parametrize("name", sorted(MOMENTS))
def test_moments_match_scipy(name):
    make, ref, functions = MOMENTS[name]
    dist = make()
    for func in functions:
        got = getattr(dist, func)().asnumpy()
        want = float(getattr(ref, SCIPY_MOMENTS[func])())
        np.testing.assert_allclose(got.reshape(-1)[0], want, rtol=2e-5, atol=1e-6, err_msg=f"{name}.{func}")


def test_modes():
    assert float(msd.Normal(3.0, 4.0).mode().asnumpy()) == 3.0
    np.testing.assert_allclose(msd.LogNormal(0.5, 0.8).mode().asnumpy(), math.exp(0.5 - 0.64), rtol=1e-6)
    gamma = msd.Gamma(np.array([2.0], np.float32), np.array([3.0], np.float32))
    np.testing.assert_allclose(gamma.mode().asnumpy(), [1 / 3.0], rtol=1e-6)
    mode = msd.Categorical([0.2, 0.5, 0.3]).mode()
    assert mode.dtype == ms.int32 and int(mode.asnumpy()) == 1
    assert int(msd.Bernoulli(0.7).mode().asnumpy()) == 1 and int(msd.Bernoulli(0.3).mode().asnumpy()) == 0
    assert msd.Geometric(0.3).mode().dtype == ms.int32
    with pytest.raises(NotImplementedError, match="mode is not implemented for Uniform distribution"):
        msd.Uniform(0.0, 1.0).mode()


def _kl_numeric(log_p, log_q, grid):
    p = np.exp(log_p(grid))
    return np.trapezoid(p * (log_p(grid) - log_q(grid)), grid)


@pytest.mark.parametrize("name,make,other,ref_a,ref_b,grid", [
    ("Normal", lambda: msd.Normal(3.0, 4.0), (1.0, 2.0), stats.norm(3, 4), stats.norm(1, 2), np.linspace(-40, 45, 200001)),
    ("LogNormal", lambda: msd.LogNormal(0.5, 0.8), (1.0, 2.0), stats.lognorm(0.8, scale=math.exp(0.5)),
     stats.lognorm(2.0, scale=math.e), np.linspace(1e-6, 80, 400001)),
    ("Exponential", lambda: msd.Exponential(0.5), (2.0,), stats.expon(scale=2.0), stats.expon(scale=0.5),
     np.linspace(0, 80, 200001)),
    ("Gamma", lambda: msd.Gamma(np.array([2.0], np.float32), np.array([3.0], np.float32)), (1.5, 2.0),
     stats.gamma(2.0, scale=1 / 3), stats.gamma(1.5, scale=0.5), np.linspace(1e-8, 30, 400001)),
    ("Beta", lambda: msd.Beta(np.array([2.0], np.float32), np.array([3.0], np.float32)), (1.5, 2.0),
     stats.beta(2, 3), stats.beta(1.5, 2.0), np.linspace(1e-7, 1 - 1e-7, 400001)),
    ("Gumbel", lambda: msd.Gumbel(1.0, 2.0), (1.5, 3.0), stats.gumbel_r(1, 2), stats.gumbel_r(1.5, 3),
     np.linspace(-15, 80, 400001)),
    ("Cauchy", lambda: msd.Cauchy(1.0, 2.0), (1.5, 3.0), None, None, None),
    ("Uniform", lambda: msd.Uniform(0.0, 2.0), (-1.0, 3.0), None, None, None),
])
def test_kl_loss_and_cross_entropy(name, make, other, ref_a, ref_b, grid):
    dist = make()
    args = [Tensor(np.array([v], np.float32)) for v in other]
    kl = float(dist.kl_loss(name, *args).asnumpy().reshape(-1)[0])
    if ref_a is not None:
        want = _kl_numeric(ref_a.logpdf, ref_b.logpdf, grid)
    elif name == "Cauchy":  # closed form: log(((s_a + s_b)^2 + (m_a - m_b)^2) / (4 s_a s_b))
        want = math.log((5.0 ** 2 + 0.5 ** 2) / (4 * 2.0 * 3.0))
    else:  # U(0, 2) inside U(-1, 3): log(4 / 2)
        want = math.log(2.0)
    assert kl == pytest.approx(want, rel=1e-3, abs=1e-4)
    ce = float(dist.cross_entropy(name, *args).asnumpy().reshape(-1)[0])
    assert ce == pytest.approx(kl + float(dist.entropy().asnumpy().reshape(-1)[0]), rel=1e-5)
    with pytest.raises(ValueError, match=f"Expected dist input is {name}, but got Foo"):
        dist.kl_loss("Foo", *args)


def test_discrete_kl_losses():
    p_a, p_b = 0.3, 0.6
    kl = msd.Bernoulli(p_a).kl_loss("Bernoulli", Tensor(np.array([p_b], np.float32)))
    want = p_a * math.log(p_a / p_b) + (1 - p_a) * math.log((1 - p_a) / (1 - p_b))
    np.testing.assert_allclose(kl.asnumpy(), [want], rtol=1e-5)
    kl = msd.Geometric(p_a).kl_loss("Geometric", Tensor(np.array([p_b], np.float32)))
    k = np.arange(0, 400)
    want = np.sum(stats.geom(p_a, loc=-1).pmf(k) * (stats.geom(p_a, loc=-1).logpmf(k) - stats.geom(p_b, loc=-1).logpmf(k)))
    np.testing.assert_allclose(kl.asnumpy(), [want], rtol=1e-5)
    probs_b = np.array([0.3, 0.3, 0.4], np.float32)
    kl = msd.Categorical([0.2, 0.5, 0.3]).kl_loss("Categorical", Tensor(probs_b))
    np.testing.assert_allclose(kl.asnumpy(), special.rel_entr([0.2, 0.5, 0.3], probs_b).sum(), rtol=1e-5)
    # MindSpore 2.10 recorded: Categorical([0.2, 0.5, 0.3]).kl_loss('Categorical', [0.3, 0.3, 0.4]) -> 0.08801952
    np.testing.assert_allclose(kl.asnumpy(), 0.08801952, rtol=1e-4)


def test_per_call_parameters_override_the_constructor():
    n = msd.Normal(3.0, 4.0)
    x = Tensor(np.array([0.5, 1.0], np.float32))
    mean, sd = Tensor(np.array([0.0], np.float32)), Tensor(np.array([1.0], np.float32))
    np.testing.assert_allclose(n.log_prob(x, mean, sd).asnumpy(), stats.norm(0, 1).logpdf([0.5, 1.0]), rtol=1e-5)
    np.testing.assert_allclose(n.log_prob(x, mean).asnumpy(), stats.norm(0, 4).logpdf([0.5, 1.0]), rtol=1e-5)
    np.testing.assert_allclose(n.mean(mean=Tensor(np.array([7.0], np.float32))).asnumpy(), [7.0])
    np.testing.assert_allclose(n("prob", x).asnumpy(), stats.norm(3, 4).pdf([0.5, 1.0]), rtol=1e-5)
    empty = msd.Normal()
    np.testing.assert_allclose(empty.cdf(x, mean, sd).asnumpy(), stats.norm.cdf([0.5, 1.0]), rtol=1e-5)
    with pytest.raises(TypeError, match="the type mean must be subclass of Tensor. It can not be None"):
        empty.mean()
    args = n.get_dist_args()
    assert [float(a.asnumpy()) for a in args] == [3.0, 4.0] and n.get_dist_type() == "Normal"


def test_batch_shapes_broadcast_and_samples():
    n = msd.Normal([[2.0], [1.0]], [3.0, 4.0, 5.0])
    assert n.batch_shape == (2, 3)
    sample = n.sample((4,))
    assert sample.shape == (4, 2, 3) and sample.dtype == ms.float32
    assert msd.Normal(3.0, 4.0).sample().shape == ()
    cat = msd.Categorical([[0.2, 0.8], [0.5, 0.5]])
    np.testing.assert_allclose(cat.prob(Tensor(np.array([1, 0], np.int32))).asnumpy(), [0.8, 0.5], rtol=1e-6)
    np.testing.assert_allclose(cat.mean().asnumpy(), [[0.8], [0.5]], rtol=1e-6)
    draws = cat.sample((3,))
    assert draws.shape == (3, 2) and draws.dtype == ms.int32
    assert msd.Bernoulli(0.3).sample((2, 3)).dtype == ms.int32
    assert msd.Bernoulli(0.3, dtype=ms.float32).sample((2,)).dtype == ms.float32
    with pytest.raises(ValueError):
        msd.Normal([[2.0], [1.0]], [[2.0], [3.0], [4.0]])


@pytest.mark.parametrize("make,mean,var", [
    (lambda: msd.Normal(3.0, 4.0), 3.0, 16.0),
    (lambda: msd.Exponential(0.5), 2.0, 4.0),
    (lambda: msd.Uniform(0.0, 2.0), 1.0, 1 / 3),
    (lambda: msd.Gamma(np.array([2.0], np.float32), np.array([3.0], np.float32)), 2 / 3, 2 / 9),
    (lambda: msd.Beta(np.array([2.0], np.float32), np.array([3.0], np.float32)), 0.4, 0.04),
    (lambda: msd.Poisson(np.array([2.0], np.float32)), 2.0, 2.0),
    (lambda: msd.Bernoulli(0.3), 0.3, 0.21),
    (lambda: msd.Geometric(0.3), 7 / 3, 0.7 / 0.09),
    (lambda: msd.Categorical([0.2, 0.5, 0.3]), 1.1, 0.49),
    (lambda: msd.LogNormal(0.5, 0.8), math.exp(0.82), (math.exp(0.64) - 1) * math.exp(1.64)),
    (lambda: msd.Logistic(1.0, 2.0), 1.0, 4 * math.pi ** 2 / 3),
    (lambda: msd.Gumbel(1.0, 2.0), 1.0 + 2 * np.euler_gamma, 4 * math.pi ** 2 / 6),
])
def test_sample_moments(make, mean, var):
    ms.set_seed(7)
    draws = make().sample((40000,)).asnumpy().astype(np.float64).reshape(-1)
    # a generous bound: 6 standard errors of the sample mean
    assert abs(draws.mean() - mean) < 6 * math.sqrt(var / draws.size) + 1e-3
    assert abs(draws.var() - var) < 0.1 * var


def test_construction_errors_match_mindspore():
    with pytest.raises(TypeError):
        msd.Normal(0.0, 1.0, dtype=ms.int32)
    with pytest.raises(TypeError):
        msd.Normal(0.0, 1.0, name=1.0)
    with pytest.raises(TypeError):
        msd.Normal(0.0, 1.0, seed="seed")
    with pytest.raises(ValueError, match="Standard deviation must be greater than zero"):
        msd.Normal(0.0, 0.0)
    with pytest.raises(ValueError, match="Probabilities must be less than one"):
        msd.Bernoulli(1.5)
    with pytest.raises(ValueError, match="should sum to one"):
        msd.Categorical([0.2, 0.5, 0.4])
    with pytest.raises(ValueError, match="low must be less than high"):
        msd.Uniform(1.0, 0.0)
    with pytest.raises(ValueError, match="rate must be greater than zero"):
        msd.Exponential(-0.5)
    with pytest.raises(TypeError, match="can't be scalar"):
        msd.Gamma(2.0, 3.0)
    with pytest.raises(ValueError, match="mean is undefined for Cauchy"):
        msd.Cauchy(1.0, 2.0).mean()
    with pytest.raises(TypeError):
        msd.Normal(3.0, 4.0).prob(0.5)
    assert repr(msd.Normal(3.0, 4.0)) == "Normal(mean = 3.0, standard deviation = 4.0)"
    assert repr(msd.Bernoulli(0.3)) == "Bernoulli(probs = 0.3)"


def test_value_dtypes_follow_mindspore():
    n = msd.Normal(3.0, 4.0)
    for value in (Tensor(np.array([1], np.int32)), Tensor(np.array([1.0], np.float16))):
        out = n.prob(value)
        assert out.dtype == ms.float32
        np.testing.assert_allclose(out.asnumpy(), [0.08801611512899399], rtol=1e-5)  # MindSpore 2.10's value
    out = msd.Normal(0.0, 1.0, dtype=ms.float64).prob(Tensor(np.array([1.0])))
    assert out.dtype == ms.float64
    np.testing.assert_allclose(out.asnumpy(), [stats.norm.pdf(1.0)], rtol=1e-12)


def test_poisson_samples_an_int_dtype():
    poisson = msd.Poisson(np.array([2.0], np.float32), dtype=ms.int32)
    draws = poisson.sample((1000,))
    assert draws.dtype == ms.int32 and draws.shape == (1000, 1)
    assert poisson.mean().dtype == ms.float32
    np.testing.assert_allclose(poisson.prob(Tensor(np.array([1], np.int32))).asnumpy(), [2 * math.exp(-2)], rtol=1e-5)
    with pytest.raises(TypeError):
        msd.Exponential(0.5, dtype=ms.int32)
