"""Matrix products of CPU float tensors on numpy's BLAS, where that is OpenBLAS and both libraries run one thread.

Why: torch's CPU wheel multiplies matrices with MKL, which on AMD processors takes a generic code path, and
`torch.matmul` over a batch of strided matrices (the attention's q, kᵀ and v, views of one qkv projection) first
copies both operands contiguous, since `bmm` needs a single batch stride. numpy's OpenBLAS (0.3.31 in numpy's
wheel, DYNAMIC_ARCH) has Zen kernels, and numpy's matmul hands each matrix of a strided batch to BLAS as it lies
(leading dimension and transpose flag), with no copy. Measured on the benchmark machine (AMD EPYC, Zen 4, one
thread, fastest of 300 interleaved calls, the GPT benchmark's shapes): dWeight = gᵀx for 512×128×512 takes
672 µs on OpenBLAS against 810 µs on MKL, dInput = g·W 657 against 751 µs, the attention's strided 4-D product
135 against 156 µs; summed over one GPT training step's products (per-node minimum over 15 steps), DenseGrad
21.1 against 22.0 ms and BatchMatMul 3.7 against 5.1 ms.

Dense's forward product with its bias (`linear`) was level on OpenBLAS (it needs a second pass for the bias) but
faster on oneDNN, torch's other CPU library (its AVX-512 kernels are chosen by CPU feature, not by vendor):
GPT's four forward shapes, fastest of 400 calls, summed per step, 8.8 ms against 9.5 ms on MKL's addmm. That
holds where torch finds AVX-512 (`torch.backends.cpu.get_cpu_capability()`): on an AVX2-only AMD EPYC (Zen 3,
family 25 model 1), MKL's addmm was the faster one at every shape measured (GPT's, 512x128 by 384/128/512 and
512x512 by 128, 10-25%; the MLP's 128x784 by 512 and 128x512 by 512, 9-14%; interleaved calls, CPU time, a
loaded machine) and the benchmark MLP's whole training step 2-10% faster, so there Dense keeps torch's `linear`.

On Intel's processors MKL is on its own ground, and there the single-matrix products stay on it. Measured on an
Intel Xeon with AVX-512 (KVM guest, family 6, 2 cores; one thread, 400 interleaved calls, thread CPU time,
fastest/median in µs, load 6.5-7): DenseGrad's dInput = g·W took 266/357 on MKL against 348/476 on OpenBLAS for
GPT's qkv (512x384 by 384x128), 378/468 against 436/639 for fc1, 552/710 against 721/950 for the MLP's first layer
(128x512 by 512x784); dWeight = gᵀx 306/436 against 331/416 (qkv), 407/515 against 483/684 (GPT's fc2), 639/804
against 722/907 (the MLP's first layer), every GPT and MLP shape faster on MKL at the fastest call, 7-25%; oneDNN
was the slowest of the three on both gradients (it copies the transposed operands). The attention's strided
batches still gain on OpenBLAS there (no contiguous copies): q·kᵀ 150/255 against 190/294, dV = pᵀ·g 64/126
against 81/129, p·v and dP = g·vᵀ level. Dense's forward was level between oneDNN and MKL's `linear` (GPT's and
the MLP's seven shapes, 1000 calls: 2669 against 2697 µs summed fastest, 3771 against 4036 median), so it keeps
the AVX-512 rule above. Hence `single_products_on_openblas`: a product of one matrix by one matrix goes to
OpenBLAS only on a processor that is not Intel's (the CPU vendor from /proc/cpuinfo; unknown keeps OpenBLAS, as
before); batches of matrices go to it on both. On that Xeon the GPT benchmark's Graph-mode training step went from
44.5 to 40.5 ms (fastest of 100 steps, alternated in one process, thread CPU; medians 48.8 and 44.1), with graph-kernel
fusion from 32.8 to 28.3 ms (medians 38.2 and 33.3), the losses unchanged.

The products run on these libraries only where they were measured faster: float products of `MIN_WORK`
multiply-adds and up, at one thread. OpenBLAS only with one thread on both sides (`torch.get_num_threads() == 1` and OpenBLAS's own count 1, which it reads
from OPENBLAS_NUM_THREADS or OMP_NUM_THREADS): OpenBLAS keeps a pthread pool of its own, which would compete with
torch's OpenMP threads and spin between calls. Otherwise, and for other dtypes, devices or BLAS libraries,
`matmul` and `linear` return None and the caller runs torch's kernel.

>>> import torch
>>> a, b = torch.ones(2, 3), torch.ones(3, 4)
>>> out = matmul(torch, a, b)
>>> out is None or out.tolist() == [[3.0] * 4] * 2
True
"""
import math
import threading

import numpy as np

from ..common.blas import blas_libraries

_STATE = {"threads": None}  # the OpenBLAS thread-count getter, False when numpy's BLAS is not OpenBLAS
_LOCK = threading.Lock()
# multiply-adds below which torch keeps the product: LeNet's 32x400x120 gradient (1.5 M) took 59 us through numpy
# against 46 us on MKL; GPT's smallest product, 512x128x128 (8.4 M), and a batch of 32 attention products of
# 64x32x64 (4.2 M) gain
MIN_WORK = 1 << 22


def _openblas_threads():
    """The function returning OpenBLAS's thread count (numpy's BLAS), or False when there is none to ask."""
    get = _STATE["threads"]
    if get is None:
        with _LOCK:
            get = _STATE["threads"]
            if get is None:
                get = _STATE["threads"] = _find_openblas()
    return get


def _find_openblas():
    for lib in blas_libraries():
        if lib.internal_api == "openblas" and "numpy" in lib.filepath and lib.threading_layer != "openmp":
            return lib.get
    return False


def usable(torch, *tensors):
    """True when the product of these torch tensors may run on OpenBLAS (see the module docstring)."""
    first = tensors[0]
    if first.dtype not in _float_dtypes(torch) or torch.get_num_threads() != 1:
        return False
    dtype = first.dtype
    for t in tensors:
        if type(t) is not torch.Tensor or t.device.type != "cpu" or t.dtype != dtype or t.requires_grad:
            return False
    get = _openblas_threads()
    return bool(get) and get() == 1


def single_products_on_openblas():
    """Whether a product of one matrix by one matrix (DenseGrad's) was measured faster on OpenBLAS than on MKL on
    this processor: everywhere but on Intel's, where MKL won at every benchmark shape (see the module docstring)."""
    single = _STATE.get("single")
    if single is None:
        single = _STATE["single"] = cpu_vendor() != "GenuineIntel"
    return single


def cpu_vendor(cpuinfo="/proc/cpuinfo"):
    """The processor's vendor string as the CPU reports it ("GenuineIntel", "AuthenticAMD", ...), "" when the
    system does not say (no /proc/cpuinfo, or no vendor_id line in it: ARM, macOS)."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as f:
            for line in f:
                key, sep, value = line.partition(":")
                if sep and key.strip() == "vendor_id":
                    return value.strip()
    except OSError:
        pass
    return ""


def worth_it(m, n, k, batch=1):
    """Whether a product of this size gains more on OpenBLAS than the hand-over to numpy costs (a few µs)."""
    return m * n * k * batch >= MIN_WORK


def matmul(torch, a, b, out=None):
    """a @ b (numpy's matmul rules: batches broadcast, strided operands as they lie) as a torch tensor computed by
    OpenBLAS, written into `out` when given; None when OpenBLAS may not run it (`usable`), the product is too
    small to gain (`worth_it`) or is one of two matrices on a processor where MKL won those
    (`single_products_on_openblas`)."""
    if a.dim() < 2 or b.dim() < 2 or not worth_it(a.shape[-2], b.shape[-1], a.shape[-1], math.prod(a.shape[:-2])) \
            or (a.dim() == 2 and b.dim() == 2 and not single_products_on_openblas()) \
            or not usable(torch, a, b) or (out is not None and not usable(torch, out, a)):
        return None
    if out is None:
        # torch allocates the result: its CPU allocator (openspore's host pool) reuses freed blocks, where numpy's
        # fresh result of a few hundred KB would be new pages from the system at every call (page faults: system
        # time that a --clock cpu benchmark counts, and a step spends)
        batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
        out = torch.empty(batch + (a.shape[-2], b.shape[-1]), dtype=a.dtype)
    np.matmul(a.numpy(), b.numpy(), out=out.numpy())
    return out


def linear(torch, x, weight, bias=None):
    """x @ weight.T + bias (Dense's forward) by oneDNN for float32 CPU tensors, contiguous, at one thread, of
    `MIN_WORK` multiply-adds and up, on a CPU with AVX-512; None otherwise (the caller runs torch's `linear`)."""
    if x.dim() < 2 or not worth_it(x.numel() // x.shape[-1], weight.shape[0], weight.shape[1]) \
            or torch.get_num_threads() != 1 or not _onednn_ready(torch) or not _onednn_faster(torch):
        return None
    f32 = torch.float32
    for t in (x, weight) if bias is None else (x, weight, bias):
        if type(t) is not torch.Tensor or t.dtype != f32 or t.device.type != "cpu" or t.requires_grad \
                or not t.is_contiguous():
            return None
    return torch.ops.mkldnn._linear_pointwise(x, weight, bias, "none", [], "")


def _onednn_ready(torch):
    ready = _STATE.get("onednn")
    if ready is None:
        ready = _STATE["onednn"] = bool(torch.backends.mkldnn.is_available()) \
            and hasattr(torch.ops.mkldnn, "_linear_pointwise")
    return ready


def _onednn_faster(torch):
    """Whether oneDNN's linear was measured the faster here: on CPUs with AVX-512 (see the module docstring)."""
    faster = _STATE.get("onednn_faster")
    if faster is None:
        capability = getattr(torch.backends.cpu, "get_cpu_capability", lambda: "")()
        faster = _STATE["onednn_faster"] = capability.startswith("AVX512")
    return faster


_DTYPES = []


def _float_dtypes(torch):
    if not _DTYPES:
        _DTYPES.append(frozenset((torch.float32, torch.float64)))
    return _DTYPES[0]
