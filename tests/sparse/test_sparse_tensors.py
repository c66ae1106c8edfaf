"""COOTensor / CSRTensor / RowTensor against scipy.sparse and dense numpy: conversions, products, reductions,
arithmetic, bad input, and sparse tensors as Cell inputs and outputs in PyNative and GRAPH_MODE."""
import numpy as np
import pytest
import scipy.sparse as sp

import openspore as ms
from openspore import COOTensor, CSRTensor, RowTensor, SparseTensor, Tensor, nn, ops


def _random_coo(rng, shape=(5, 7), nnz=9, duplicates=False):
    cells = rng.choice(shape[0] * shape[1], size=nnz, replace=duplicates)
    rows, cols = np.unravel_index(cells, shape)
    values = rng.standard_normal(nnz).astype(np.float32)
    return rows, cols, values


def _coo(rows, cols, values, shape, dtype=np.int32):
    return COOTensor(Tensor(np.stack([rows, cols], 1).astype(dtype)), Tensor(values), shape)


def _csr_of(matrix):
    m = sp.csr_matrix(matrix)
    return CSRTensor(Tensor(m.indptr.astype(np.int32)), Tensor(m.indices.astype(np.int32)),
                     Tensor(m.data.astype(np.float32)), m.shape), m


# ---- COO --------------------------------------------------------------------------------------------
def test_coo_to_dense_sums_duplicates_like_scipy():
    rng = np.random.default_rng(0)
    rows, cols, values = _random_coo(rng, nnz=12, duplicates=True)
    want = sp.coo_matrix((values, (rows, cols)), shape=(5, 7)).toarray()
    np.testing.assert_allclose(_coo(rows, cols, values, (5, 7)).to_dense().asnumpy(), want, rtol=1e-6)


def test_coo_to_csr_sorts_unsorted_entries_like_scipy():
    rng = np.random.default_rng(1)
    rows, cols, values = _random_coo(rng)
    csr = _coo(rows, cols, values, (5, 7)).to_csr()
    want = sp.coo_matrix((values, (rows, cols)), shape=(5, 7)).tocsr()
    want.sort_indices()
    np.testing.assert_array_equal(csr.indptr.asnumpy(), want.indptr)
    np.testing.assert_array_equal(csr.indices.asnumpy(), want.indices)
    np.testing.assert_allclose(csr.values.asnumpy(), want.data)
    assert csr.shape == (5, 7) and isinstance(csr, CSRTensor)


def test_coalesce_merges_duplicates_in_row_major_order():
    rows, cols = np.array([2, 0, 2, 1, 0]), np.array([1, 3, 1, 0, 3])
    values = np.array([1., 2., 3., 4., 5.], np.float32)
    merged = _coo(rows, cols, values, (3, 4), np.int64).coalesce()
    want = sp.coo_matrix((values, (rows, cols)), shape=(3, 4)).tocsr().tocoo()
    np.testing.assert_array_equal(merged.indices.asnumpy(), np.stack([want.row, want.col], 1))
    np.testing.assert_allclose(merged.values.asnumpy(), want.data)


def test_coo_arithmetic_against_dense():
    rng = np.random.default_rng(2)
    rows, cols, values = _random_coo(rng)
    x = _coo(rows, cols, values, (5, 7))
    dense = x.to_dense().asnumpy()
    other = rng.uniform(1, 2, (5, 7)).astype(np.float32)
    np.testing.assert_allclose((x + Tensor(other)).asnumpy(), dense + other, rtol=1e-6)
    np.testing.assert_allclose((x * Tensor(other)).to_dense().asnumpy(), dense * other, rtol=1e-6)
    np.testing.assert_allclose((x / Tensor(other)).to_dense().asnumpy(), dense / other, rtol=1e-6)
    np.testing.assert_allclose((-x).to_dense().asnumpy(), -dense)
    np.testing.assert_allclose(x.abs().to_dense().asnumpy(), np.abs(dense))
    assert x.astype(ms.float64).dtype == ms.float64 and x.ndim == 2 and x.size == values.size


def test_coo_add_and_threshold():
    a = _coo(np.array([0, 1]), np.array([1, 2]), np.array([1., 2.], np.float32), (3, 4))
    b = _coo(np.array([0, 1]), np.array([0, 2]), np.array([3., -1.9], np.float32), (3, 4))
    total = ops.coo_add(a, b, Tensor(np.float32(0.0)))
    np.testing.assert_allclose(total.to_dense().asnumpy(), a.to_dense().asnumpy() + b.to_dense().asnumpy(),
                               rtol=1e-6)
    kept = ops.coo_add(a, b, Tensor(np.float32(0.5)))  # 2 - 1.9 = 0.1 falls under the threshold
    assert kept.indices.asnumpy().tolist() == [[0, 0], [0, 1]]


def test_coo_concat_matches_scipy_hstack_and_vstack():
    rng = np.random.default_rng(3)
    parts = [_random_coo(rng, (3, 4), 4), _random_coo(rng, (3, 4), 5)]
    mats = [sp.coo_matrix((v, (r, c)), shape=(3, 4)) for r, c, v in parts]
    coos = tuple(_coo(r, c, v, (3, 4), np.int64) for r, c, v in parts)
    for dim, stack in ((0, sp.vstack), (1, sp.hstack)):
        out = ops.coo_concat(coos, dim)
        np.testing.assert_allclose(out.to_dense().asnumpy(), stack(mats).toarray(), rtol=1e-6)
        lin = out.indices.asnumpy() @ np.array([out.shape[1], 1])
        assert (np.diff(lin) > 0).all()  # sorted row-major


# ---- CSR --------------------------------------------------------------------------------------------
def _random_matrix(rng, shape=(6, 5), density=0.4):
    return sp.random(*shape, density=density, random_state=np.random.RandomState(int(rng.integers(1 << 30))),
                     dtype=np.float32).toarray()


def test_csr_conversions_match_scipy():
    rng = np.random.default_rng(4)
    matrix = _random_matrix(rng)
    csr, ref = _csr_of(matrix)
    np.testing.assert_allclose(csr.to_dense().asnumpy(), matrix)
    coo = csr.to_coo()
    ref_coo = ref.tocoo()
    np.testing.assert_array_equal(coo.indices.asnumpy(), np.stack([ref_coo.row, ref_coo.col], 1))
    np.testing.assert_array_equal(ops.csr2coo(csr.indptr, ref.nnz).asnumpy(), ref_coo.row)
    np.testing.assert_array_equal(ops.coo2csr(Tensor(ref_coo.row.astype(np.int32)), 6).asnumpy(), ref.indptr)
    dense_csr = ops.dense_to_sparse_csr(Tensor(matrix))
    np.testing.assert_array_equal(dense_csr.indptr.asnumpy(), ref.indptr)
    np.testing.assert_array_equal(dense_csr.indices.asnumpy(), ref.indices)
    dense_coo = Tensor(matrix).to_coo()
    np.testing.assert_allclose(dense_coo.to_dense().asnumpy(), matrix)


def test_csr_products_and_sums_match_scipy():
    rng = np.random.default_rng(5)
    matrix = _random_matrix(rng)
    csr, ref = _csr_of(matrix)
    vector = rng.standard_normal((5, 1)).astype(np.float32)
    block = rng.standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(csr.mv(Tensor(vector)).asnumpy(), ref @ vector, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(csr.mm(Tensor(block)).asnumpy(), ref @ block, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(csr.sum(1).asnumpy(), ref.sum(axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.csr_reduce_sum(csr, 0).asnumpy(), ref.sum(axis=0), rtol=1e-5, atol=1e-6)


def test_csr_times_csr_matches_scipy_structure_and_values():
    rng = np.random.default_rng(6)
    left, right = _random_matrix(rng, (4, 5)), _random_matrix(rng, (5, 3))
    (a, ra), (b, rb) = _csr_of(left), _csr_of(right)
    product = ops.csr_mm(a, b)
    want = (ra @ rb).tocsr()
    want.sort_indices()
    np.testing.assert_allclose(product.to_dense().asnumpy(), want.toarray(), rtol=1e-5, atol=1e-6)
    assert product.indptr.asnumpy().tolist() == want.indptr.tolist()  # scipy keeps structural zeros too


def test_csr_add_mul_div_softmax():
    rng = np.random.default_rng(7)
    m1, m2 = _random_matrix(rng), _random_matrix(rng)
    (a, ra), (b, rb) = _csr_of(m1), _csr_of(m2)
    total = ops.csr_add(a, b, Tensor(np.float32(2.0)), Tensor(np.float32(-0.5)))
    np.testing.assert_allclose(total.to_dense().asnumpy(), (2 * ra - 0.5 * rb).toarray(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose((a + b).to_dense().asnumpy(), m1 + m2, rtol=1e-6)
    scale = rng.uniform(1, 2, (1, 5)).astype(np.float32)
    np.testing.assert_allclose((a * Tensor(scale)).to_dense().asnumpy(), m1 * scale, rtol=1e-6)
    np.testing.assert_allclose((a / Tensor(scale)).to_dense().asnumpy(), m1 / scale, rtol=1e-6)
    soft = ops.csr_softmax(a).values.asnumpy()
    for r in range(6):
        row = ra.data[ra.indptr[r]:ra.indptr[r + 1]]
        if row.size:
            want = np.exp(row - row.max()) / np.exp(row - row.max()).sum()
            np.testing.assert_allclose(soft[ra.indptr[r]:ra.indptr[r + 1]], want, rtol=1e-5)


def test_unary_functions_apply_to_stored_values():
    csr, ref = _csr_of(np.array([[0., 0.25, 0.], [0.5, 0., 0.9]], np.float32))
    for name in ("sqrt", "sin", "tanh", "sigmoid", "log1p", "square", "softsign", "relu6"):
        got = getattr(ops, f"csr_{name}")(csr)
        want = getattr(ops, name)(Tensor(ref.data)).asnumpy()
        np.testing.assert_allclose(got.values.asnumpy(), want, rtol=1e-6)
        assert got.indptr is csr.indptr
    assert ops.coo_isnan(csr.to_coo()).values.dtype == ms.bool_


def test_row_tensor_and_sparse_tensor():
    rows = RowTensor(Tensor([0, 2]), Tensor(np.array([[1., 2.], [3., 4.]], np.float32)), (3, 2))
    assert rows.dense_shape == (3, 2) and ops.row_tensor_get_dense_shape(rows) == (3, 2)
    both = ops.row_tensor_add(rows, ops.make_row_tensor(Tensor([2]), Tensor(np.ones((1, 2), np.float32)), (3, 2)))
    np.testing.assert_allclose(both.to_dense().asnumpy(), [[1, 2], [0, 0], [4, 5]])
    old = SparseTensor(Tensor([[0, 1]]), Tensor([5.]), (2, 2))
    assert old.shape == (2, 2) and ops.make_sparse_tensor(old.indices, old.values, old.shape).values is old.values


# ---- bad input -------------------------------------------------------------------------------------
def test_bad_constructor_arguments_name_the_argument():
    with pytest.raises(TypeError, match="'indices' must be an int16/int32/int64"):
        COOTensor(Tensor([[0., 1.]]), Tensor([1.]), (2, 2))
    with pytest.raises(ValueError, match="'values' must have one entry per row of 'indices'"):
        COOTensor(Tensor([[0, 1]]), Tensor([1., 2.]), (2, 2))
    with pytest.raises(ValueError, match="'shape'"):
        COOTensor(Tensor([[0, 1]]), Tensor([1.]), (2, 2, 2))
    with pytest.raises(ValueError, match="'indptr' must have shape\\[0\\] \\+ 1 = 3"):
        CSRTensor(Tensor([0, 1]), Tensor([0]), Tensor([1.]), (2, 2))
    with pytest.raises(TypeError, match="'shape' must be a tuple of positive ints"):
        CSRTensor(Tensor([0, 1, 1]), Tensor([0]), Tensor([1.]), (2, -2))


def test_out_of_range_indices_are_an_error_naming_the_argument():
    with pytest.raises(ValueError, match="'indices' holds 5 in column 1, out of range \\[0, 4\\)"):
        COOTensor(Tensor([[0, 5]]), Tensor([1.]), (3, 4)).to_dense()
    with pytest.raises(ValueError, match="'x1_indices' holds 3"):
        ops.SparseTensorDenseAdd()(Tensor([[3, 0]]), Tensor([1.]), Tensor([3, 3]), ops.ones((3, 3)))
    with pytest.raises(ValueError, match="'dense_vector' must have shape \\(4, 1\\)"):
        _csr_of(np.eye(3, 4, dtype=np.float32))[0].mv(ops.ones((3, 1)))


# ---- gradients through values -----------------------------------------------------------------------
def test_gradients_through_values_match_the_dense_computation():
    rng = np.random.default_rng(8)
    matrix = _random_matrix(rng, (4, 5), 0.5)
    csr, ref = _csr_of(matrix)
    vector = Tensor(rng.standard_normal((5, 1)).astype(np.float32))
    weight = rng.standard_normal((4, 1)).astype(np.float32)

    def sparse_loss(values):
        c = CSRTensor(csr.indptr, csr.indices, values, csr.shape)
        return (ops.csr_softmax(c).mv(vector) * Tensor(weight)).sum() + (c * Tensor(matrix + 1)).values.sum()

    grad = ms.grad(sparse_loss)(csr.values).asnumpy()
    # the same loss in numpy, differentiated by central differences in float64
    rows = np.repeat(np.arange(4), np.diff(ref.indptr))

    def dense_loss(values):
        out = 0.0
        for r in range(4):
            seg = values[rows == r]
            p = np.exp(seg - seg.max()) / np.exp(seg - seg.max()).sum() if seg.size else seg
            out += weight[r, 0] * (p @ vector.asnumpy()[ref.indices[rows == r], 0])
        return out + (values * (matrix[rows, ref.indices] + 1)).sum()

    base = ref.data.astype(np.float64)
    numeric = np.array([(dense_loss(base + e) - dense_loss(base - e)) / 2e-6 for e in np.eye(base.size) * 1e-6])
    np.testing.assert_allclose(grad, numeric, rtol=1e-3, atol=1e-4)


def test_gradients_of_coo_ops_match_dense_gradients():
    rng = np.random.default_rng(9)
    rows, cols, values = _random_coo(rng, (4, 3), 6)
    indices = Tensor(np.stack([rows, cols], 1).astype(np.int32))
    dense = Tensor(rng.standard_normal((3, 2)).astype(np.float32))

    def via_coo(v):
        x = COOTensor(indices, v, (4, 3))
        return (ops.SparseTensorDenseMatmul()(x.indices, x.values, x.shape, dense) ** 2).sum() + x.coalesce().values.sum()

    def via_dense(full):
        return (ops.matmul(full, dense) ** 2).sum() + full.sum()

    full = COOTensor(indices, Tensor(values), (4, 3)).to_dense()
    want = ms.grad(via_dense)(full).asnumpy()[rows, cols]
    np.testing.assert_allclose(ms.grad(via_coo)(Tensor(values)).asnumpy(), want, rtol=1e-5, atol=1e-6)


# ---- Cells, PyNative and GRAPH_MODE -------------------------------------------------------------------
class _CooNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.traced = 0

    def construct(self, x, bias):
        self.traced += 1
        y = ops.coo_relu(x)
        return y.to_dense() + bias, COOTensor(y.indices, y.values * 2, y.shape)


class _CsrNet(nn.Cell):
    def construct(self, c, v):
        return c.mv(v), c.sum(1), ops.csr_mul(c, v.reshape(1, -1))


def _coo_input():
    return _coo(np.array([0, 2, 1]), np.array([1, 3, 0]), np.array([-1., 2., 3.], np.float32), (3, 4))


def test_sparse_tensors_pass_through_cells_in_pynative():
    dense, doubled = _CooNet()(_coo_input(), ops.ones((3, 4)))
    want = np.ones((3, 4), np.float32)
    want[2, 3], want[1, 0] = 3., 4.
    np.testing.assert_allclose(dense.asnumpy(), want)
    assert isinstance(doubled, COOTensor) and doubled.values.asnumpy().tolist() == [0., 4., 6.]


def test_sparse_tensors_are_graph_inputs_and_outputs(graph_mode):
    net = _CooNet()
    first = net(_coo_input(), ops.ones((3, 4)))
    second = net(_coo_input(), ops.ones((3, 4)))
    assert net.traced == 1  # compiled once, then run from the graph
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = _CooNet()(_coo_input(), ops.ones((3, 4)))
    for got in (first, second):
        np.testing.assert_allclose(got[0].asnumpy(), eager[0].asnumpy())
        assert isinstance(got[1], COOTensor) and got[1].shape == (3, 4)
        np.testing.assert_allclose(got[1].values.asnumpy(), eager[1].values.asnumpy())
    ms.set_context(mode=ms.GRAPH_MODE)
    csr, ref = _csr_of(np.array([[0., 2., 0.], [1., 0., 3.]], np.float32))
    mv, sums, scaled = _CsrNet()(csr, Tensor(np.array([[1.], [2.], [3.]], np.float32)))
    np.testing.assert_allclose(mv.asnumpy(), ref @ np.array([[1.], [2.], [3.]]))
    np.testing.assert_allclose(sums.asnumpy(), ref.sum(axis=1))
    assert isinstance(scaled, CSRTensor) and scaled.values.asnumpy().tolist() == [4., 1., 9.]


def test_nn_sparse_layers_in_both_modes(graph_mode):
    x = _coo_input()
    matrix = np.arange(8, dtype=np.float32).reshape(4, 2)
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=mode)
        dense = nn.SparseToDense()(x).asnumpy()
        np.testing.assert_allclose(dense, sp.coo_matrix((x.values.asnumpy(), tuple(x.indices.asnumpy().T)),
                                                        shape=(3, 4)).toarray())
        out = nn.SparseTensorDenseMatmul()(x.indices, x.values, x.shape, Tensor(matrix))
        np.testing.assert_allclose(out.asnumpy(), dense @ matrix, rtol=1e-6)
    with pytest.raises(TypeError, match="must be a COOTensor"):
        nn.SparseToDense()(Tensor(dense))


class _SumNet(nn.Cell):
    def construct(self, coo, csr):
        tripled = ops.csr_add(csr, csr, Tensor(np.float32(1.0)), Tensor(np.float32(2.0)))
        return coo + coo, tripled, coo.coalesce(), tripled.to_dense(), tripled.sum(1)


def test_sums_and_coalesce_compile_with_value_dependent_sizes(graph_mode):
    coo = _coo(np.array([0, 0, 2]), np.array([1, 1, 3]), np.array([1., 2., 3.], np.float32), (3, 4), np.int64)
    csr, ref = _csr_of(np.array([[0., 2., 0.], [1., 0., 3.]], np.float32))
    doubled, tripled, merged, dense, sums = _SumNet()(coo, csr)
    np.testing.assert_allclose(dense.asnumpy(), 3 * ref.toarray())  # formed inside the graph
    np.testing.assert_allclose(sums.asnumpy(), 3 * ref.sum(axis=1))
    assert isinstance(doubled, COOTensor) and isinstance(tripled, CSRTensor)
    np.testing.assert_allclose(doubled.to_dense().asnumpy(), 2 * coo.to_dense().asnumpy())
    np.testing.assert_allclose(tripled.to_dense().asnumpy(), 3 * ref.toarray())
    assert merged.indices.asnumpy().tolist() == [[0, 1], [2, 3]] and merged.values.asnumpy().tolist() == [3., 3.]


class _SquaredNorm(nn.Cell):
    def construct(self, x, weight):
        return ((x.to_dense() * weight) ** 2).sum()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_gradient_with_respect_to_a_sparse_input_is_sparse(mode):
    ms.set_context(mode=mode)
    weight = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    coo = _coo_input()
    grad = ms.grad(_SquaredNorm())(coo, weight)
    assert isinstance(grad, COOTensor) and grad.indices is coo.indices and grad.shape == coo.shape
    w = weight.asnumpy()[tuple(coo.indices.asnumpy().T)]
    np.testing.assert_allclose(grad.values.asnumpy(), 2 * coo.values.asnumpy() * w * w)
    csr, ref = _csr_of(np.array([[0., 2., 0., 1.], [1., 0., 3., 0.], [0., 0., 0., 5.]], np.float32))
    grad = ops.GradOperation()(_SquaredNorm())(csr, weight)
    assert isinstance(grad, CSRTensor) and grad.indptr is csr.indptr
    rows = np.repeat(np.arange(3), np.diff(ref.indptr))
    w = weight.asnumpy()[rows, ref.indices]
    np.testing.assert_allclose(grad.values.asnumpy(), 2 * ref.data * w * w)


class _RowNet(nn.Cell):
    """MindSpore's RowTensor docstring example."""

    def __init__(self, dense_shape):
        super().__init__()
        self.dense_shape = dense_shape

    def construct(self, indices, values):
        x = RowTensor(indices, values, self.dense_shape)
        return x.values, x.indices, x.dense_shape


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_row_tensor_docstring_example(mode):
    ms.set_context(mode=mode)
    out = _RowNet((3, 2))(Tensor([0]), Tensor([[1, 2]], dtype=ms.float32))
    assert out[0].asnumpy().tolist() == [[1., 2.]] and out[1].asnumpy().tolist() == [0] and out[2] == (3, 2)


def test_public_paths():
    import openspore.common as common
    from openspore.ops import functional, operations
    for name in ("COOTensor", "CSRTensor", "RowTensor", "SparseTensor"):
        assert getattr(common, name) is getattr(ms, name)
    for name in ("SparseToDense", "SparseTensorDenseMatmul", "Coalesce", "FusedSparseAdam", "SparseApplyFtrlV2"):
        assert getattr(operations, name) is getattr(ops, name)
    assert functional.csr_mv is ops.csr_mv and functional.make_coo_tensor is ops.make_coo_tensor
    assert nn.SparseToDense and nn.SparseTensorDenseMatmul
