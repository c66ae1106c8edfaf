"""Graph-kernel fusion: the switches, the flags, the expand and cluster passes (IR before → after, values kept,
Parameter writes kept in order), the clusters dumped as text, numerics of fused kernels over the op table's
elementwise primitives, training losses with fusion on vs off, and the on-disk kernel cache across processes."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.common import dtype as mstype
from openspore.compiler.graph_kernel import fused
from openspore.compiler.graph_kernel.flags import parse_flags
from openspore.compiler.graph_kernel.fused import GraphKernel, run_cluster
from openspore.compiler.graph_kernel.ops import elementwise_primitives
from openspore.compiler.passes.graph_kernel_cluster import graph_kernel_cluster
from openspore.compiler.passes.graph_kernel_expand import graph_kernel_expand
from openspore.core.primitive import PRIMITIVES, AbstractTensor
from openspore.ir import print_graph
from openspore.ir.node import Graph, Node
from openspore.ir.parser import parse_graph

from .pass_check import assert_same_values, weights_for

torch = pytest.importorskip("torch")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def _fusion_off_afterwards(monkeypatch):
    monkeypatch.delenv("MS_GRAPH_KERNEL_FLAGS", raising=False)
    monkeypatch.delenv("MS_DEV_GRAPH_KERNEL_FLAGS", raising=False)
    yield
    ms.set_context(enable_graph_kernel=False, graph_kernel_flags="", mode=ms.PYNATIVE_MODE)


# ---- flags ---------------------------------------------------------------------------------------------------
def test_flags_parse():
    flags = parse_flags("--opt_level=1 --dump_as_text=false --enable_cluster_ops=Sin,Cos --disable_expand_ops=SiLU")
    assert flags == {"opt_level": 1, "dump_as_text": False, "enable_cluster_ops": ("Sin", "Cos"),
                     "disable_expand_ops": ("SiLU",)}


@pytest.mark.parametrize("text, message", [
    ("--no_such_flag", "unknown flag '--no_such_flag'"),
    ("--opt_level=7", "must be 0, 1, 2 or 3"),
    ("--opt_level=two", "takes an integer"),
    ("--dump_as_text=maybe", "takes true or false"),
    ("opt_level=2", "each flag is written '--name=value'"),
    ("--enable_cluster_ops", "needs a value"),
])
def test_bad_flags_are_clear_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_flags(text)


def test_flags_from_a_json_file(tmp_path):
    path = tmp_path / "flags.json"
    path.write_text(json.dumps({"opt_level": 2, "disable_cluster_ops": "ReLU"}))
    assert parse_flags(f"--path={path} --dump_as_text") == {"opt_level": 2, "disable_cluster_ops": ("ReLU",)}


def test_an_unknown_flag_fails_the_compile_naming_it():
    ms.set_context(graph_kernel_flags="--opt_levle=2")
    with pytest.raises(ValueError, match="unknown flag '--opt_levle'"):
        ms.jit(lambda x: x * 2 + 1)(ms.Tensor(np.ones(3, np.float32)))


# ---- switching it on -----------------------------------------------------------------------------------------
def _fn(x, y):
    return ops.relu(x * y + 1.0) * 3.0


def _args():
    rng = np.random.default_rng(0)
    return ms.Tensor(rng.standard_normal((4, 8), np.float32)), ms.Tensor(rng.standard_normal((4, 8), np.float32))


def _fused_ops(jitted):
    return [n.op_name for n in jitted.graph_cache.last_entry.graph.nodes if isinstance(n.op, GraphKernel)]


def _check_switch(jitted):
    x, y = _args()
    got = jitted(x, y).asnumpy()
    np.testing.assert_allclose(got, np.maximum(x.asnumpy() * y.asnumpy() + 1, 0) * 3, rtol=1e-6)
    return _fused_ops(jitted)


def test_off_by_default():
    assert _check_switch(ms.jit(_fn)) == []


@pytest.mark.parametrize("how", ["enable_graph_kernel", "graph_kernel_flags", "MS_GRAPH_KERNEL_FLAGS",
                                 "MS_DEV_GRAPH_KERNEL_FLAGS", "jit_config", "jit_level", "set_jit_config"])
def test_each_switch_turns_fusion_on(how, monkeypatch):
    jitted = ms.jit(_fn)
    if how == "enable_graph_kernel":
        ms.set_context(enable_graph_kernel=True)
    elif how == "graph_kernel_flags":
        ms.set_context(graph_kernel_flags="--opt_level=2")
    elif how in ("MS_GRAPH_KERNEL_FLAGS", "MS_DEV_GRAPH_KERNEL_FLAGS"):
        monkeypatch.setenv(how, "--opt_level=2")
    elif how == "jit_config":
        jitted = ms.jit(_fn, jit_config={"jit_level": "O1"})
    elif how == "jit_level":
        jitted = ms.jit(_fn, jit_level="O1")
    if how == "set_jit_config":
        class Net(nn.Cell):
            def construct(self, x, y):
                return _fn(x, y)
        net = Net()
        net.set_jit_config(ms.JitConfig(jit_level="O1"))
        jitted = ms.jit(net)
    assert _check_switch(jitted) == ["GraphKernel_Mul_Add_ReLU_fusion"]


def test_opt_level_0_wins_over_enable_graph_kernel():
    ms.set_context(enable_graph_kernel=True, graph_kernel_flags="--opt_level=0")
    assert _check_switch(ms.jit(_fn)) == []


# ---- the passes: IR before → after, values kept ----------------------------------------------------------------
CHAIN = '''graph @main(%0 x: f32[4,8], %1 y: f32[8]) {
  %2 = Mul(%0, %1) : f32[4,8]
  %3 = Exp(%2) : f32[4,8]
  %4 = MatMul[transpose_a=False, transpose_b=True](%3, %0) : f32[4,4]
  %8 = const (1,) : py
  %5 = ReduceSum[keep_dims=False, skip_mode=False](%3, %8) : f32[4]
  %6 = Neg(%4) : f32[4,4]
  %7 = Sigmoid(%6) : f32[4,4]
  %9 = make_tuple(%5, %7) : (f32[4], f32[4,4])
  return %9
}'''


def test_cluster_pass_fuses_chains_around_a_matmul():
    after = graph_kernel_cluster(parse_graph(CHAIN))
    text = print_graph(after)
    assert "GraphKernel_Mul_Exp_ReduceSum_fusion(%0, %1)" in text
    assert "GraphKernel_Neg_Sigmoid_fusion" in text and "MatMul" in text
    assert_same_values(parse_graph(CHAIN), after, {})


def test_disable_and_enable_cluster_ops():
    flags = fused_flags("--disable_cluster_ops=Exp")
    text = print_graph(graph_kernel_cluster(parse_graph(CHAIN), flags))
    assert "= Exp(" in text and "GraphKernel_Neg_Sigmoid_fusion" in text
    flags = fused_flags("--enable_cluster_ops_only=Neg,Sigmoid")
    text = print_graph(graph_kernel_cluster(parse_graph(CHAIN), flags))
    assert "= Mul(" in text and "GraphKernel_Neg_Sigmoid_fusion" in text


def fused_flags(text):
    from openspore.compiler.graph_kernel.flags import resolve
    return resolve(text, enabled=True)


EXPANDABLE = '''graph @main(%0 x: f32[2,3], %1 b: f32[3]) {
  %2 = BiasAdd[data_format='NHWC'](%0, %1) : f32[2,3]
  %3 = SiLU(%2) : f32[2,3]
  %4 = SquaredDifference(%3, %0) : f32[2,3]
  %5 = GeluExt[approximate='none'](%4) : f32[2,3]
  return %5
}'''


def test_expand_pass_writes_composites_in_basic_ops():
    before = parse_graph(EXPANDABLE)
    after = graph_kernel_expand(before)
    ops_after = [n.op_name for n in after.nodes if n.is_primitive]
    assert not {"BiasAdd", "SiLU", "SquaredDifference", "GeluExt"} & set(ops_after)
    assert {"Sigmoid", "Erf", "Reshape", "Sub"} <= set(ops_after)
    assert_same_values(before, after, {})
    kept = graph_kernel_expand(before, fused_flags("--disable_expand_ops=SiLU,GeluExt"))
    assert {"SiLU", "GeluExt"} <= {n.op_name for n in kept.nodes if n.is_primitive}
    fused_graph = graph_kernel_cluster(after)
    assert [n.op_name for n in fused_graph.nodes if n.is_primitive] == [
        "GraphKernel_Reshape_Add_Sigmoid_Mul_Sub_Erf_fusion"]
    assert_same_values(before, fused_graph, {})


# A Parameter read by the cluster and written in place between its ops (BatchNorm's moving averages): the fused
# kernel must still read the value from before the write.
WRITTEN = '''graph @main(%0 x: f32[4]) {
  %1 = weight "w" : f32[4]
  %2 = Mul(%0, %1) : f32[4]
  %3 = Sub(%1, %2) : f32[4]
  %4 = AssignSub(%1, %0) : f32[4]
  %5 = Mul(%3, %1) : f32[4]
  %6 = Exp(%2) : f32[4]
  %7 = make_tuple(%5, %6) : (f32[4], f32[4])
  return %7
}'''


def test_writes_into_parameters_keep_their_order():
    weights = weights_for(WRITTEN)
    before = parse_graph(WRITTEN, weights)
    after = graph_kernel_cluster(before)
    order = [n.op_name for n in after.nodes if n.is_primitive]
    assert order.index("AssignSub") > order.index("GraphKernel_Mul_Sub_Exp_fusion")
    # %5 reads the Parameter after the write: it is not moved before it (it stays out of that cluster)
    assert "Mul" in order[order.index("AssignSub"):]
    assert_same_values(before, after, weights)


def test_dump_as_text_shows_the_clusters(tmp_path):
    ms.set_context(save_graphs_path=str(tmp_path), graph_kernel_flags="--opt_level=2 --dump_as_text")
    x, y = _args()
    ms.jit(_fn)(x, y)
    files = list((tmp_path / "graph_kernel_dump").glob("graph_kernel_cluster_*.txt"))
    assert len(files) == 1
    text = files[0].read_text()
    assert "Source nodes of" in text and "GraphKernel_Mul_Add_ReLU_fusion" in text
    assert "= ReLU(" in text and "= Mul(" in text


# ---- fused-kernel numerics over the op table's elementwise primitives -----------------------------------------
def _sample_inputs(name):
    """(attrs, numpy inputs) of the primitive's first sample whose inputs are all float (or bool) arrays."""
    rng = np.random.default_rng(0)
    for sample in PRIMITIVES[name].samples(rng):
        arrays = [a for a in sample.args if isinstance(a, np.ndarray)]
        if arrays and len(arrays) == len(sample.args) and all(a.dtype in (np.float32, np.bool_) for a in arrays):
            return sample.attrs, arrays
    return None


def _table_cluster():
    """One cluster holding every elementwise primitive (each followed by a Mul, so values flow between ops)."""
    inputs, nodes, outputs, names = [], [], [], []
    for name in elementwise_primitives():
        found = _sample_inputs(name)
        if found is None:
            continue
        attrs, arrays = found
        ins = []
        for a in arrays:
            p = Node("input", abstract=AbstractTensor(a.shape, mstype.bool_ if a.dtype == np.bool_ else mstype.float32),
                     name=f"x{len(inputs)}")
            inputs.append((p, a))
            ins.append(p)
        prim = PRIMITIVES[name](**attrs)
        abstract = prim.infer(*[p.abstract for p in ins])
        node = Node(prim, tuple(ins), abstract=abstract)
        nodes.append(node)
        if abstract.dtype == mstype.float32:
            node = Node(PRIMITIVES["Mul"](), (node, node), abstract=abstract)
            nodes.append(node)
        outputs.append(node)
        names.append(name)
    out = Node("make_tuple", tuple(outputs), abstract=tuple(o.abstract for o in outputs))
    graph = Graph("table", [p for p, _ in inputs], nodes + [out], out)
    return names, graph, [torch.from_numpy(a.copy()) for _, a in inputs]


@pytest.fixture(scope="module")
def table_results():
    names, graph, args = _table_cluster()
    kernel = GraphKernel(fusion_name="GraphKernel_table_fusion", graph=graph)
    before = dict(fused.COMPILE_STATS)
    fused.MEASURE = False  # the compiled kernel even where op by op would be faster: its numerics are tested
    try:
        got = GraphKernel.torch(kernel, torch, *args)
    finally:
        fused.MEASURE = True
    compiled = fused.COMPILE_STATS["kernels"] > before["kernels"] or fused.COMPILE_STATS["shared"] > before["shared"]
    want = run_cluster(graph, "torch", torch, args)
    return dict(zip(names, zip(want, got))), compiled


def test_the_table_cluster_was_compiled_not_run_op_by_op(table_results):
    assert table_results[1], "the kernel compiler refused the elementwise table cluster (see the warning)"


@pytest.mark.parametrize("name", elementwise_primitives())
def test_fused_numerics_match_op_by_op(name, table_results):
    results, _ = table_results
    if name not in results:
        pytest.skip(f"{name} has no all-float sample")
    want, got = (t.numpy() for t in results[name])
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype == np.bool_:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * max(1.0, float(np.nanmax(np.abs(want)))),
                                   equal_nan=True)


# ---- training with fusion on vs off ----------------------------------------------------------------------------
class _ResNetLike(nn.Cell):
    """A stem and one residual block (conv → BatchNorm → ReLU → conv → BatchNorm → + shortcut → ReLU), as in
    ResNet-20: its BatchNorm + ReLU and BatchNorm + Add + ReLU chains become fused kernels."""

    def __init__(self):
        super().__init__()
        conv = lambda cin: nn.Conv2d(cin, 6, 3, pad_mode="pad", padding=1, has_bias=False)  # noqa: E731
        self.stem, self.conv1, self.conv2 = conv(3), conv(6), conv(6)
        self.bn0, self.bn1, self.bn2 = nn.BatchNorm2d(6, momentum=0.9), nn.BatchNorm2d(6, momentum=0.9), \
            nn.BatchNorm2d(6, momentum=0.9)
        self.fc = nn.Dense(6, 10)

    def construct(self, x):
        x = ops.relu(self.bn0(self.stem(x)))
        y = ops.relu(self.bn2(self.conv2(ops.relu(self.bn1(self.conv1(x))))) + x)
        return self.fc(y.mean(axis=(2, 3)))


class _GPTLike(nn.Cell):
    """One pre-LayerNorm transformer block (causal softmax attention, exact GELU MLP) and a vocabulary head."""

    def __init__(self, vocab=32, d=16, seq=8):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.ln1, self.ln2, self.ln = nn.LayerNorm((d,)), nn.LayerNorm((d,)), nn.LayerNorm((d,))
        self.qkv, self.proj = nn.Dense(d, 3 * d), nn.Dense(d, d)
        self.fc1, self.fc2 = nn.Dense(d, 4 * d), nn.Dense(4 * d, d)
        self.gelu = nn.GELU(approximate=False)
        self.head = nn.Dense(d, vocab, has_bias=False)
        self.mask = ms.Tensor(np.triu(np.full((seq, seq), -1e9, np.float32), 1))
        self.d, self.vocab = d, vocab

    def construct(self, ids):
        x = self.tok(ids)
        b, t, d = x.shape
        q, k, v = ops.split(self.qkv(self.ln1(x)), d, axis=-1)
        att = ops.softmax(ops.matmul(q, k.transpose(0, 2, 1)) * (1.0 / d ** 0.5) + self.mask, axis=-1)
        x = x + self.proj(ops.matmul(att, v))
        x = x + self.fc2(self.gelu(self.fc1(self.ln2(x))))
        return self.head(self.ln(x)).reshape(-1, self.vocab)


def _losses(kind, enable, steps=5):
    ms.set_context(mode=ms.GRAPH_MODE, enable_graph_kernel=enable)
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    if kind == "resnet":
        net = _ResNetLike()
        x = ms.Tensor(rng.standard_normal((8, 3, 8, 8), np.float32))
        y = ms.Tensor(rng.integers(0, 10, 8).astype(np.int32))
        opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    else:
        net = _GPTLike()
        x = ms.Tensor(rng.integers(0, 32, (2, 8)).astype(np.int32))
        y = ms.Tensor(rng.integers(0, 32, 16).astype(np.int32))
        opt = nn.Adam(net.trainable_params(), learning_rate=1e-2)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train()
    before = fused.COMPILE_STATS["kernels"] + fused.COMPILE_STATS["disk_hits"] + fused.COMPILE_STATS["shared"]
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    used = fused.COMPILE_STATS["kernels"] + fused.COMPILE_STATS["disk_hits"] + fused.COMPILE_STATS["shared"]
    return losses, used - before


@pytest.mark.parametrize("kind", ["resnet", "gpt"])
def test_training_losses_match_with_fusion_on(kind):
    """The same steps give the same losses (1e-5 relative) with fusion on: fused kernels compute what the
    unfused ones do (BatchNorm's statistics from the same ATen statistics kernel, nn_batchnorm.BatchNorm.torch)."""
    (off, _), (on, kernels) = _losses(kind, False), _losses(kind, True)
    assert kernels > 0, "nothing was fused"
    np.testing.assert_allclose(on, off, rtol=1e-5)


def test_fused_batchnorm_statistics_are_the_unfused_ones(monkeypatch):
    """The statistics come out of the fused kernel bit for bit as the unfused BatchNorm computes them."""
    monkeypatch.setattr(fused, "MEASURE", False)  # the compiled kernel, not the op-by-op choice
    bn = PRIMITIVES["BatchNorm"](is_training=True, epsilon=1e-5)
    ins = [Node("input", abstract=AbstractTensor(s, mstype.float32), name=f"x{k}")
           for k, s in enumerate([(8, 6, 5, 5), (6,), (6,), (6,), (6,)])]
    node = Node(bn, tuple(ins), abstract=bn.infer(*[i.abstract for i in ins]))
    parts = [Node("tuple_get_item", (node,), abstract=node.abstract[k], index=k) for k in range(3)]
    relu = Node(PRIMITIVES["ReLU"](), (parts[0],), abstract=parts[0].abstract)
    out = Node("make_tuple", (relu, parts[1], parts[2]), abstract=(relu.abstract, parts[1].abstract,
                                                                   parts[2].abstract))
    g = Graph("bn", ins, [node] + parts + [relu, out], out)
    rng = np.random.default_rng(1)
    args = [torch.from_numpy(rng.standard_normal((8, 6, 5, 5), np.float32) * 3 + 1)] + \
        [torch.from_numpy(rng.random(6, np.float32) + 0.5) for _ in range(4)]
    kernel = GraphKernel(fusion_name="GraphKernel_BatchNorm_ReLU_fusion", graph=g)
    fallbacks = fused.COMPILE_STATS["fallbacks"]
    got = GraphKernel.torch(kernel, torch, *args)
    want = run_cluster(g, "torch", torch, args)
    assert fused.COMPILE_STATS["fallbacks"] == fallbacks, "the kernel compiler refused the cluster"
    assert torch.equal(got[1], want[1])
    assert torch.equal(got[2], want[2]) and torch.equal(got[0], want[0])


# ---- compiled kernels are cached on disk and reused by later processes -----------------------------------------
_CHILD = '''
import sys, numpy as np, openspore as ms
from openspore import ops
from openspore.compiler.graph_kernel import fused
ms.set_context(enable_graph_kernel=True)
f = ms.jit(lambda x: ops.exp(x * 3.0 - 1.0) * x)
out = f(ms.Tensor(np.full((5, 7), 0.5, np.float32))).asnumpy()
print(fused.COMPILE_STATS["kernels"], fused.COMPILE_STATS["disk_hits"], fused.COMPILE_STATS["fallbacks"],
      int("torch._inductor" in sys.modules), repr(float(out[0, 0])))
'''


def test_fused_kernels_are_reused_by_a_later_process(tmp_path):
    """The first process compiles the cluster with Inductor and keeps it; the second loads it from openspore's
    kernel cache without compiling anything and without importing Inductor, and computes the same values."""
    env = dict(os.environ, OPENSPORE_KERNEL_CACHE=str(tmp_path / "kernels"), PYTHONPATH=REPO)
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    runs = [subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, cwd=REPO,
                           timeout=600) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
    first, second = (r.stdout.split()[-5:] for r in runs)
    assert first[:4] == ["1", "0", "0", "1"]      # compiled by Inductor
    assert second[:4] == ["0", "1", "0", "0"]     # one cache hit, nothing compiled, Inductor never imported
    want = float(np.exp(np.float32(0.5) * 3 - 1) * np.float32(0.5))
    assert float(first[4]) == float(second[4]) == pytest.approx(want, rel=1e-6)
    assert len(list((tmp_path / "kernels" / "fused").rglob("entry.json"))) == 1


def test_a_broken_cache_entry_is_a_miss(tmp_path, monkeypatch):
    """A damaged entry (here: its kernel file truncated) is removed and compiled again, never an error."""
    from openspore.compiler.graph_kernel import kernel_cache
    monkeypatch.setenv("OPENSPORE_KERNEL_CACHE", str(tmp_path))
    key = kernel_cache.entry_key("test cluster", ())
    directory = kernel_cache.entry_dir(key)
    os.makedirs(directory)
    with open(os.path.join(directory, "wrapper.py"), "w") as f:
        f.write("def call(args):\n    return args\n")
    with open(os.path.join(directory, "k.so"), "wb") as f:
        f.write(b"not a shared object")
    with open(os.path.join(directory, "entry.json"), "w") as f:
        json.dump({"format": kernel_cache.FORMAT, "kernels": ["k"]}, f)
    assert kernel_cache.load(key) is None
    assert not os.path.exists(directory)


# ---- the faster of fused and op by op, measured when a kernel is compiled --------------------------------------
def _exp_cluster(n):
    return parse_graph(f'''graph @c(%0 x: f32[{n},3]) {{
  %1 = Exp(%0) : f32[{n},3]
  %2 = Mul(%1, %0) : f32[{n},3]
  return %2
}}''')


@pytest.mark.parametrize("margin, choice", [(1e9, "op_by_op"), (0.0, "fused")])
def test_the_measured_choice_is_kept_with_the_kernel(margin, choice, tmp_path, monkeypatch):
    """A compiled kernel is timed against its cluster op by op; the cluster runs op by op when that is faster by
    MARGIN (forced here both ways), and the choice is kept in the cache entry, so a later compile of the same
    cluster (another process: here the in-process sharing is emptied) follows it without measuring again."""
    monkeypatch.setenv("OPENSPORE_KERNEL_CACHE", str(tmp_path))
    monkeypatch.setattr(fused, "MARGIN", margin)
    monkeypatch.setattr(fused, "_shared", {})
    graph = _exp_cluster(17 if choice == "fused" else 19)  # a cluster no other test compiles
    x = torch.from_numpy(np.linspace(-2, 2, graph.inputs[0].abstract.shape[0] * 3, dtype=np.float32).reshape(-1, 3))
    want = run_cluster(graph, "torch", torch, [x])
    before = dict(fused.COMPILE_STATS)
    got = GraphKernel.torch(GraphKernel(fusion_name="GraphKernel_Exp_Mul_fusion", graph=graph), torch, x)
    assert fused.COMPILE_STATS["kernels"] == before["kernels"] + 1
    assert fused.COMPILE_STATS["op_by_op_faster"] == before["op_by_op_faster"] + (choice == "op_by_op")
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    manifests = list((tmp_path / "fused").rglob("entry.json"))
    assert len(manifests) == 1
    kept = json.loads(manifests[0].read_text())
    assert kept["choice"] == choice and kept["timings"]["fused_ms"] > 0 and kept["timings"]["op_by_op_ms"] > 0
    monkeypatch.setattr(fused, "_shared", {})
    monkeypatch.setattr(fused, "MARGIN", 0.0 if margin > 1 else 1e9)  # the other way, were it measured again
    again = GraphKernel.torch(GraphKernel(fusion_name="GraphKernel_Exp_Mul_fusion", graph=graph), torch, x)
    assert fused.COMPILE_STATS["kernels"] == before["kernels"] + 1  # nothing compiled
    assert fused.COMPILE_STATS["disk_hits"] == before["disk_hits"] + 1
    assert fused.COMPILE_STATS["op_by_op_faster"] == before["op_by_op_faster"] + 2 * (choice == "op_by_op")
    torch.testing.assert_close(again, want, rtol=1e-5, atol=1e-6)


def test_measure_times_both_ways():
    calls = []
    fused_s, unfused_s = fused.measure(lambda x: calls.append("f"), lambda x: calls.append("u"), (0,), rounds=3,
                                       sync=lambda: calls.append("s"))
    assert calls == ["f", "u"] + ["s", "f", "s", "s", "u", "s"] * 3 and 0 <= fused_s < 1 and 0 <= unfused_s < 1
