"""`PipelineCell(network, micro_size)`: pipeline parallelism over micro-batches.

In one process (or with `pipeline_stages=1`) it is the sum of the network's losses over `micro_size` equal
slices of the batch. With `set_auto_parallel_context(pipeline_stages=N)` over N processes, process k runs the
cells whose `pipeline_stage` is k: the network must be `WithLossCell(SequentialCell(...), loss)` whose cells'
stages never decrease (the loss runs on the last stage). `TrainOneStepCell` then trains it with a 1F1B schedule:
each stage sends activations forward and gradients back with non-blocking sends, the last stage runs each
micro-batch's backward right after its forward, and earlier stages recompute a micro-batch's stage forward
during its backward (so they keep only the stage inputs). The summed loss is broadcast to every stage; each
stage's weights get their gradients, the other stages' weights get zeros (they live on another process).

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> net = nn.PipelineCell(nn.WithLossCell(nn.SequentialCell(nn.Dense(2, 1)), nn.MSELoss()), micro_size=2)
>>> float(net(ms.Tensor(np.ones((4, 2), np.float32)), ms.Tensor(np.zeros((4, 1), np.float32))).asnumpy()) >= 0
True
"""
import numpy as np

from ... import context
from ...core.grad_api import grad, value_and_grad
from ...core.tensor import Tensor
from ...ops.defs import _comm_world as world
from ..cell import Cell
from ..container import SequentialCell


class PipelineCell(Cell):
    def __init__(self, network, micro_size, stage_config=None, segment_config=None):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"For 'PipelineCell', the 'network' must be a Cell, but got {type(network).__name__}.")
        if isinstance(micro_size, bool) or not isinstance(micro_size, int) or micro_size < 1:
            raise ValueError(f"For 'PipelineCell', the 'micro_size' must be a positive int, but got {micro_size!r}.")
        self.network, self.micro_size = network, micro_size

    def _micro(self, inputs, m):
        out = []
        for x in inputs:
            if x.shape[0] % self.micro_size:
                raise ValueError(f"For 'PipelineCell', the batch dimension {x.shape[0]} must divide by micro_size "
                                 f"{self.micro_size}.")
            size = x.shape[0] // self.micro_size
            out.append(x[m * size:(m + 1) * size])
        return out

    def construct(self, *inputs):
        total = None
        for m in range(self.micro_size):
            loss = self.network(*self._micro(inputs, m))
            total = loss if total is None else total + loss
        return total

    # ---- multi-process pipeline ------------------------------------------------------------------------
    def stage_count(self):
        stages = int(context.get_auto_parallel_context("pipeline_stages") or 1)
        return stages if world.is_inited() and world.state()["size"] > 1 else 1

    def pipeline_step(self, weights):
        """A function (*inputs) -> (loss, grads aligned with `weights`) that runs this process's stage."""
        return _PipelineRunner(self, list(weights))


class _PipelineRunner:
    def __init__(self, cell, weights):
        stages, size = cell.stage_count(), world.state()["size"]
        if stages != size:
            raise ValueError(f"For 'PipelineCell', openspore runs one process per stage: pipeline_stages "
                             f"({stages}) must equal the number of processes ({size}).")
        if cell.micro_size < stages:
            raise ValueError(f"For 'PipelineCell', micro_size ({cell.micro_size}) must be at least pipeline_stages "
                             f"({stages}).")
        net = cell.network
        backbone, loss_fn = getattr(net, "_backbone", None), getattr(net, "_loss_fn", None)
        if not isinstance(backbone, SequentialCell) or loss_fn is None:
            raise TypeError("For 'PipelineCell' over several stages, the network must be WithLossCell(SequentialCell"
                            "(...), loss_fn), so that the stages are the cells in order.")
        layers = list(backbone.cells())
        marks = [getattr(c, "pipeline_stage", 0) for c in layers]
        if marks != sorted(marks) or marks[0] != 0 or marks[-1] != stages - 1 or set(marks) != set(range(stages)):
            raise ValueError(f"For 'PipelineCell', the cells' pipeline_stage values {marks} must rise from 0 to "
                             f"{stages - 1} along the SequentialCell, each stage owning at least one cell.")
        self.cell, self.loss_fn, self.stages = cell, loss_fn, stages
        self.stage = world.state()["rank"]
        self.layers = [c for c, s in zip(layers, marks) if s == self.stage]
        local = {id(p) for c in self.layers for p in c.get_parameters()}
        self.weights = weights
        self.local = [p for p in weights if id(p) in local]
        self.last = self.stage == stages - 1

    def _forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def _last_loss(self, x, label):
        return self.loss_fn(self._forward(x), label)

    def __call__(self, *inputs):
        data, label = inputs[0], inputs[-1]
        m_total, s, stages = self.cell.micro_size, self.stage, self.stages
        prev, nxt = s - 1, s + 1
        pending, stash, accum = [], {}, None
        loss_total = 0.0

        def forward(m):
            nonlocal loss_total, accum
            x = self.cell._micro((data,), m)[0] if s == 0 else Tensor(world.recv_array(prev, m))
            if self.last:  # the last stage runs the micro-batch's backward straight away
                y = self.cell._micro((label,), m)[0]
                loss, (g_in, g_w) = value_and_grad(self._last_loss, 0, self.local)(x, y)
                loss_total += float(loss.asnumpy())
                accum = _add(accum, g_w)
                stash[m] = g_in
            else:
                pending.extend(world.isend_array(self._forward(x).asnumpy(), nxt, m))
                stash[m] = x

        def backward(m):
            nonlocal accum
            if self.last:
                g_in = stash.pop(m)
            else:
                x, d_out = stash.pop(m), Tensor(world.recv_array(nxt, m_total + m))
                if s == 0:
                    g_w, g_in = grad(self._forward, None, self.local, sens_param=True)(x, d_out), None
                else:
                    g_in, g_w = grad(self._forward, 0, self.local, sens_param=True)(x, d_out)
                accum = _add(accum, g_w)
            if s > 0:
                pending.extend(world.isend_array(g_in.asnumpy(), prev, m_total + m))

        warmup = min(stages - s - 1, m_total)
        for m in range(warmup):
            forward(m)
        for m in range(m_total - warmup):  # steady 1F1B
            forward(m + warmup)
            backward(m)
        for m in range(m_total - warmup, m_total):
            backward(m)
        for work, _, _ in pending:
            work.wait()
        loss = world.broadcast(np.array([loss_total], np.float32), stages - 1, world.state()["world"])
        by_id = {id(p): g for p, g in zip(self.local, accum)}
        grads = tuple(by_id[id(p)] if id(p) in by_id else Tensor(np.zeros(p.shape, p.asnumpy().dtype))
                      for p in self.weights)
        return Tensor(loss[0]), grads


def _add(total, grads):
    grads = tuple(grads)
    return grads if total is None else tuple(a + b for a, b in zip(total, grads))
