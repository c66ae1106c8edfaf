"""The OpenBLAS matrix products (backends/host_gemm.py) behind DenseGrad and BatchMatMul's torch kernels: taken
only at one thread on both sides, equal to torch's products and to the numpy reference kernels, into arena
views too, and never for what they do not cover."""
import numpy as np
import pytest
import torch
from threadpoolctl import threadpool_limits

from openspore.backends import host_gemm
from openspore.ops.defs.math import BatchMatMul
from openspore.ops.defs.nn import Dense, DenseGrad

pytestmark = pytest.mark.skipif(not host_gemm._openblas_threads(), reason="numpy's BLAS is not OpenBLAS")


@pytest.fixture
def one_thread(monkeypatch):
    """One thread on both sides, and every product large enough (the samples here are small)."""
    monkeypatch.setattr(host_gemm, "MIN_WORK", 0)
    monkeypatch.setitem(host_gemm._STATE, "single", True)  # single-matrix products on OpenBLAS whatever the CPU
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            yield
    finally:
        torch.set_num_threads(before)


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_taken_only_at_one_thread_for_cpu_floats(one_thread):
    a, b = torch.randn(3, 4), torch.randn(4, 5)
    assert host_gemm.usable(torch, a, b)
    assert not host_gemm.usable(torch, a.to(torch.float16), b.to(torch.float16))
    assert not host_gemm.usable(torch, a.to(torch.int64), b.to(torch.int64))
    assert not host_gemm.usable(torch, a, b.double())  # mixed dtypes: torch's kernel (and its error)
    assert not host_gemm.usable(torch, a.requires_grad_(), b)
    torch.set_num_threads(2)
    assert host_gemm.matmul(torch, torch.randn(3, 4), b) is None


def test_small_products_stay_on_torch(monkeypatch):
    monkeypatch.setitem(host_gemm._STATE, "single", True)
    assert not host_gemm.worth_it(32, 120, 400)  # LeNet's first gradient: the hand-over costs more than it gains
    assert host_gemm.worth_it(512, 128, 128) and host_gemm.worth_it(64, 64, 32, batch=32)
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            assert host_gemm.matmul(torch, torch.randn(3, 4), torch.randn(4, 5)) is None
            big = host_gemm.matmul(torch, torch.randn(256, 128), torch.randn(128, 256))
            assert big is not None and big.shape == (256, 256)
    finally:
        torch.set_num_threads(before)


def test_not_taken_when_blas_runs_threads_of_its_own():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=2, user_api="blas"):
            assert not host_gemm.usable(torch, torch.randn(3, 4), torch.randn(4, 5))
    finally:
        torch.set_num_threads(before)


def test_strided_batches_as_they_lie(one_thread):
    # the attention's operands: views of one (b, t, 3d) projection, transposed per head
    qkv = torch.randn(2, 6, 3 * 8)
    q = qkv[..., :8].reshape(2, 6, 2, 4).permute(0, 2, 1, 3)
    k = qkv[..., 8:16].reshape(2, 6, 2, 4).permute(0, 2, 3, 1)
    got = host_gemm.matmul(torch, q, k)
    _close(got, torch.matmul(q, k))
    out = torch.empty(2, 2, 6, 6)
    assert host_gemm.matmul(torch, q, k, out=out) is out
    _close(out, torch.matmul(q, k))


@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
def test_batch_matmul_kernel_matches_reference(one_thread, ta, tb):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 5, 4) if ta else (2, 3, 4, 5)).astype(np.float32)
    b = rng.standard_normal((2, 3, 6, 5) if tb else (2, 3, 5, 6)).astype(np.float32)
    prim = BatchMatMul(transpose_a=ta, transpose_b=tb)
    want = prim.numpy(np, a, b)
    _close(prim.torch(torch, torch.from_numpy(a), torch.from_numpy(b)), want)
    out = torch.empty(want.shape)
    assert prim.torch_out(torch, out, torch.from_numpy(a), torch.from_numpy(b)) is out
    _close(out, want)


def _check_dense_grad(prim, seed):
    """DenseGrad's torch kernel, returning fresh tensors and writing into given views, against its numpy kernel."""
    rng = np.random.default_rng(seed)
    dout, x, w = (rng.standard_normal(s).astype(np.float32) for s in ((2, 7, 5), (2, 7, 3), (5, 3)))
    want = prim.numpy(np, dout, x, w)
    args = [torch.from_numpy(v) for v in (dout, x, w)]
    for got, ref in zip(prim.torch(torch, *args), want, strict=True):
        _close(got, ref)
    views = tuple(torch.empty(r.shape) for r in want)
    for got, view, ref in zip(prim.torch_out(torch, views, *args), views, want, strict=True):
        assert got is view
        _close(view, ref)


@pytest.mark.parametrize("input_grad,bias_grad", [(True, True), (False, True), (True, False)])
def test_dense_grad_kernel_matches_reference(one_thread, input_grad, bias_grad):
    _check_dense_grad(DenseGrad(input_grad=input_grad, bias_grad=bias_grad), seed=1)


def test_dense_forward_on_onednn_matches_reference(one_thread):
    rng = np.random.default_rng(2)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((2, 7, 3), (5, 3), (5,)))
    tx, tw, tb = (torch.from_numpy(v) for v in (x, w, b))
    if host_gemm._onednn_ready(torch) and torch.backends.cpu.get_cpu_capability().startswith("AVX512"):
        assert host_gemm.linear(torch, tx, tw, tb) is not None
    else:  # no AVX-512: MKL's addmm measured the faster (host_gemm.py), torch's linear runs
        assert host_gemm.linear(torch, tx, tw, tb) is None
    assert host_gemm.linear(torch, tx.double(), tw.double(), tb.double()) is None  # oneDNN: float32 only
    assert host_gemm.linear(torch, tx.transpose(0, 1), tw, tb) is None  # strided: torch's linear
    prim = Dense()
    for bias in (b, None):
        want = prim.numpy(np, x, w, bias)
        _close(prim.torch(torch, tx, tw, None if bias is None else tb), want)


def _cpuinfo(tmp_path, text):
    path = tmp_path / "cpuinfo"
    path.write_text(text)
    return str(path)


def test_cpu_vendor_read_from_cpuinfo(tmp_path):
    intel = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
    assert host_gemm.cpu_vendor(_cpuinfo(tmp_path, intel)) == "GenuineIntel"
    amd = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9R14\n"
    assert host_gemm.cpu_vendor(_cpuinfo(tmp_path, amd)) == "AuthenticAMD"
    assert host_gemm.cpu_vendor(_cpuinfo(tmp_path, "processor\t: 0\nCPU implementer\t: 0x41\n")) == ""  # ARM
    assert host_gemm.cpu_vendor(str(tmp_path / "missing")) == ""


def test_single_products_choose_by_vendor(monkeypatch):
    for vendor, on_openblas in (("GenuineIntel", False), ("AuthenticAMD", True), ("", True)):
        monkeypatch.delitem(host_gemm._STATE, "single", raising=False)
        monkeypatch.setattr(host_gemm, "cpu_vendor", lambda vendor=vendor: vendor)
        assert host_gemm.single_products_on_openblas() is on_openblas


def test_mkl_keeps_single_products_but_not_strided_batches(one_thread, monkeypatch):
    # on Intel's processors MKL won the single-matrix products, OpenBLAS still the attention's strided batches
    monkeypatch.setitem(host_gemm._STATE, "single", False)
    a, b = torch.randn(6, 4), torch.randn(4, 5)
    assert host_gemm.matmul(torch, a, b) is None
    assert host_gemm.matmul(torch, a, b, out=torch.empty(6, 5)) is None
    qkv = torch.randn(2, 6, 3 * 8)
    q = qkv[..., :8].reshape(2, 6, 2, 4).permute(0, 2, 1, 3)
    k = qkv[..., 8:16].reshape(2, 6, 2, 4).permute(0, 2, 3, 1)
    got = host_gemm.matmul(torch, q, k)
    assert got is not None
    _close(got, torch.matmul(q, k))
    # DenseGrad's products then run on torch's kernels, into the arena views too, with the same results
    called = []
    monkeypatch.setattr(host_gemm, "matmul", lambda *a, **k: called.append(a) or None)
    _check_dense_grad(DenseGrad(), seed=3)
    assert not called
