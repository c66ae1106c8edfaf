"""share_outputs (passes/out_slots.py): channels-last convolutions share a result buffer only when their results are
never alive together, readers followed through views; and the zero-bordered input buffers convolutions of one
padded shape share (kernels/nhwc.py) keep each convolution's result its own."""
import numpy as np

from openspore.lite.executor import Executable
from openspore.lite.kernels.nn import _conv_prim, conv2d
from openspore.lite.passes import LAYOUT_PASSES, share_outputs
from openspore.lite.program import Lit, Op, Program

C = 8
ATTRS = {"kernel_size": (3, 3), "pad_mode": "pad", "pad": (1, 1, 1, 1), "out_channel": C, "layout": "NHWC",
         "activation": "relu", "has_bias": True}


def _program(rng):
    """a = conv(x); r = a viewed flat; b = conv(a); c = conv(b); out = r + c viewed flat. `r` is read after `c`
    is computed, so c must not take a's buffer although a's last direct reader (b) came before c."""
    p = Program()
    x = p.add_tensor("x", (1, 5, 5, C), "float32", "input")
    scale = 1 / np.sqrt(9 * C)  # values of order 1 after three layers
    ws = [p.add_tensor(f"w{k}", (9 * C, C), "float32", "param",
                       (rng.standard_normal((9 * C, C)) * scale).astype(np.float32)) for k in range(3)]
    bs = [p.add_tensor(f"b{k}", (C,), "float32", "param", rng.standard_normal(C).astype(np.float32))
          for k in range(3)]
    a, b, c = (p.add_tensor(n, (1, 5, 5, C), "float32") for n in "abc")
    r, cf, out = (p.add_tensor(n, (1, 25 * C), "float32") for n in ("r", "cf", "out"))
    p.main.ops = [Op("LiteConv2D", ATTRS, [x, ws[0], bs[0]], [a]),
                  Op("Reshape", {}, [a, Lit((1, 25 * C))], [r]),
                  Op("LiteConv2D", ATTRS, [a, ws[1], bs[1]], [b]),
                  Op("LiteConv2D", ATTRS, [b, ws[2], bs[2]], [c]),
                  Op("Reshape", {}, [c, Lit((1, 25 * C))], [cf]),
                  Op("Add", {}, [r, cf], [out])]
    p.main.inputs, p.main.outputs = [x], [out]
    return p, ws, bs


def _reference(x, ws, bs, p):
    prim = _conv_prim(Op("LiteConv2D", dict(ATTRS, layout="NCHW"), [], []))
    w_nchw = [p.tensors[w].data.reshape(3, 3, C, C).transpose(3, 2, 0, 1) for w in ws]

    def conv(v, k):
        y = conv2d(prim, v.transpose(0, 3, 1, 2), w_nchw[k], p.tensors[bs[k]].data, "relu")
        return y.transpose(0, 2, 3, 1)
    a = conv(x, 0)
    c = conv(conv(a, 1), 2)
    return a.reshape(1, -1) + c.reshape(1, -1)


def test_slots_follow_views_and_results_match():
    rng = np.random.default_rng(0)
    p, ws, bs = _program(rng)
    shared = share_outputs(p)
    slots = [op.attrs.get("out_slot") for op in shared.main.ops]
    assert slots == [0, None, 1, 2, None, None]  # c may not reuse a's slot: a is read (through r) after c
    assert all("out_slot" not in op.attrs for op in p.main.ops)  # a pure pass: the input program is unchanged
    exe = Executable(shared)
    for seed in (1, 2):  # the second call overwrites every buffer the first wrote
        x = np.random.default_rng(seed).standard_normal((1, 5, 5, C)).astype(np.float32)
        np.testing.assert_allclose(exe.run([x])[0], _reference(x, ws, bs, p), rtol=1e-5, atol=1e-5)


def test_a_dead_result_lends_its_slot():
    """Without the view, a is dead once b is computed: c writes a's buffer, and the result is still right."""
    rng = np.random.default_rng(4)
    p, ws, bs = _program(rng)
    conv_a, _, conv_b, conv_c, flat_c, _ = p.main.ops
    p.main.ops = [conv_a, conv_b, conv_c, flat_c]
    p.main.outputs = list(flat_c.outputs)
    shared = share_outputs(p)
    assert [op.attrs.get("out_slot") for op in shared.main.ops] == [0, 1, 0, None]
    prim = _conv_prim(Op("LiteConv2D", dict(ATTRS, layout="NCHW"), [], []))
    exe = Executable(shared)
    for seed in (5, 6):
        x = np.random.default_rng(seed).standard_normal((1, 5, 5, C)).astype(np.float32)
        v = x.transpose(0, 3, 1, 2)
        for k in range(3):
            w = p.tensors[ws[k]].data.reshape(3, 3, C, C).transpose(3, 2, 0, 1)
            v = conv2d(prim, v, w, p.tensors[bs[k]].data, "relu")
        np.testing.assert_allclose(exe.run([x])[0], v.transpose(0, 2, 3, 1).reshape(1, -1), rtol=1e-5, atol=1e-5)


def test_share_outputs_runs_after_the_layout_pass():
    assert LAYOUT_PASSES[-1] is share_outputs
