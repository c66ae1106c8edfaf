"""MindSpore Primitive classes computed as composites; expected values printed by MindSpore 2.10."""
import numpy as np
import pytest

import openspore as ms
from openspore.ops import operations as P

X = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
Y = ms.Tensor(np.array([[1.0, 0.0, 2.0], [0.5, 0.0, -1.0]], np.float32))


def close(got, want):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want, np.float64), rtol=1e-4, atol=1e-5)


def test_shape_queries_and_aliases():
    assert (P.Shape()(X), P.Rank()(X), P.Size()(X), P.DType()(X)) == ((2, 3), 2, 6, ms.float32)
    assert P.TensorShape()(X).asnumpy().tolist() == [2, 3]
    assert P.TupleToArray()((1, 2.5)).dtype == ms.float32 and P.ScalarToTensor()(3, ms.int32).dtype == ms.int32
    assert P.GatherV2 is P.Gather and P.Pack is P.Stack and ms.ops.TensorAdd is ms.ops.Add
    assert P.InvertPermutation()((3, 4, 0, 2, 1)) == (2, 4, 3, 0, 1)


@pytest.mark.parametrize("fn, want", [
    (lambda: P.L2Normalize(axis=1)(X), [[0.0, 0.44721, 0.89443], [0.42426, 0.56569, 0.70711]]),
    (lambda: P.ReverseSequence(1)(X, ms.Tensor(np.array([2, 3]))), [[1, 0, 2], [5, 4, 3]]),
    (lambda: P.CumulativeLogsumexp()(X, ms.Tensor(1)), [[0.0, 1.31326, 2.40761], [3.0, 4.31326, 5.40761]]),
    (lambda: P.CumulativeLogsumexp(True, True)(X, 1), [[2.31326, 2.0, -3.40282e38], [5.31326, 5.0, -3.40282e38]]),
    (lambda: P.ReduceStd(1)(X)[0], [1.0, 1.0]),
    (lambda: P.DivNoNan()(X, Y), [[0, 0, 1], [6, 0, -5]]),
    (lambda: P.MulNoNan()(X, Y), [[0, 0, 4], [1.5, 0, -5]]),
    (lambda: P.SigmoidCrossEntropyWithLogits()(Y, X / 5), [[1.31326, 0.69315, 1.32693], [0.67408, 0.69315, 1.31326]]),
    (lambda: P.EqualCount()(X, X), [6.0]),
    (lambda: P.TruncateDiv()(X - 3, Y + 3), [[0, 0, 0], [0, 0, 1]]),
    (lambda: P.TruncateMod()(X - 3, Y + 3), [[-3, -2, -1], [0, 1, 0]]),
    (lambda: P.L2Loss()(X), 27.5),
    (lambda: P.Addcmul()(X, X, Y, ms.Tensor(2.0)), [[0, 1, 10], [6, 4, -5]]),
    (lambda: P.Lerp()(X, Y, 0.3), [[0.3, 0.7, 2.0], [2.25, 2.8, 3.2]]),
    (lambda: P.Logit(0.1)(Y / 3), [[-0.69315, -2.19722, 0.69315], [-1.60944, -2.19722, -2.19722]]),
    (lambda: P.HammingWindow()(ms.Tensor([5])), [0.08, 0.39785, 0.91215, 0.91215, 0.39785]),
    (lambda: P.TrilIndices(3, 3)(), [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]),
    (lambda: P.Cdist()(X, Y), [[1.41421, 3.20156], [5.38516, 7.63217]]),
    (lambda: P.Renorm(2, 0, 3.0)(X), [[0, 1, 2], [1.27279, 1.69706, 2.12132]]),
    (lambda: P.Bucketize([1.0, 3.0])(X), [[0, 1, 1], [2, 2, 2]]),
])
def test_against_mindspore_values(fn, want):
    close(fn(), want)


def test_attribute_errors_and_in_place_scatter():
    with pytest.raises(TypeError, match="unknown attributes"):
        P.L2Normalize(axes=1)
    p = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="p")
    P.ScatterNdUpdate()(p, ms.Tensor(np.array([[1]], np.int32)), ms.Tensor(np.array([7.0], np.float32)))
    assert p.asnumpy().tolist() == [0.0, 7.0, 0.0]
