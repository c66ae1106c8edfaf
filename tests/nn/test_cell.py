"""nn.Cell: registration, MindSpore parameter naming, traversal, call paths (hooks, bprop, to_float), containers."""
import copy
from collections import OrderedDict

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.nn.cell import set_graph_runner
from tests.conftest import assert_close


def param(shape, value=1.0, name=None, requires_grad=True):
    return ms.Parameter(ms.Tensor(np.full(shape, value, np.float32)), name=name, requires_grad=requires_grad)


class Dense(nn.Cell):
    """A tiny Dense for these tests (the real layer lives in nn.layers)."""

    def __init__(self, cin, cout, w=1.0):
        super().__init__()
        self.cin, self.cout = cin, cout
        self.weight = param((cout, cin), w)
        self.bias = param((cout,), 0.0)
        self.matmul = ops.MatMul(transpose_b=True)

    def construct(self, x):
        return ops.add(self.matmul(x, self.weight), self.bias)

    def extend_repr(self):
        return f"input_channels={self.cin}, output_channels={self.cout}, has_bias=True"


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = Dense(4, 4)
        self.layers = nn.CellList([Dense(4, 4), Dense(4, 4)])
        self.seq = nn.SequentialCell(OrderedDict(first=Dense(4, 4)))
        self.a = param((1,), 2.0, name="custom")
        self.b = param((1,), 3.0)

    def construct(self, x):
        x = self.fc(x)
        for layer in self.layers:
            x = layer(x)
        return ops.mul(ops.mul(self.seq(x), self.a), self.b)


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = nn.SequentialCell([Block()])

    def construct(self, x):
        return self.block(x)


def x44():
    return ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 8)


# ---- naming -------------------------------------------------------------------------------------
def test_child_parameters_are_named_by_attribute_path():
    b = Block()
    pairs = [(k, p.name) for k, p in b.parameters_and_names()]
    assert pairs == [("a", "custom"), ("b", "b"), ("fc.weight", "fc.weight"), ("fc.bias", "fc.bias"),
                     ("layers.0.weight", "layers.0.weight"), ("layers.0.bias", "layers.0.bias"),
                     ("layers.1.weight", "layers.1.weight"), ("layers.1.bias", "layers.1.bias"),
                     ("seq.first.weight", "seq.first.weight"), ("seq.first.bias", "seq.first.bias")]


def test_deep_nesting_renames_explicit_names_of_child_cells():
    o = Outer()
    names = {k: p.name for k, p in o.parameters_and_names()}
    assert all(k == v for k, v in names.items())
    assert "block.0.a" in names  # the explicit name 'custom' is replaced once Block is a child
    assert "block.0.layers.1.weight" in names and "block.0.seq.first.bias" in names
    assert o.block[0].fc.weight.name == "block.0.fc.weight"


def test_shared_parameter_is_listed_once():
    class Twin(nn.Cell):
        def __init__(self):
            super().__init__()
            self.left = Dense(2, 2)
            self.right = Dense(2, 2)
            self.right.weight = self.left.weight

        def construct(self, x):
            return self.right(self.left(x))

    t = Twin()
    params = list(t.get_parameters())
    assert len(params) == 3
    assert sum(p is t.left.weight for p in params) == 1


def test_name_prefix_and_expand():
    b = Block()
    assert [k for k, _ in b.parameters_and_names(name_prefix="net")][:3] == ["net.a", "net.b", "net.fc.weight"]
    assert [k for k, _ in b.parameters_and_names(expand=False)] == ["a", "b"]
    assert len(list(b.get_parameters(expand=False))) == 2


def test_auto_prefix_false_keeps_child_names():
    class Wrapper(nn.Cell):
        def __init__(self, net):
            super().__init__(auto_prefix=False)
            self._backbone = net

        def construct(self, x):
            return self._backbone(x)

    net = Dense(2, 3)
    w = Wrapper(net)
    assert [(k, p.name) for k, p in w.parameters_and_names()] == [("_backbone.weight", "weight"),
                                                                   ("_backbone.bias", "bias")]


def test_trainable_untrainable_and_parameters_dict():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = Dense(2, 2)
            self.moving = param((2,), 0.0, requires_grad=False)

        def construct(self, x):
            return self.fc(x)

    n = Net()
    assert [p.name for p in n.trainable_params()] == ["fc.weight", "fc.bias"]
    assert [p.name for p in n.untrainable_params()] == ["moving"]
    assert list(n.parameters_dict()) == ["moving", "fc.weight", "fc.bias"]
    assert [p.name for p in n.trainable_params(recurse=False)] == []


def test_cells_and_names_and_children():
    o = Outer()
    names = [n for n, _ in o.cells_and_names()]
    assert names[:4] == ["", "block", "block.0", "block.0.fc"]
    assert "block.0.layers.1" in names and "block.0.seq.first" in names
    b = o.block[0]
    assert list(b.name_cells()) == ["fc", "layers", "seq"]
    assert list(b.cells()) == [b.fc, b.layers, b.seq]


# ---- attribute protocol -----------------------------------------------------------------------------
def test_getattr_setattr_delattr():
    d = Dense(2, 2)
    assert "weight" in d._params and "weight" not in d.__dict__
    d.weight = ms.Tensor(np.full((2, 2), 5.0, np.float32))  # a Tensor updates the registered Parameter
    assert isinstance(d.weight, ms.Parameter) and d.weight.asnumpy()[0, 0] == 5.0
    with pytest.raises(TypeError, match="should be Parameter or None"):
        d.weight = 3
    d.bias = None
    assert d.bias is None and [p.name for p in d.get_parameters()] == ["weight"]
    del d.bias
    with pytest.raises(AttributeError, match="has no attribute 'bias'"):
        _ = d.bias
    d.child = Dense(1, 1)
    with pytest.raises(TypeError, match="should be Cell or None"):
        d.child = 1
    del d.child
    assert "child" not in d._cells
    assert "weight" in dir(d)


def test_assign_before_init_and_bad_inserts():
    class Early(nn.Cell):
        def __init__(self):
            self.w = param((1,))
            super().__init__()

    with pytest.raises(AttributeError, match="before Cell.__init__"):
        Early()
    d = Dense(1, 1)
    with pytest.raises(KeyError, match="should not contain'.'"):  # MindSpore 2.10's words, spacing included
        d.insert_param_to_cell("a.b", param((1,)))
    with pytest.raises(TypeError, match="must be 'Parameter' if not None"):
        d.insert_param_to_cell("t", ms.Tensor(np.ones(1, np.float32)))
    with pytest.raises(KeyError, match="already exists"):
        d.insert_child_to_cell("construct", Dense(1, 1))
    d.insert_child_to_cell("extra", Dense(1, 1))
    assert d.extra.weight.name == "weight"  # insert_child_to_cell does not rename (MindSpore)
    d.insert_param_to_cell("p", param((1,)))
    assert d.p.name == "p"


def test_parameter_sequence_attribute_registers_items():
    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.moments = ms.ParameterTuple([param((1,), name="moments.w"), param((2,), name="moments.b")])

    h = Holder()
    assert [k for k, _ in h.parameters_and_names()] == ["moments.w", "moments.b"]
    assert isinstance(h.moments, ms.ParameterTuple)
    h.moments = ms.ParameterTuple([param((3,), name="moments.w")])  # re-assignment replaces the members
    assert [(k, p.shape) for k, p in h.parameters_and_names()] == [("moments.w", (3,))]


def test_primitive_attribute_gets_instance_name():
    assert Dense(1, 1).matmul.instance_name == "matmul"


# ---- modes and flags -----------------------------------------------------------------------------------
def test_set_train_is_recursive_and_fresh_cells_are_eval():
    o = Outer()
    assert o.training is False and o.phase == "train"
    assert o.set_train() is o
    assert all(c.training for _, c in o.cells_and_names())
    o.set_train(False)
    assert not any(c.training for _, c in o.cells_and_names()) and o.phase == "predict"


def test_misc_methods_store_without_running():
    calls = []

    class Net(Dense):
        def construct(self, x):
            calls.append(1)
            return super().construct(x)

    n = Net(2, 2)
    n.compile(ms.Tensor(np.ones((1, 2), np.float32)))
    n.set_inputs(ms.Tensor(shape=[None, 2], dtype=ms.float32))
    assert calls == [] and n.get_inputs()[0].shape == (-1, 2)  # MindSpore: -1 marks a dynamic axis
    assert n.set_grad() is n and n.requires_grad
    assert n.shard(((1, 1),)) is n
    n.recompute(mp_comm_recompute=False)
    n.set_jit_config({"jit_level": "O1"})
    assert n.get_jit_config() == {"jit_level": "O1"}
    n.add_flags(my_flag=True)
    assert n.my_flag is True and n.get_flags() == {"my_flag": True}
    assert n.cls_name == "Net"
    seen = []
    assert Outer().apply(lambda c: seen.append(c.cls_name)).cls_name == "Outer"
    assert seen[-1] == "Outer" and seen[0] == "Dense"


def test_update_parameters_name():
    d = Dense(2, 2)
    d.update_parameters_name("head.")
    assert [p.name for p in d.get_parameters()] == ["head.weight", "head.bias"]
    assert d.param_prefix == "head"
    with pytest.raises(TypeError):
        d.update_parameters_name(1)


def test_check_names_detects_duplicates():
    class Wrapper(nn.Cell):
        def __init__(self):
            super().__init__(auto_prefix=False)
            self.a = Dense(1, 1)
            self.b = Dense(1, 1)

    with pytest.raises(ValueError, match="share the name 'weight'"):
        Wrapper().check_names()
    Outer().check_names()


# ---- calling ---------------------------------------------------------------------------------------------
def test_call_runs_construct_and_gradients_reach_parameters():
    d = Dense(4, 2, w=0.5)
    x = x44()
    assert_close(d(x), x.asnumpy() @ np.full((4, 2), 0.5, np.float32))
    assert d._plain_call
    grads = ms.grad(lambda inp: d(inp).sum(), grad_position=None, weights=d.trainable_params())(x)
    assert_close(grads[0], np.tile(x.asnumpy().sum(0), (2, 1)))
    assert_close(grads[1], np.full(2, 2.0))


def test_base_construct_must_be_overridden():
    with pytest.raises(AttributeError, match="'construct' is not defined"):
        nn.Cell()(1)


def test_forward_hooks_modify_inputs_and_outputs_and_remove():
    d = Dense(4, 2)
    order = []
    h1 = d.register_forward_pre_hook(lambda cell, inputs: (ops.mul(inputs[0], 2.0),))
    h2 = d.register_forward_hook(lambda cell, inputs, out: order.append("late"))
    h3 = d.register_forward_hook(lambda cell, inputs, out: order.append("early") or ops.add(out, 1.0), prepend=True)
    assert not d._plain_call
    x = x44()
    expected = (x.asnumpy() * 2) @ np.ones((4, 2), np.float32) + 1
    assert_close(d(x), expected)
    assert order == ["early", "late"]
    for h in (h1, h2, h3):
        h.remove()
    assert d._plain_call
    assert_close(d(x), x.asnumpy() @ np.ones((4, 2), np.float32))


def test_forward_hooks_with_kwargs_and_always_call():
    class Kw(nn.Cell):
        def construct(self, x, scale=1.0):
            if scale == 0:
                raise RuntimeError("boom")
            return ops.mul(x, scale)

    k = Kw()
    k.register_forward_pre_hook(lambda cell, args, kwargs: (args, {"scale": kwargs.get("scale", 1.0) * 3}),
                                with_kwargs=True)
    seen = []
    k.register_forward_hook(lambda cell, args, kwargs, out: seen.append(kwargs["scale"]), with_kwargs=True,
                            always_call=True)
    assert_close(k(ms.Tensor(np.ones(2, np.float32)), scale=2.0), np.full(2, 6.0))
    assert seen == [6.0]
    with pytest.raises(RuntimeError, match="boom"):
        k(ms.Tensor(np.ones(2, np.float32)), scale=0.0)
    assert seen == [6.0, 0.0]


def test_custom_bprop_overrides_autodiff():
    class Square(nn.Cell):
        def construct(self, x):
            return ops.mul(x, x)

        def bprop(self, x, out, dout):
            return (ops.mul(dout, 10.0),)

    s = Square()
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    assert_close(s(x), [1.0, 4.0])
    assert_close(ms.grad(lambda v: s(v).sum())(x), [10.0, 10.0])


def test_backward_hooks_see_and_replace_gradients():
    d = Dense(2, 1, w=3.0)
    record = {}

    def hook(cell, grad_input, grad_output):
        record["in"], record["out"] = grad_input[0].asnumpy(), grad_output[0].asnumpy()
        return (ops.mul(grad_input[0], 0.5),)

    d.register_backward_hook(hook)
    x = ms.Tensor(np.array([[1.0, 2.0]], np.float32))
    g = ms.grad(lambda v: ops.mul(d(v), 4.0).sum())(x)
    assert_close(record["out"], [[4.0]])
    assert_close(record["in"], [[12.0, 12.0]])
    assert_close(g, [[6.0, 6.0]])
    assert_close(d(x), [[9.0]])  # outside grad the hook path is a plain forward


def test_to_float_casts_floating_inputs_of_children():
    seen = []

    class Probe(nn.Cell):
        def construct(self, x, idx):
            seen.append((x.dtype, idx.dtype))
            return x

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.probe = Probe()

        def construct(self, x, idx):
            return self.probe(ops.cast(x, ms.float32), idx)

    n = Net().to_float(ms.float16)
    out = n(ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.ones(2, np.int32)))
    assert out.dtype == ms.float16
    assert seen == [(ms.float16, ms.int32)]
    with pytest.raises(ValueError, match="dst_type"):
        n.to_float(ms.int32)


def test_graph_mode_runs_pynative_until_a_compiler_is_installed():
    d = Dense(4, 2)
    x = x44()
    eager = d(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    assert_close(d(x), eager)
    calls = []
    previous = nn.cell._graph_runner  # the runtime's runner, installed by `import openspore`
    set_graph_runner(lambda cell, args, kwargs: calls.append(cell) or cell.construct(*args, **kwargs))
    try:
        assert_close(d(x), eager)
        assert calls == [d]
        ms.set_context(mode=ms.PYNATIVE_MODE)
        d(x)
        assert calls == [d]
    finally:
        set_graph_runner(previous)


# ---- printing and copying --------------------------------------------------------------------------------
def test_repr_format():
    expected = ("Block(\n"
                "  (fc): Dense(input_channels=4, output_channels=4, has_bias=True)\n"
                "  (layers): CellList(\n"
                "    (0): Dense(input_channels=4, output_channels=4, has_bias=True)\n"
                "    (1): Dense(input_channels=4, output_channels=4, has_bias=True)\n"
                "  )\n"
                "  (seq): SequentialCell(\n"
                "    (first): Dense(input_channels=4, output_channels=4, has_bias=True)\n"
                "  )\n"
                ")")
    assert repr(Block()) == expected
    assert repr(nn.Cell()) == "Cell()"


def test_deepcopy_is_independent_and_keeps_names_and_sharing():
    class Tied(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = Dense(2, 2)
            self.b = Dense(2, 2)
            self.b.weight = self.a.weight

        def construct(self, x):
            return self.b(self.a(x))

    t = Tied()
    c = copy.deepcopy(t)
    assert [p.name for p in c.get_parameters()] == [p.name for p in t.get_parameters()]
    assert c.a.weight is not t.a.weight and c.b.weight is c.a.weight
    c.a.weight.set_data(ms.Tensor(np.zeros((2, 2), np.float32)))
    assert t.a.weight.asnumpy().sum() == 4.0
    assert_close(c(ms.Tensor(np.ones((1, 2), np.float32))), np.zeros((1, 2)))


def test_state_dict_round_trip():
    a, b = Block(), Block()
    for p in a.get_parameters():
        p.set_data(ms.Tensor(np.random.default_rng(0).standard_normal(p.shape).astype(np.float32)))
    sd = a.state_dict()
    assert list(sd)[:3] == ["a", "b", "fc.weight"]
    result = b.load_state_dict(sd)
    assert result.missing_keys == [] and result.unexpected_keys == []
    for pa, pb in zip(a.get_parameters(), b.get_parameters()):
        assert_close(pb, pa.asnumpy())
    with pytest.raises(RuntimeError, match="Missing key"):
        b.load_state_dict({"a": np.ones(1, np.float32)})
    assert b.load_state_dict({"a": np.ones(1, np.float32)}, strict=False).unexpected_keys == []
    with pytest.raises(RuntimeError, match="size mismatch for a"):
        b.load_state_dict({"a": np.ones(2, np.float32)}, strict=False)


def test_deleting_a_parameter_sequence_unregisters_its_items():
    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = Dense(1, 1)
            self.extra = [param((1,)), param((2,))]

    h = Holder()
    assert [k for k, _ in h.parameters_and_names()] == ["extra.0", "extra.1", "fc.weight", "fc.bias"]
    del h.extra
    assert [k for k, _ in h.parameters_and_names()] == ["fc.weight", "fc.bias"]
