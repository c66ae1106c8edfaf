"""FlopsUtilizationCollector and flops_collection: FLOPs counted on the compiled graph (MindSpore's own figures
for Dense and conv networks are in tests/compat/recorded/flops_collector)."""
import numpy as np
import pytest

import openspore as ms
import openspore.dataset as ds
from openspore import nn
from openspore.train import FlopsUtilizationCollector, Model


def test_flops_of_forward_matmuls_and_a_batch_matmul(graph_mode):
    class Net(nn.Cell):
        def construct(self, a, b, c):
            return ms.ops.matmul(a, b), ms.ops.BatchMatMul(transpose_a=True)(c, c)

    net = Net()
    net(ms.Tensor(np.ones((3, 4), np.float32)), ms.Tensor(np.ones((4, 5), np.float32)),
        ms.Tensor(np.ones((2, 6, 7), np.float32)))
    model, hardware, shard, shard_hw, dynamic = ms.flops_collection("train")
    assert model == 2 * 3 * 4 * 5 + 2 * (2 * 7 * 7) * 6 and hardware == shard == shard_hw == model
    assert dynamic is False


def test_collector_prints_flops_and_writes_modelarts_logs(graph_mode, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MA_LOG_DIR", str(tmp_path))
    x = np.random.default_rng(0).random((24, 4), np.float32)
    data = ds.NumpySlicesDataset({"x": x, "y": x[:, :1]}, shuffle=False).batch(8)
    net = nn.Dense(4, 1)
    Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01)).train(
        1, data, callbacks=[FlopsUtilizationCollector(3, computility=1e9, enable_ma_collector=True)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("Full model flops is 128.0, Full hardware flops is 128.0, Shard model flops is 128.0, "
                        "Shard hardware flops is 128.0.")
    assert sum(line.startswith("Train per step time") for line in lines) == 2   # not after the epoch's last step
    assert "model_flops" in (tmp_path / "flops_rank_0.txt").read_text()
    assert len((tmp_path / "time_step_rank_0.txt").read_text().splitlines()) == 3


def test_collector_refuses_pynative_and_bad_arguments():
    x = np.ones((8, 4), np.float32)
    data = ds.NumpySlicesDataset({"x": x, "y": x[:, :1]}, shuffle=False).batch(8)
    net = nn.Dense(4, 1)
    with pytest.raises(ValueError, match="only support graph mode"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01)).train(
            1, data, callbacks=[FlopsUtilizationCollector(1)])
    with pytest.raises(TypeError, match="full_flops"):
        FlopsUtilizationCollector(2, full_flops=1)
    with pytest.raises(TypeError, match="computility"):
        FlopsUtilizationCollector(2, computility=0)


def test_train_fault_tolerance_names_what_is_missing(monkeypatch):
    monkeypatch.setenv("MS_ENABLE_TFT", "{TTP:1}")
    with pytest.raises(ValueError, match="only support on Ascend device but got device CPU"):
        ms.train.TrainFaultTolerance(ckpt_save_path="ckpt")
