"""mindspore.boost: expected values are MindSpore 2.10's (run as a black box, quoted) or computed here in numpy."""
import numpy as np
import pytest

import openspore as ms
from openspore import Parameter, Tensor, boost, nn, ops
from openspore.boost.adasum import adasum_pair, adasum_tree
from openspore.boost.grad_freeze import FreezeOpt, freeze_cell
from openspore.boost.less_batch_normalization import CommonHeadLastFN


@pytest.fixture(autouse=True)
def fresh_autoboost():
    boost.AutoBoost.reset()
    yield
    boost.AutoBoost.reset()


def _params(n, prefix="p"):
    return [Parameter(Tensor(np.ones(2, np.float32)), name=f"{prefix}{i}") for i in range(n)]


class Chain(nn.Cell):
    """sum(x * w0 * w1 * ... ): every gradient is x times the product of the other weights."""

    def __init__(self, k):
        super().__init__()
        self.k = k
        for i in range(k):
            setattr(self, f"w{i}", Parameter(Tensor(np.ones(2, np.float32)), name=f"w{i}"))

    def construct(self, x):
        s = x
        for i in range(self.k):
            s = s * getattr(self, f"w{i}")
        return s.sum()


def test_assign_parameter_group_fusion_ids_match_mindspore():
    params = _params(8)
    process = boost.ParameterProcess()
    assert process.assign_parameter_group(params) is not None
    assert [p.comm_fusion for p in params] == [1, 1, 1, 1, 2, 2, 2, 2]      # MindSpore 2.10
    process.assign_parameter_group(params, [2, 5])                          # the id carries over calls
    assert [p.comm_fusion for p in params] == [2, 2, 3, 3, 3, 4, 4, 4]
    for n, expected in ((7, [1, 1, 1, 2, 2, 2, 2]), (3, [1, 2, 2]), (1, [2])):
        ps = _params(n)
        boost.ParameterProcess().assign_parameter_group(ps)
        assert [p.comm_fusion for p in ps] == expected
    with pytest.raises(TypeError, match="split_point"):
        process.assign_parameter_group(params, "2")


def test_generate_group_params():
    ps = _params(3)
    groups = boost.ParameterProcess.generate_group_params(ps[:2], ps)
    assert len(groups) == 1 and groups[0]["params"] == ps[:2]
    origin = [{"params": ps[:1], "weight_decay": 0.1}, {"params": ps[1:], "lr": 0.5}]
    groups = boost.ParameterProcess.generate_group_params([ps[0], ps[2]], origin)
    assert [(g["params"], g.get("weight_decay"), g.get("lr")) for g in groups] == [
        ([ps[0]], 0.1, None), ([ps[2]], None, 0.5)]


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc(self.bn(self.conv(x)).mean((2, 3)))


def test_optimizer_process_grad_centralization_groups_match_mindspore():
    net = ConvNet()
    ps = net.trainable_params()
    names = [p.name for p in ps]
    assert names == ["conv.weight", "bn.gamma", "bn.beta", "fc.weight", "fc.bias"]
    opt = nn.Momentum([{"params": ps[:1]}, {"params": ps[1:], "weight_decay": 0.01}], 0.1, 0.9, use_nesterov=True)
    process = boost.OptimizerProcess(opt)
    process.add_grad_centralization(net)
    # MindSpore 2.10: conv.weight (gc) | fc.weight (gc, wd 0.01) | bn.gamma, bn.beta, fc.bias (wd 0.01)
    layout = [([p.name for p in g["params"]], g.get("grad_centralization", False), g.get("weight_decay"))
              for g in process.origin_params]
    assert layout == [(["conv.weight"], True, None), (["fc.weight"], True, 0.01),
                      (["bn.gamma", "bn.beta", "fc.bias"], False, 0.01)]
    new = process.generate_new_optimizer()
    assert type(new) is nn.Momentum and new is not opt
    assert new.use_nesterov is True and abs(float(new.momentum.asnumpy()) - 0.9) < 1e-7
    assert new.grad_centralization and tuple(new.grad_centralization_flags) == (True, True, False, False, False)
    flat = boost.OptimizerProcess(nn.SGD(ps, 0.1))
    flat.add_grad_centralization(net)          # a flat parameter list has no groups to tag (as in MindSpore)
    assert not flat.generate_new_optimizer().grad_centralization
    owners = boost.OptimizerProcess.build_params_dict(net)
    assert type(owners[id(ps[0])]).__name__ == "Conv2d" and type(owners[id(ps[3])]).__name__ == "Dense"
    with pytest.raises(TypeError, match="Optimizer"):
        boost.OptimizerProcess(net)


def test_gradient_accumulation_matches_mindspore():
    w = Parameter(Tensor(np.zeros(2, np.float32)), name="w")
    acc = boost.GradientAccumulation(2, nn.SGD([w], 1.0))
    seen = []
    for g in (1.0, 3.0, 5.0):
        loss = acc(Tensor(7.0), (Tensor(np.full(2, g, np.float32)),))
        assert float(loss.asnumpy()) == 7.0
        seen.append(w.asnumpy().tolist())
    assert seen == [[0.0, 0.0], [-2.0, -2.0], [-2.0, -2.0]]                  # MindSpore 2.10
    state = {p.name: p.asnumpy() for p in acc.get_parameters()}
    np.testing.assert_allclose(state["grad_accumulation.w"], [2.5, 2.5])
    assert int(state["accumulation_step"]) == 1
    with pytest.raises(ValueError, match="max_accumulation_step"):
        boost.GradientAccumulation(0, nn.SGD([w], 1.0))


def test_freeze_index_sequences():
    gf = boost.GradientFreeze(3, 0, 0.5, 8)
    # strategy 0 (continuous): MindSpore 2.10's sequences
    assert gf.generate_freeze_index_sequence(3, 0, 0.5, 12) == [0, 0, 1, 2] * 3
    assert gf.generate_freeze_index_sequence(4, 0, 0.5, 16) == [0, 0, 0, 1, 2, 3] * 3
    assert gf.generate_freeze_index_sequence(4, 0, 0.7, 16) == ([0] * 6 + [1, 2, 3]) * 2
    assert gf.generate_freeze_index_sequence(5, 0, 0.9, 16) == [0] * 36 + [1, 2, 3, 4]
    assert gf.generate_freeze_index_sequence(2, 0, 0.3, 16) == [1] * 16
    # strategy 1 (interval): random, starts unfrozen, index 0 takes a share freeze_p of the steps
    np.random.seed(3)
    seq = gf.generate_freeze_index_sequence(4, 1, 0.7, 4000)
    assert len(seq) == 4000 and seq[0] == 0 and set(seq) == {0, 1, 2, 3}
    assert abs(seq.count(0) / 4000 - 0.7) < 0.03
    np.random.seed(3)
    assert gf.generate_freeze_index_sequence(4, 1, 0.7, 4000) == seq
    with pytest.raises(ValueError, match="freeze_p"):
        gf.generate_freeze_index_sequence(3, 1, 1.0, 10)
    with pytest.raises(ValueError, match="freeze_strategy"):
        gf.generate_freeze_index_sequence(3, 2, 0.5, 10)


def test_split_parameters_groups_are_nested_suffixes():
    groups = boost.GradientFreeze(3, 1, 0.5, 10).split_parameters_groups(Chain(10), 3)
    names = [[p.name for p in g] for g in groups]
    assert names[0] == [f"w{i}" for i in range(10)]
    for shorter, longer in zip(names[1:], names):
        assert len(shorter) < len(longer) and longer[-len(shorter):] == shorter


def test_freeze_cell_step_matches_independent_gradient():
    net = Chain(4)
    opt = FreezeOpt(nn.SGD(net.trainable_params(), 1.0))
    cells = freeze_cell(False, net, opt, 1.0, ops.GradOperation(get_by_list=True, sens_param=True), False)
    assert isinstance(cells, tuple) and len(cells) == 1
    loss = cells[0](Tensor(np.array([1.0, 2.0], np.float32)))
    assert float(loss.asnumpy()) == 3.0
    # d loss / d w_i = x * (product of the other weights) = x: one SGD step with lr 1 gives 1 - x
    for p in net.trainable_params():
        np.testing.assert_allclose(p.asnumpy(), [0.0, -1.0])


def test_boost_train_cell_trains_the_group_the_sequence_names():
    net = Chain(4)
    ps = net.trainable_params()
    opt = FreezeOpt(nn.SGD(ps, 0.5), [ps, ps[2:]], [1, 0])
    step = boost.BoostTrainOneStepCell(net, opt)
    x = Tensor(np.array([1.0, 1.0], np.float32))
    step(x)                                          # strategy[0] = 1: only w2, w3 move
    values = [p.asnumpy().copy() for p in ps]
    np.testing.assert_allclose(values[0], [1, 1])
    np.testing.assert_allclose(values[1], [1, 1])
    np.testing.assert_allclose(values[2], [0.5, 0.5])
    np.testing.assert_allclose(values[3], [0.5, 0.5])
    step(x)                                          # strategy[1] = 0: everything moves
    # grad of w0 = x * w1 * w2 * w3 = 0.25
    np.testing.assert_allclose(ps[0].asnumpy(), [1 - 0.5 * 0.25] * 2)
    np.testing.assert_allclose(ps[2].asnumpy(), [0.5 - 0.5 * 0.5] * 2)


def test_boost_train_cell_without_boost_is_train_one_step():
    np.random.seed(0)
    x = Tensor(np.random.rand(4, 3).astype(np.float32))
    y = Tensor(np.random.rand(4, 2).astype(np.float32))
    w0 = np.random.rand(2, 3).astype(np.float32)
    losses = []
    for cls in (nn.TrainOneStepCell, boost.BoostTrainOneStepCell):
        dense = nn.Dense(3, 2, weight_init=Tensor(w0), has_bias=False)
        net = nn.WithLossCell(dense, nn.MSELoss())
        train = cls(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))
        losses.append([float(train(x, y).asnumpy()) for _ in range(3)])
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-6)


def test_boost_train_cell_with_configured_gradient_accumulation():
    boost.AutoBoost("O0", {"boost": {"mode": "manual", "grad_accumulation": True},
                           "grad_accumulation": {"grad_accumulation_step": 2}})
    w = Parameter(Tensor(np.zeros(1, np.float32)), name="w")

    class Lin(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = w

        def construct(self, x):
            return (self.w * x).sum()

    train = boost.BoostTrainOneStepCell(Lin(), nn.SGD([w], 1.0))
    train(Tensor(np.array([2.0], np.float32)))
    assert float(w.asnumpy()[0]) == 0.0
    train(Tensor(np.array([4.0], np.float32)))         # mean gradient 3
    assert float(w.asnumpy()[0]) == -3.0


def test_boost_loss_scale_cell_skips_overflowing_step():
    net = nn.WithLossCell(nn.Dense(4, 2, weight_init="ones", has_bias=False), nn.MSELoss())
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    scale = Tensor(np.full((1,), np.finfo(np.float32).max), ms.float32)
    train = boost.BoostTrainOneStepWithLossScaleCell(net, opt, scale_sense=scale)
    x, y = Tensor(np.ones((3, 4), np.float32)), Tensor(np.zeros((3, 2), np.float32))
    loss, overflow, used = train(x, y)
    assert float(loss.asnumpy()) == 16.0 and bool(overflow.asnumpy())
    np.testing.assert_array_equal(net.trainable_params()[0].asnumpy(), np.ones((2, 4), np.float32))
    train.set_sense_scale(Tensor(np.full((1,), 1.0), ms.float32))
    loss, overflow, _ = train(x, y)
    assert not bool(overflow.asnumpy())
    assert not np.array_equal(net.trainable_params()[0].asnumpy(), np.ones((2, 4), np.float32))


def test_less_bn_replaces_last_dense_with_feature_normalized_head():
    net = nn.SequentialCell([nn.Dense(3, 5), nn.ReLU(), nn.Dense(5, 4)])
    w_last = net[2].weight.asnumpy().copy()
    x = np.random.RandomState(1).rand(2, 3).astype(np.float32)
    hidden = net[1](net[0](Tensor(x))).asnumpy()
    less = boost.LessBN(net, fn_flag=True)
    assert isinstance(net[2], CommonHeadLastFN)
    expected = (hidden / np.linalg.norm(hidden, axis=1, keepdims=True)) @ \
        (w_last / np.linalg.norm(w_last, axis=1, keepdims=True)).T
    np.testing.assert_allclose(less(Tensor(x)).asnumpy(), expected, rtol=1e-5, atol=1e-6)
    plain = nn.Dense(3, 2)
    assert boost.LessBN(plain).network is plain and isinstance(plain, nn.Dense)
    with pytest.raises(TypeError, match="network"):
        boost.LessBN(3)


@pytest.mark.parametrize("level, config, expected", [
    ("O0", {}, set()),
    ("O1", {}, {"less_bn", "grad_freeze"}),
    ("O2", {}, {"less_bn", "grad_freeze", "adasum"}),
    ("O1", {"mode": "enable_all"}, {"less_bn", "grad_freeze", "adasum", "grad_accumulation", "dim_reduce",
                                    "loss_scale_group"}),
    ("O2", {"mode": "disable_all"}, set()),
    ("O1", {"mode": "manual", "grad_freeze": False, "adasum": True}, {"less_bn", "adasum"}),
])
def test_autoboost_levels_and_modes_match_mindspore(level, config, expected):
    auto = boost.AutoBoost(level, {"boost": config})
    assert {k for k, v in auto.boost_config.items() if v} == expected


def test_autoboost_is_one_configuration_per_process():
    first = boost.AutoBoost("O1", {"grad_freeze": {"freeze_p": 0.5}})
    assert boost.AutoBoost("O0") is first and first.level == "O1" and first._freeze_p == 0.5
    boost.AutoBoost.reset()
    with pytest.raises(ValueError, match="boost mode must be in"):
        boost.AutoBoost("O1", {"boost": {"mode": "bad"}})


def test_autoboost_train_process_applies_less_bn_and_freezing():
    boost.AutoBoost("O1", {"grad_freeze": {"param_groups": 2, "total_steps": 6}})
    net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    network, optimizer = boost.AutoBoost().network_auto_process_train(net, opt)
    assert isinstance(network, boost.LessBN) and isinstance(net[2], CommonHeadLastFN)
    assert isinstance(optimizer, FreezeOpt) and optimizer.groups_num == 2
    train = boost.BoostTrainOneStepCell(nn.WithLossCell(network, nn.MSELoss()), optimizer)
    x, y = Tensor(np.ones((2, 3), np.float32)), Tensor(np.zeros((2, 2), np.float32))
    assert np.isfinite(float(train(x, y).asnumpy()))


def test_adasum_combination_against_numpy():
    rng = np.random.RandomState(0)
    vecs = [rng.randn(5).astype(np.float32) for _ in range(3)]

    def pair(a, b):
        d = a @ b
        return (1 - d / (2 * (a @ a))) * a + (1 - d / (2 * (b @ b))) * b

    np.testing.assert_allclose(adasum_pair(Tensor(vecs[0]), Tensor(vecs[1])).asnumpy(), pair(vecs[0], vecs[1]),
                               rtol=1e-5)
    np.testing.assert_allclose(adasum_tree([Tensor(v) for v in vecs]).asnumpy(),
                               pair(pair(vecs[0], vecs[1]), vecs[2]), rtol=1e-5)
    zero = np.zeros(5, np.float32)
    np.testing.assert_allclose(adasum_pair(Tensor(zero), Tensor(vecs[1])).asnumpy(), vecs[1], rtol=1e-6)
    p = Parameter(Tensor(vecs[2]), name="p")
    out = boost.AdaSum(0, 1, 1, (p,))((Tensor(vecs[0]),), (p,), (Tensor(vecs[1]),))
    np.testing.assert_allclose(out[0].asnumpy(), vecs[1] + vecs[0], rtol=1e-6)
    with pytest.raises(ValueError, match="rank"):
        boost.AdaSum(2, 2, 1, (p,))


def test_unimplemented_names_say_so():
    for name in ("DimReduce", "GroupLossScaleManager"):
        with pytest.raises(AttributeError, match="not implemented in openspore"):
            getattr(boost, name)
