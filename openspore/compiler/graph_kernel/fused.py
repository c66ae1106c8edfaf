"""The fused-kernel primitive: one `GraphKernel` node runs a whole cluster of basic ops as one kernel.

A `GraphKernel` carries its cluster as a small IR graph (`graph`: inputs → members → a make_tuple of the values
used outside, or the one value). Its kernels, like every primitive's, are methods named after the backend:

* `torch`: on the first call per input signature (shapes, strides, dtypes) the cluster is traced into an ATen
  FX graph (`make_fx` over the cluster's own torch kernels, so it computes what the unfused ops compute) and
  compiled by TorchInductor into one C++/OpenMP kernel (Triton on CUDA); Inductor's composite decompositions
  expand BatchNorm, LayerNorm, Softmax and their gradients into reductions and elementwise loops inside it. The
  compiled kernel is checked once against the op-by-op result and kept; a cluster the compiler cannot take (a
  kernel that leaves torch, a compiler error, a mismatch) runs op by op instead, with a warning naming it.
  Compiled kernels are kept on disk (kernel_cache.py) and loaded by later processes without starting
  Inductor; identical clusters of one process share one compiled kernel. Tracing calls each primitive's own
  `torch` kernel, so a kernel written to be fused exactly (BatchNorm's) keeps the unfused numerics.
  A fused kernel is not always the faster choice: Inductor's decomposition of a lone composite can lose to
  ATen's hand-written kernel (GeluGradExt in the gpt backward: 0.61 ms fused, 0.39-0.59 ms op by op). So when a
  kernel is compiled, it is timed against the cluster op by op on the first call's inputs (`MEASURE`), and the
  cluster runs op by op when that is clearly faster; the choice is kept in the kernel cache with the kernel.
* `numpy`: the cluster op by op (the reference; the lite runtime).

`COMPILE_STATS` counts compiles and their seconds (benchmarks report fused-kernel compile time from it).

>>> import numpy as np
>>> from openspore.ir.parser import parse_graph
>>> g = parse_graph('''graph @c(%0 x: f32[3], %1 y: f32[3]) {
...   %2 = Mul(%0, %1) : f32[3]
...   %3 = ReLU(%2) : f32[3]
...   return %3
... }''')
>>> k = GraphKernel(fusion_name="GraphKernel_Mul_ReLU_fusion", graph=g)
>>> GraphKernel.numpy(k, np, np.array([1., -2., 3.], np.float32), np.ones(3, np.float32))
array([1., 0., 3.], dtype=float32)
"""
import hashlib
import logging
import os
import sys
import threading
import time

from ... import context
from ...core.primitive import Primitive
from . import kernel_cache

logger = logging.getLogger("openspore.graph_kernel")
COMPILE_STATS = {"kernels": 0, "seconds": 0.0, "fallbacks": 0, "shared": 0, "disk_hits": 0, "op_by_op_faster": 0}
# Time each newly compiled kernel against its cluster op by op and keep the faster (see the module docstring).
# The op-by-op run must be clearly faster (by MARGIN): the fused kernel also saves the executor's per-node work.
MEASURE = True
MARGIN = 0.9
_ROUNDS = 5
_shared = {}  # (canonical cluster text, input signature) -> compiled callable, for the whole process
_lock = threading.Lock()


class GraphKernel(Primitive):
    """GraphKernel(fusion_name='', graph=None)(*inputs): the cluster `graph` run as one fused kernel."""

    differentiable = False
    nondiff_reason = "a fused kernel is made after autodiff, from nodes that were already differentiated"

    def __init__(self, fusion_name="", graph=None):
        super().__init__()
        # not attributes: the node prints as `GraphKernel_Mul_ReLU_fusion(%0, %1)`; the dump shows the cluster
        self.fusion_name, self.graph = fusion_name, graph
        self._compiled = {}
        self._canonical = None

    @property
    def name(self):
        return self.fusion_name or "GraphKernel"

    def infer(self, *inputs):
        return self.graph.output.abstract  # the cluster was inferred when it was traced

    def numpy(self, np, *args):
        return run_cluster(self.graph, "numpy", np, args)

    def torch(self, torch, *args):
        # the lookup key of every call: torch's own shape / stride / dtype / device objects, with no conversion
        # (a third of the per-call time of the signature below, which names the kernel in the caches)
        tensor = torch.Tensor
        fast = tuple([(a.shape, a.stride(), a.dtype, a.device) if isinstance(a, tensor) else a for a in args])
        fn = self._compiled.get(fast)
        if fn is None:
            sig = tuple((tuple(a.shape), a.stride(), a.dtype, a.device.type) if isinstance(a, tensor) else a
                        for a in args)
            fn = self._compiled[fast] = self._compile(torch, args, sig)
        return fn(*args)

    def _compile(self, torch, args, sig):
        if self._canonical is None:
            self._canonical = canonical_text(self.graph)
        key = (self._canonical, sig)
        with _lock:
            fn = _shared.get(key)
            if fn is not None:
                COMPILE_STATS["shared"] += 1
                return fn
            start = time.perf_counter()
            fn = _inductor_kernel(self, torch, args, sig)
            COMPILE_STATS["seconds"] += time.perf_counter() - start
            _shared[key] = fn
            return fn


def run_cluster(graph, kernel_name, xp, args):
    """The cluster's value(s) computed op by op with each primitive's `kernel_name` kernel."""
    env = {n.id: a for n, a in zip(graph.inputs, args)}
    for n in graph.nodes:
        if n.op == "const":
            env[n.id] = n.value
        elif n.op == "tuple_get_item":
            env[n.id] = env[n.inputs[0].id][n.index]
        elif n.op == "make_tuple":
            env[n.id] = [env[i.id] for i in n.inputs]
        else:
            env[n.id] = getattr(type(n.op), kernel_name)(n.op, xp, *[env[i.id] for i in n.inputs])
    out = env[graph.output.id]
    return tuple(out) if graph.output.op == "make_tuple" else out


def canonical_text(graph):
    """The cluster without names or locations: equal texts compute the same function of their inputs."""
    index = {n.id: f"i{k}" for k, n in enumerate(graph.inputs)}
    lines = [";".join(f"{n.abstract.dtype}{list(n.abstract.shape)}" for n in graph.inputs)]
    for k, n in enumerate(graph.nodes):
        index[n.id] = f"n{k}"
        head = n.op_name if n.op != "tuple_get_item" else f"get{n.index}"
        if n.op == "const":
            head = f"const {_value_text(n.value)}"
        attrs = sorted((a, repr(v)) for a, v in n.attrs.items())
        lines.append(f"{head}{attrs}({','.join(index[i.id] for i in n.inputs)})")
    lines.append(f"out {index[graph.output.id]}")
    return "\n".join(lines)


def _value_text(value):
    """A constant as text; arrays by content (numpy's repr elides the middle of large ones)."""
    data = value.asnumpy() if hasattr(value, "asnumpy") else value
    if hasattr(data, "tobytes") and hasattr(data, "shape"):
        digest = hashlib.sha1(data.tobytes()).hexdigest()
        return f"{type(data).__name__}{list(data.shape)}{data.dtype}:{digest}"
    return repr(value)


def _inductor_kernel(kernel, torch, args, sig):
    """One compiled kernel for the cluster: from openspore's kernel cache when an earlier process compiled it
    (no Inductor start), else compiled by Inductor and kept there; op by op if compiling fails. Every kernel
    is checked once against the op-by-op result on the first call's inputs."""
    graph = kernel.graph

    def cluster(*xs):
        out = run_cluster(graph, "torch", torch, xs)
        return list(out) if isinstance(out, tuple) else [out]

    def op_by_op(*xs):
        return run_cluster(graph, "torch", torch, xs)

    options = _inductor_options(graph)
    key = kernel_cache.entry_key(kernel._canonical, sig, _sources(graph) + (f";{options}" if options else ""))
    if kernel_cache.choice(key) == kernel_cache.OP_BY_OP:  # measured when it was kept: no kernel to load
        COMPILE_STATS["disk_hits"] += 1
        COMPILE_STATS["op_by_op_faster"] += 1
        return op_by_op
    cached = kernel_cache.load(key)
    if cached is not None:  # checked when it was kept; its key holds everything it was compiled from
        COMPILE_STATS["disk_hits"] += 1
        return _unpacked(graph, cached)
    try:
        compiled, module = _compile_fx(torch, cluster, args, options)
        expected = cluster(*args)
        problem = _mismatch(torch, expected, compiled(*args))
    except Exception as exc:  # noqa: BLE001 (any compiler failure: the cluster runs unfused, and we say so)
        problem = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    if problem is not None:
        COMPILE_STATS["fallbacks"] += 1
        logger.warning("graph kernel %s runs op by op: the kernel compiler could not take it (%s)",
                       kernel.name, problem)
        return op_by_op
    COMPILE_STATS["kernels"] += 1
    # Keep it for later processes, and run the kept copy now too when it gives the same results: its bare
    # wrapper call skips the compiled function's runtime wrappers.
    run, saved = _unpacked(graph, lambda xs: compiled(*xs)), False
    if module is not None and kernel_cache.save(key, module) is not None:
        kept = kernel_cache.load(key)
        if kept is not None and _checked(torch, kept, args, expected) is None:
            run, saved = _unpacked(graph, kept), True
        else:
            kernel_cache.remove(key)
            logger.debug("graph kernel %s: the kept wrapper does not reproduce the compiled kernel; not cached",
                         kernel.name)
    if not MEASURE:
        return run
    on_gpu = any(isinstance(a, torch.Tensor) and a.device.type == "cuda" for a in args)
    fused_s, unfused_s = measure(run, op_by_op, args, sync=torch.cuda.synchronize if on_gpu else None)
    faster = unfused_s < MARGIN * fused_s
    if saved:
        kernel_cache.set_choice(key, kernel_cache.OP_BY_OP if faster else kernel_cache.FUSED,
                                {"fused_ms": fused_s * 1e3, "op_by_op_ms": unfused_s * 1e3})
    if faster:
        COMPILE_STATS["op_by_op_faster"] += 1
        logger.info("graph kernel %s runs op by op: %.3f ms against %.3f ms fused", kernel.name, unfused_s * 1e3,
                    fused_s * 1e3)
        return op_by_op
    return run


def measure(fused, op_by_op, args, rounds=None, sync=None):
    """(fused seconds, op-by-op seconds) of one call on `args`: the best of `rounds` calls each, taken in
    alternation after one warm-up call each, so a burst of load elsewhere lands on both. `sync` (CUDA's
    synchronize) waits for queued kernels before each clock reading: a launch alone is not the work."""
    sync = sync or (lambda: None)
    fused(*args)
    op_by_op(*args)
    best = [float("inf"), float("inf")]
    for _ in range(rounds or _ROUNDS):
        for k, fn in enumerate((fused, op_by_op)):
            sync()
            start = time.perf_counter()
            fn(*args)
            sync()
            best[k] = min(best[k], time.perf_counter() - start)
    return best[0], best[1]


_source_digests = {}


def _sources(graph):
    """A digest of the source files of the cluster's primitives: a kernel kept on disk is stale once the
    kernels it was traced from change."""
    files = sorted({sys.modules[type(n.op).__module__].__file__ for n in graph.nodes if n.is_primitive})
    parts = []
    for path in files:
        if path not in _source_digests:
            with open(path, "rb") as f:
                _source_digests[path] = hashlib.sha1(f.read()).hexdigest()
        parts.append(_source_digests[path])
    return ",".join(parts)


def _checked(torch, call, args, expected):
    """None when the wrapper `call(list_of_inputs)` reproduces `expected`, else what is wrong."""
    try:
        return _mismatch(torch, expected, list(call(list(args))))
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"


def _unpacked(graph, call):
    if graph.output.op != "make_tuple":
        return lambda *xs: call(list(xs))[0]
    return lambda *xs: tuple(call(list(xs)))


def _mismatch(torch, expected, got):
    if len(expected) != len(got):
        return f"{len(got)} outputs instead of {len(expected)}"
    for k, (e, g) in enumerate(zip(expected, got)):
        if tuple(e.shape) != tuple(g.shape) or e.dtype != g.dtype:
            return f"output {k} is {g.dtype}{list(g.shape)} instead of {e.dtype}{list(e.shape)}"
        if e.is_floating_point():
            scale = float(e.abs().max()) if e.numel() else 0.0
            if not torch.allclose(e, g, rtol=1e-3, atol=1e-4 * scale + 1e-6, equal_nan=True):
                return f"output {k} differs from the op-by-op result"
        elif e.dtype == torch.bool and bool((e != g).float().mean() > 1e-3):
            return f"output {k} differs from the op-by-op result"
    return None


_configured = []


def configure_inductor():
    """Inductor's settings for every kernel fusion compiles (once per process, before Inductor first runs)."""
    if not _configured:
        # Inductor keeps its code and its FX-graph cache under this directory; set before Inductor first reads it.
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(context.kernel_cache_dir(), "inductor"))
        import torch._inductor.config as config
        config.compile_threads = 1   # compile in this process: no worker pool left behind
        config.fx_graph_cache = True
        _configured.append(True)


def _inductor_options(graph):
    """Inductor settings for this cluster. With BatchNorm: every value read more than once is computed once
    (`realize_opcount_threshold=0`), so its per-channel coefficients rsqrt(var + eps) * scale are a buffer the
    normalising loop reads, not recomputed (a square root and a division) for every element: ResNet-20's BatchNorm
    (+ Add) + ReLU clusters 480 -> 465 µs (16 channels, 32x32), 210 -> 180 (32, 16x16), 96 -> 66 (64, 8x8), batch
    32, one thread, the same values bit for bit."""
    if any(n.is_primitive and n.op_name == "BatchNorm" for n in graph.nodes):
        return {"realize_opcount_threshold": 0}
    return {}


def _compile_fx(torch, fn, args, options=None):
    """make_fx + TorchInductor (no Dynamo: the cluster is already a straight-line graph)."""
    configure_inductor()
    from torch.fx.experimental.proxy_tensor import make_fx
    import torch._inductor
    from torch._inductor.codecache import PyCodeCache
    loaded = len(PyCodeCache.modules)
    with torch.no_grad():
        # traced on fake tensors (static shapes, the inputs' strides): a kernel whose result depends on values
        # cannot be traced and falls back, and the fake mode's shape env lets Inductor's FX-graph cache key it
        gm = make_fx(fn, tracing_mode="fake")(*args)
        fakes = [n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder"]
        import torch._inductor.config as config
        with config.patch(**(options or {})):
            compiled = torch._inductor.compile(gm, fakes)
    # the wrapper module Inductor generated (or loaded from its cache) for this graph: the one with a `call`
    wrappers = [m for m in PyCodeCache.modules[loaded:] if hasattr(m, "call")]
    return compiled, (wrappers[-1] if len(wrappers) == 1 else None)
