"""Graphs run in one preallocated arena under memory_optimize_level="O1" (runtime/arena.py): losses equal O0's
bit for bit, the executed placement never overlaps live tensors, and nothing that leaves a step points into it."""
import numpy as np
import pytest

import openspore as ms
from openspore import backends, nn, ops
from openspore.compiler.memory.lifetimes import TensorLife
from openspore.nn import cell as cell_module
from openspore.runtime.arena import Arena, check_arena


@pytest.fixture(autouse=True)
def _arena_on(monkeypatch):
    """The arena is opt-in (runtime/arena.arena_enabled); these tests are about it."""
    monkeypatch.setenv("OPENSPORE_O1_ARENA", "1")


class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1, self.relu, self.fc2 = nn.Dense(16, 32), nn.ReLU(), nn.Dense(32, 4)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class _Attention(nn.Cell):
    """Views (Reshape, Transpose, Split) over planned tensors, LayerNorm's tuple output, Softmax, GELU."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.qkv, self.out, self.ln = nn.Dense(d, 3 * d), nn.Dense(d, d), nn.LayerNorm((d,))
        self.ff1, self.ff2, self.gelu = nn.Dense(d, 4 * d), nn.Dense(4 * d, d), nn.GELU()
        self.heads, self.d = heads, d
        self.head = nn.Dense(d, 5)

    def construct(self, x):
        b, s, _ = x.shape
        q, k, v = ops.split(self.qkv(self.ln(x)), self.d, axis=-1)
        q = q.reshape(b, s, self.heads, -1).transpose(0, 2, 1, 3)
        k = k.reshape(b, s, self.heads, -1).transpose(0, 2, 3, 1)
        v = v.reshape(b, s, self.heads, -1).transpose(0, 2, 1, 3)
        att = ops.softmax(ops.matmul(q, k) * 0.5, axis=-1)
        y = x + self.out(ops.matmul(att, v).transpose(0, 2, 1, 3).reshape(b, s, self.d))
        y = y + self.ff2(self.gelu(self.ff1(y)))
        return self.head(y.mean(axis=1))


class _ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1, self.bn, self.relu = nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU()
        self.conv2, self.flatten, self.fc = nn.Conv2d(8, 8, 3, stride=2), nn.Flatten(), nn.Dense(8 * 4 * 4, 10)

    def construct(self, x):
        return self.fc(self.flatten(self.conv2(self.relu(self.bn(self.conv1(x))))))


def _data(name, rng):
    if name == "mlp":
        return _Mlp(), rng.standard_normal((8, 16), np.float32), rng.integers(0, 4, 8)
    if name == "attention":
        return _Attention(), rng.standard_normal((2, 6, 16), np.float32), rng.integers(0, 5, 2)
    return _ConvNet(), rng.standard_normal((4, 3, 8, 8), np.float32), rng.integers(0, 10, 4)


def _losses(name, level, backend, steps=3):
    ms.set_context(mode=ms.GRAPH_MODE, memory_optimize_level=level, backend=backend)
    try:
        ms.set_seed(0)
        net, x, y = _data(name, np.random.default_rng(0))
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Adam(net.trainable_params(), 1e-2))
        step.set_train()
        x, y = ms.Tensor(x), ms.Tensor(y.astype(np.int32))
        out = [step(x, y) for _ in range(steps)]
        (entry,) = cell_module._graph_runner.caches[step].entries.values()
        return [float(v.asnumpy()) for v in out], entry
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, memory_optimize_level="O0", backend="torch")


@pytest.mark.parametrize("backend", ["torch", "numpy"])
@pytest.mark.parametrize("name", ["mlp", "attention", "convnet"])
def test_o1_runs_in_an_arena_with_o0_losses_bit_for_bit(name, backend):
    o0, entry0 = _losses(name, "O0", backend)
    o1, entry1 = _losses(name, "O1", backend)
    assert entry0.compiled.arena is None and "A.acquire()" not in entry0.compiled.source
    arena = entry1.compiled.arena
    assert arena is not None and "= put(a" in entry1.compiled.source
    assert arena.nbytes == entry1.memory_plan[0].peak and len(arena.layout) >= 5
    check_arena(arena, entry1.memory_plan[0])
    assert o1 == o0  # the same kernels on the same values; the step's loss values are the step outputs


def test_step_outputs_do_not_point_into_the_arena():
    ms.set_context(mode=ms.GRAPH_MODE, memory_optimize_level="O1")
    try:
        net = _Mlp()

        @ms.jit
        def forward(x):
            h = ops.relu(x * 2)
            return h[1:], ops.exp(h)  # a slice view of a planned tensor, and a planned tensor as output

        x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
        first = [t.asnumpy().copy() for t in forward(x)]
        kept = forward(x)
        forward(ms.Tensor(-np.ones((3, 4), np.float32)))  # a later call reuses the arena
        np.testing.assert_array_equal(kept[0].asnumpy(), first[0])
        np.testing.assert_array_equal(kept[1].asnumpy(), first[1])
        assert net is not None
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, memory_optimize_level="O0")


def test_a_call_during_another_gets_its_own_buffer():
    arena = Arena(backends.get("numpy"), 2048, [(0, (4,), ms.float32)])
    first = arena.acquire()
    second = arena.acquire()  # the first is still in use
    assert first[0] is not second[0]
    arena.release(first)
    arena.release(second)  # only one idle buffer is kept
    assert arena.acquire()[0] is first[0] and arena.acquire()[0] is not second[0]


class _Plan:
    def __init__(self, tensors):
        self.tensors = tensors


def test_check_arena_names_live_tensors_sharing_bytes():
    a, b = TensorLife((1, 0), 512, 64, 0, 3, "%1:Exp"), TensorLife((2, 0), 512, 64, 2, 5, "%2:Neg")
    shared = Arena(backends.get("numpy"), 1024, [(0, (16,), ms.float32), (0, (16,), ms.float32)], [a.key, b.key])
    with pytest.raises(AssertionError, match="%1:Exp and %2:Neg share arena bytes"):
        check_arena(shared, _Plan([a, b]))
    apart = Arena(backends.get("numpy"), 1024, [(0, (16,), ms.float32), (512, (16,), ms.float32)], [a.key, b.key])
    check_arena(apart, _Plan([a, b]))
    later = TensorLife((2, 0), 512, 64, 4, 5, "%2:Neg")  # lives after %1: may take its bytes
    check_arena(shared, _Plan([a, later]))


def _out_kernel_classes():
    from openspore.core.registry import PRIMITIVES
    import openspore.ops.defs  # noqa: F401  (fills the table)
    return sorted((c for c in set(PRIMITIVES.values()) if hasattr(c, "torch_out")), key=lambda c: c.__name__)


@pytest.mark.parametrize("cls", _out_kernel_classes(), ids=lambda c: c.__name__)
def test_out_kernels_write_what_the_plain_kernel_returns(cls):
    """Every `torch_out` kernel (writing into an arena view) gives the plain kernel's result bit for bit, on the
    op table's samples, whether the operands fit the view or it falls back."""
    import torch
    backend = backends.get("torch")
    checked = 0
    for sample in cls.samples(np.random.default_rng(0)):
        p = cls(**sample.attrs)
        args = [backend.adopt(a) if isinstance(a, np.ndarray) else a for a in sample.args]
        want = cls.torch(p, torch, *args)
        if isinstance(want, tuple):  # tuple results take a tuple of views
            views = tuple(_offset_view(torch, w) for w in want)
            pairs = zip(Arena(backend, 0, []).copy_leaves(views, cls.torch_out(p, torch, views, *args)), want)
        elif isinstance(want, torch.Tensor):
            view = _offset_view(torch, want)
            pairs = [(backend.copy_into(view, cls.torch_out(p, torch, view, *args)), want)]
        else:
            continue
        for got, expected in pairs:
            assert got.dtype == expected.dtype and got.shape == expected.shape
            assert torch.equal(got.nan_to_num(), expected.nan_to_num())
            assert torch.equal(got.isnan(), expected.isnan())
        checked += 1
    assert checked


def _offset_view(torch, like):
    return torch.empty(like.numel() + 8, dtype=like.dtype)[8:].view(like.shape)  # not at a buffer start, as in an arena

