"""Tensor-parallel (Megatron-style) inference of the GPT over `size` processes.

Each rank holds one slice of every block: the attention heads are split in `size` groups (rank r keeps the
q/k/v columns of its heads in `c_attn` and the matching input rows of `attn.c_proj`), and so is the MLP (rank r keeps
its 1/size of `c_fc`'s outputs and the matching inputs of `mlp.c_proj`). Embeddings, layer norms and the tied LM
head are replicated. A row-parallel projection (`attn.c_proj`, `mlp.c_proj`) gives each rank a partial sum, so one
AllReduce (openspore's communication layer: Gloo on CPU, NCCL on GPU) after each makes the full activation again;
biases are added once, after the sum. The paged KV pool of a rank holds its heads only (1/size of the bytes).

`TensorParallelEngine` is an `LLMEngine` over such a slice (`GPTShard`): the same prefill/decode graphs, the same
API, so `ContinuousBatchingScheduler` and `generate` drive it unchanged on rank 0. Each call on the leader is first
published to the other ranks through a `channel` (in a job of processes: `GroupChannel`, a broadcast of the call);
the followers run `follow()`, which replays the calls on their slice, so every rank makes the same pool decisions
and meets the leader in the same AllReduces. `engine.config` is the slice's config (its n_embd and n_head are the
local ones, which is what the graphs and the pool need); `engine.full_config` is the model's.

>>> import numpy as np
>>> from openspore.llm import GPT, GPTConfig
>>> from openspore.llm.tensor_parallel import shard_gpt_params
>>> cfg = GPTConfig(vocab_size=32, n_positions=16, n_embd=16, n_layer=1, n_head=4)
>>> full = {n: p.asnumpy() for n, p in GPT(cfg).parameters_and_names()}
>>> half = shard_gpt_params(full, cfg, rank=1, size=2)
>>> half["blocks.0.attn.c_attn.weight"].shape, half["blocks.0.mlp.c_proj.weight"].shape
((24, 16), (16, 32))
>>> np.array_equal(half["blocks.0.mlp.c_fc.weight"], full["blocks.0.mlp.c_fc.weight"][32:])
True
"""
import numpy as np

from .. import nn, ops
from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..core.parameter import Parameter
from .config import GPTConfig
from .engine import LLMEngine
from .model import GPT, attend

__all__ = ["shard_gpt_params", "save_rank_checkpoints", "GPTShard", "TensorParallelEngine", "GroupChannel", "check_split"]


def check_split(config, size):
    """ValueError unless `size` processes can split the model's heads (and so its MLP) evenly."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"tensor parallel: the number of ranks must be a positive int, but got {size!r}.")
    if config.n_head % size:
        raise ValueError(f"tensor parallel: n_head={config.n_head} cannot be split over {size} ranks "
                         f"(n_head must be a multiple of the number of ranks).")


def _value(v):
    return np.asarray(v.asnumpy() if hasattr(v, "asnumpy") else v)


def shard_gpt_params(params, config, rank, size):
    """The slice of rank `rank` of `size` of full GPT parameters (name → Parameter/Tensor/ndarray, e.g.
    `ms.load_checkpoint(path)`): name → numpy array, with the GPT's own names (see the module docstring)."""
    check_split(config, size)
    if not 0 <= rank < size:
        raise ValueError(f"tensor parallel: rank {rank!r} is outside [0, {size}).")
    c = config.n_embd
    part, hidden = c // size, 4 * c // size
    out = {}
    for name, value in params.items():
        arr = _value(value)
        suffix = name.split(".", 2)[-1] if name.startswith("blocks.") else ""
        if suffix in ("attn.c_attn.weight", "attn.c_attn.bias"):
            # rows are q (c), k (c), v (c); each of them heads × head_dim, so a head group is a row range of each
            arr = np.concatenate([arr[j * c + rank * part: j * c + (rank + 1) * part] for j in range(3)], 0)
        elif suffix == "attn.c_proj.weight":
            arr = arr[:, rank * part:(rank + 1) * part]
        elif suffix in ("mlp.c_fc.weight", "mlp.c_fc.bias"):
            arr = arr[rank * hidden:(rank + 1) * hidden]
        elif suffix == "mlp.c_proj.weight":
            arr = arr[:, rank * hidden:(rank + 1) * hidden]
        out[name] = np.ascontiguousarray(arr)
    return out


class RowParallelDense(nn.Cell):
    """y = AllReduce(x @ weightᵀ) + bias: `weight` [out, in/size] is this rank's input slice, so x @ weightᵀ is a
    partial sum; the bias (replicated) is added once, after the sum."""

    def __init__(self, in_local, out_channels, dtype):
        super().__init__()
        self.weight = Parameter(Tensor(np.zeros((out_channels, in_local), dtype.np_dtype), dtype), name="weight")
        self.bias = Parameter(Tensor(np.zeros((out_channels,), dtype.np_dtype), dtype), name="bias")
        self.all_reduce = ops.AllReduce()

    def construct(self, x):
        partial = ops.matmul(x, ops.transpose(self.weight, (1, 0)))
        return self.all_reduce(partial) + self.bias


class ShardAttention(nn.Cell):
    """The heads of one rank: c_attn makes their q, k, v (column-parallel), c_proj sums over ranks."""

    def __init__(self, local, full, dtype):
        super().__init__()
        self.n_head, self.head_dim, self.n_local = local.n_head, local.head_dim, local.n_embd
        self.c_attn = nn.Dense(full.n_embd, 3 * local.n_embd, dtype=dtype)
        self.c_proj = RowParallelDense(local.n_embd, full.n_embd, dtype)

    def construct(self, x, mask_add):
        b, t, _ = x.shape
        qkv = ops.reshape(self.c_attn(x), (b, t, 3, self.n_head, self.head_dim))
        qkv = ops.transpose(qkv, (2, 0, 3, 1, 4))
        out = attend(qkv[0], qkv[1], qkv[2], mask_add, self.head_dim)
        return self.c_proj(ops.reshape(ops.transpose(out, (0, 2, 1, 3)), (b, t, self.n_local)))


class ShardMLP(nn.Cell):
    """This rank's part of the MLP: c_fc (column-parallel) → gelu → c_proj (row-parallel, summed over ranks)."""

    def __init__(self, local, full, dtype):
        super().__init__()
        self.c_fc = nn.Dense(full.n_embd, 4 * local.n_embd, dtype=dtype)
        self.c_proj = RowParallelDense(4 * local.n_embd, full.n_embd, dtype)

    def construct(self, x):
        return self.c_proj(ops.gelu(self.c_fc(x), approximate="tanh"))


class ShardBlock(nn.Cell):
    def __init__(self, local, full, dtype):
        super().__init__()
        c, eps = full.n_embd, full.layer_norm_epsilon
        self.ln_1 = nn.LayerNorm((c,), epsilon=eps, dtype=dtype)
        self.attn = ShardAttention(local, full, dtype)
        self.ln_2 = nn.LayerNorm((c,), epsilon=eps, dtype=dtype)
        self.mlp = ShardMLP(local, full, dtype)

    def construct(self, x, mask_add):
        x = x + self.attn(self.ln_1(x), mask_add)
        return x + self.mlp(self.ln_2(x))


class GPTShard(GPT):
    """Rank `rank`'s slice of a GPT split over `size` ranks; parameter names are the GPT's. A GPT by type (so an
    LLMEngine takes it), but it builds only its slice: `config` describes the slice (n_embd/size, n_head/size, as
    the engine's graphs and pool read them) and `full_config` the whole model."""

    def __init__(self, config, rank, size):  # pylint: disable=super-init-not-called
        nn.Cell.__init__(self)  # not GPT.__init__: that would build (and hold) every full-size layer
        if not isinstance(config, GPTConfig):
            raise TypeError(f"GPTShard expects a GPTConfig, but got {type(config).__name__}.")
        check_split(config, size)
        self.full_config, self.rank, self.size = config, int(rank), int(size)
        self.config = GPTConfig(vocab_size=config.vocab_size, n_positions=config.n_positions,
                                n_embd=config.n_embd // size, n_layer=config.n_layer, n_head=config.n_head // size,
                                layer_norm_epsilon=config.layer_norm_epsilon, dtype=config.dtype)
        dtype = mstype.float16 if config.dtype == "float16" else mstype.float32
        self.wte = nn.Embedding(config.vocab_size, config.n_embd, dtype=dtype)
        self.wpe = nn.Embedding(config.n_positions, config.n_embd, dtype=dtype)
        self.blocks = nn.CellList([ShardBlock(self.config, config, dtype) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm((config.n_embd,), epsilon=config.layer_norm_epsilon, dtype=dtype)

    def load_full(self, params):
        """Load this rank's slice of GPT parameters (name → value): the full model's (sliced here) or this rank's
        slice already (as `save_rank_checkpoints` writes); ValueError naming what is missing or mis-shaped."""
        from ..train.serialization import load_param_into_net
        probe = params.get("blocks.0.attn.c_attn.weight")
        if probe is not None and tuple(probe.shape)[0] == 3 * self.config.n_embd and self.size > 1:
            mine = {n: _value(v) for n, v in params.items()}  # a per-rank file: its slice as saved
        else:
            mine = shard_gpt_params(params, self.full_config, self.rank, self.size)
        own = dict(self.parameters_and_names())
        missing = [n for n in own if n not in mine]
        if missing:
            raise ValueError(f"GPTShard: the parameters lack {missing[:5]} of the GPT.")
        for name, param in own.items():
            if tuple(mine[name].shape) != tuple(param.shape):
                raise ValueError(f"GPTShard: parameter {name!r} has shape {mine[name].shape}, expected "
                                 f"{tuple(param.shape)} for rank {self.rank} of {self.size}.")
        load_param_into_net(self, {n: Parameter(Tensor(mine[n]), name=n) for n in own})
        return self


def save_rank_checkpoints(ckpt_path, config, size, out_dir):
    """Write `out_dir/rank_<r>.ckpt` for r < size: each rank's slice of the full checkpoint `ckpt_path` (what
    `startup_agents(model_files=[...])` may load instead of the full file); returns the paths."""
    import os
    from ..train.serialization import load_checkpoint, save_checkpoint
    if not isinstance(config, GPTConfig):
        config = GPTConfig.from_dict(config) if isinstance(config, dict) else GPTConfig.load(config)
    full = load_checkpoint(ckpt_path)
    paths = []
    for rank in range(size):
        part = shard_gpt_params(full, config, rank, size)
        path = os.path.join(out_dir, f"rank_{rank}.ckpt")
        save_checkpoint({n: Tensor(v) for n, v in part.items()}, path)
        paths.append(path)
    return paths


class GroupChannel:
    """Publishes the leader's calls to the other ranks of a communication group: `publish(call)` on the leader
    and `receive()` on the others are one broadcast of a pickled object (from world rank `src`)."""

    def __init__(self, src=0, group=None):
        self.src, self.group = src, group

    def publish(self, call):
        from ..communication.distributed import broadcast_object_list
        box = [call]
        broadcast_object_list(box, src=self.src, group=self.group)

    def receive(self):
        from ..communication.distributed import broadcast_object_list
        box = [None]
        broadcast_object_list(box, src=self.src, group=self.group)
        return box[0]


class TensorParallelEngine(LLMEngine):
    """An LLMEngine over a `GPTShard` whose prefill/decode/free calls are mirrored on every rank.

    `leader=True` (rank 0): each call is published on `channel` before it runs here. `leader=False`: call
    `follow()`, which runs the published calls until the leader calls `stop_followers()`."""

    def __init__(self, shard, *, channel=None, leader=True, **kw):
        if not isinstance(shard, GPTShard):
            raise TypeError(f"TensorParallelEngine expects a GPTShard, but got {type(shard).__name__}.")
        super().__init__(shard, **kw)
        self.full_config, self.rank, self.size = shard.full_config, shard.rank, shard.size
        self.channel, self.leader = channel, leader

    @classmethod
    def from_checkpoint(cls, ckpt_path, config_path_or_config, *, rank, size, channel=None, **kw):
        """Load rank `rank`'s slice of the full GPT checkpoint `ckpt_path` (config: GPTConfig, dict or JSON)."""
        from ..train.serialization import load_checkpoint
        cfg = config_path_or_config
        if isinstance(cfg, dict):
            cfg = GPTConfig.from_dict(cfg)
        elif not isinstance(cfg, GPTConfig):
            cfg = GPTConfig.load(cfg)
        shard = GPTShard(cfg, rank, size).load_full(load_checkpoint(ckpt_path))
        return cls(shard, channel=channel, leader=rank == 0, **kw)

    # ---- mirrored calls ---------------------------------------------------------------------------------------
    def _publish(self, call):
        if self.leader and self.channel is not None:
            self.channel.publish(call)

    def prefill(self, seq_ids, prompts):
        self._publish(("prefill", list(seq_ids), [list(map(int, p)) for p in prompts]))
        return super().prefill(seq_ids, prompts)

    def decode(self, seq_ids, tokens):
        self._publish(("decode", list(seq_ids), [int(t) for t in tokens]))
        return super().decode(seq_ids, tokens)

    def free(self, seq_id):
        self._publish(("free", seq_id))
        return super().free(seq_id)

    def warm_up(self):
        self._publish(("warm_up",))
        return super().warm_up()

    def stop_followers(self):
        """Leader: end the followers' `follow()` loops."""
        self._publish(("stop",))

    def follow(self):
        """Follower: replay the leader's calls until it stops. A call that fails on the leader fails the same way
        here before any collective (the checks and the pool are the same), so it is skipped; returns the count."""
        if self.leader:
            raise RuntimeError("TensorParallelEngine.follow: rank 0 leads; only the other ranks follow.")
        count = 0
        while True:
            call = self.channel.receive()
            if call[0] == "stop":
                return count
            method = {"prefill": super().prefill, "decode": super().decode, "free": super().free,
                      "warm_up": super().warm_up}[call[0]]
            try:
                method(*call[1:])
            except (ValueError, KeyError, RuntimeError):
                pass  # the leader raised the same error to its caller
            count += 1
