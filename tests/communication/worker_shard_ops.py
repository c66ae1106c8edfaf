"""Sharding strategies beyond MatMul for the tests: `worker_shard_ops.py <out_dir>`. Small networks with a
sharded Gather (row- and column-split tables), LayerNorm, reductions, Softmax, BatchMatMul and broadcasting
elementwise ops, a MatMul chain whose unsharded ops take the propagated layout, a MatMul with out_strategy,
each trained 2 SGD steps in PyNative and GRAPH_MODE; then a run that takes its strategies from the strategy
file the first one saved. Per rank: <out_dir>/ops_<size>_<rank>.npz (losses, integrated weights, the shapes
stored) and ops_<size>_<rank>.json (the sharding report). Without a launcher it is the 1-process reference."""
import json
import os
import sys

import numpy as np

import openspore as ms
from openspore import communication as comm, nn, ops
from openspore.parallel import clear_sharding_report, gather_full, save_sharding_report, sharding_report


def _param(rng, shape, name, scale=0.5):
    return ms.Parameter(ms.Tensor((rng.standard_normal(shape) * scale).astype(np.float32)), name=name)


class Scored(nn.Cell):
    """loss = sum(body(x) * r): a scalar every rank agrees on, whose gradient reaches every output element."""

    def __init__(self, body, out_shape):
        super().__init__()
        self.body = body
        self.r = ms.Tensor(np.random.default_rng(7).standard_normal(out_shape).astype(np.float32))
        self.mul = ops.Mul()
        self.sum = ops.ReduceSum()

    def construct(self, x):
        out = self.body(x)
        if isinstance(out, tuple):
            out = out[0]
        return self.sum(self.mul(out, self.r), ())


class Embed(nn.Cell):
    def __init__(self, strategy):
        super().__init__()
        self.table = _param(np.random.default_rng(1), (8, 4), "table")
        self.gather = ops.Gather().shard(strategy)

    def construct(self, ids):
        return self.gather(self.table, ids, 0)


class Norm(nn.Cell):
    def __init__(self, s_mul, s_ln):
        super().__init__()
        rng = np.random.default_rng(2)
        self.scale = _param(rng, (8,), "scale")
        self.gamma = _param(rng, (8,), "gamma")
        self.beta = _param(rng, (8,), "beta")
        self.mul = ops.Mul().shard(s_mul)
        self.norm = ops.LayerNorm(begin_norm_axis=2, begin_params_axis=2).shard(s_ln)

    def construct(self, x):
        return self.norm(self.mul(x, self.scale), self.gamma, self.beta)


class Reductions(nn.Cell):
    """Columns split by the MatMul; sum (propagated), mean and max reduce over the split columns."""

    def __init__(self, s_mm, s_red):
        super().__init__()
        self.w = _param(np.random.default_rng(3), (6, 8), "w")
        self.mm = ops.MatMul().shard(s_mm)
        self.total = ops.ReduceSum(keep_dims=True)
        self.mean = ops.ReduceMean(keep_dims=True).shard(s_red)
        self.max = ops.ReduceMax(keep_dims=True).shard(s_red)
        self.add = ops.Add()

    def construct(self, x):
        h = self.mm(x, self.w)
        return self.add(self.add(self.total(h, 1), self.mean(h, 1) * 3.0), self.max(h, 1))


class Softmaxes(nn.Cell):
    def __init__(self, s_rows, s_cols):
        super().__init__()
        self.w = _param(np.random.default_rng(4), (6, 8), "w")
        self.mm = ops.MatMul()
        self.rows = ops.Softmax(axis=-1).shard(s_rows)
        self.cols = ops.Softmax(axis=0).shard(s_cols)

    def construct(self, x):
        h = self.mm(x, self.w)
        return self.rows(h) + self.cols(h)


class Batched(nn.Cell):
    def __init__(self, s_bmm, s_add):
        super().__init__()
        rng = np.random.default_rng(5)
        self.w = _param(rng, (2, 6, 4), "w")
        self.b = _param(rng, (4,), "b")
        self.bmm = ops.BatchMatMul().shard(s_bmm)
        self.add = ops.Add().shard(s_add)

    def construct(self, x):
        return self.add(self.bmm(x, self.w), self.b)


class Chain(nn.Cell):
    """MatMul (contraction split: w1 stored sliced), then ReLU, bias Add, a row-split MatMul and Tanh: the
    last three unsharded ones keep the rows split."""

    def __init__(self, s_mm1=None, s_mm2=None):
        super().__init__()
        rng = np.random.default_rng(6)
        self.w1 = _param(rng, (8, 8), "w1")
        self.b1 = _param(rng, (8,), "b1")
        self.w2 = _param(rng, (8, 4), "w2")
        self.mm1, self.mm2 = ops.MatMul(), ops.MatMul()
        if s_mm1 is not None:
            self.mm1.shard(s_mm1)
            self.mm2.shard(s_mm2)
        self.relu, self.tanh = ops.ReLU(), ops.Tanh()

    def construct(self, x):
        return self.tanh(self.mm2(self.relu(self.mm1(x, self.w1)) + self.b1, self.w2))


class ReduceScattered(nn.Cell):
    def __init__(self, s_in, s_out):
        super().__init__()
        self.w = _param(np.random.default_rng(8), (8, 6), "w")
        self.mm = ops.MatMul().shard(s_in, s_out)
        self.relu = ops.ReLU()

    def construct(self, x):
        return self.relu(self.mm(x, self.w))


def cases(n):
    big = n == 4
    return {
        "gather_rows": (Embed(((n, 1), (1, 1))), (4, 3, 4), "ids"),
        "gather_cols": (Embed(((1, 2), (2, 1)) if big else ((1, n), (1, 1))), (4, 3, 4), "ids"),
        "layernorm": (Norm(((2, 2, 1), (1,)) if big else ((n, 1, 1), (1,)),
                           ((2, 2, 1), (1,), (1,)) if big else ((1, n, 1), (1,), (1,))), (4, 2, 8), "x3"),
        "reductions": (Reductions(((1, 1), (1, n)), ((1, n),)), (4, 1), "x"),
        "softmax": (Softmaxes(((n, 1),), ((1, n),)), (4, 8), "x"),
        "batchmatmul": (Batched(((2, 1, 2), (2, 2, 1)) if big else ((1, 1, n), (1, n, 1)),
                                ((2, 1, 2), (2,)) if big else ((n, 1, 1), (1,))), (2, 4, 4), "xb"),
        "chain": (Chain(((1, n), (n, 1)), ((n, 1), (1, 1))), (4, 4), "x8"),
        "reduce_scatter": (ReduceScattered(((1, n), (n, 1)), ((n, 1),)), (4, 6), "x8"),
    }


def main():
    out_dir = sys.argv[1]
    comm.init()
    rank, size = comm.get_rank(), comm.get_group_size()
    strategy_file = os.path.join(out_dir, f"strategy_{size}.ckpt")
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, full_batch=True,
                                 strategy_ckpt_config={"save_file": strategy_file})
    rng = np.random.default_rng(0)
    inputs = {"x": rng.standard_normal((4, 6)).astype(np.float32),
              "x8": rng.standard_normal((4, 8)).astype(np.float32),
              "x3": rng.standard_normal((4, 2, 8)).astype(np.float32),
              "xb": rng.standard_normal((2, 4, 6)).astype(np.float32),
              "ids": rng.integers(0, 8, (4, 3)).astype(np.int32)}
    result, reports = {}, {}
    for mode_name, mode in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
        ms.set_context(mode=mode)
        for case, value in cases(size).items():
            body, out_shape, feed = value
            clear_sharding_report()
            net = Scored(body, out_shape)
            step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
            result[f"{mode_name}_{case}_loss"] = np.array([float(step(ms.Tensor(inputs[feed])).asnumpy())
                                                           for _ in range(2)])
            for p in body.trainable_params():
                result[f"{mode_name}_{case}_{p.name}"] = gather_full(p)
                result[f"shape_{mode_name}_{case}_{p.name}"] = np.array(p.shape)
            reports[f"{mode_name}_{case}"] = sharding_report()
        # a run with no shard() of its own, its strategies taken from the file the runs above saved
        ms.set_auto_parallel_context(strategy_ckpt_config={"load_file": strategy_file})
        clear_sharding_report()
        body = Chain()
        net = Scored(body, (4, 4))
        step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
        result[f"{mode_name}_loaded_loss"] = np.array([float(step(ms.Tensor(inputs["x8"])).asnumpy())
                                                       for _ in range(2)])
        for p in body.trainable_params():
            result[f"{mode_name}_loaded_{p.name}"] = gather_full(p)
            result[f"shape_{mode_name}_loaded_{p.name}"] = np.array(p.shape)
        reports[f"{mode_name}_loaded"] = sharding_report()
        ms.set_auto_parallel_context(strategy_ckpt_config={"save_file": strategy_file})
    save_sharding_report(os.path.join(out_dir, f"report_{size}_{rank}.txt"))  # the last run's, as text
    np.savez(os.path.join(out_dir, f"ops_{size}_{rank}.npz"), **result)
    with open(os.path.join(out_dir, f"ops_{size}_{rank}.json"), "w") as f:
        json.dump(reports, f, default=str)
    with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
        json.dump({"rank": rank, "size": size}, f)
    comm.release()


if __name__ == "__main__":
    main()
