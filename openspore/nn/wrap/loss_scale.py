"""Loss scaling: `TrainOneStepWithLossScaleCell` and the scale update cells (facts §1.10, §1.14).

The train cell multiplies the loss by the scale before differentiating (so small float16 gradients survive),
divides the gradients by it again, and checks them for inf/NaN. An overflowing step leaves the parameters and
the optimizer untouched; the update cell then adapts the scale. MindSpore's CPU build cannot run this cell
(it needs an NPU status op); here the overflow check is a finite check over the gradients, on every backend.

>>> import openspore as ms
>>> from openspore import nn
>>> scale = ms.Parameter(ms.Tensor(1024.0), name="scale_sense")
>>> update = nn.DynamicLossScaleUpdateCell(loss_scale_value=1024.0, scale_factor=2, scale_window=2)
>>> _ = update(scale, ms.Tensor(True))   # overflow: halve
>>> float(scale.asnumpy())
512.0
"""
import numbers

from ...common import dtype as mstype
from ...compiler.frontend.control_flow import cond_if
from ...core.grad_api import value_and_grad
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops import operations as P
from ..cell import Cell
from .cell_wrapper import TrainOneStepCell


def _check_positive_number(owner, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value <= 0:
        raise ValueError(f"For '{owner}', the '{name}' must be a positive number, but got {value!r}.")
    return float(value)


def all_finite_flag(grads):
    """A bool scalar Tensor: True when every gradient is free of inf and NaN."""
    reduce_all, is_finite = P.ReduceAll(), P.IsFinite()
    flags = [reduce_all(is_finite(g), ()) for g in grads]
    if not flags:
        return Tensor(True, mstype.bool_)
    if len(flags) == 1:
        return flags[0]
    return reduce_all(P.Stack(axis=0)(flags), ())


class DynamicLossScaleUpdateCell(Cell):
    """`DynamicLossScaleUpdateCell(loss_scale_value, scale_factor, scale_window)`.

    `construct(loss_scale, overflow)` updates the scale Parameter in place and returns `overflow`: on overflow
    the scale becomes max(scale / scale_factor, 1); after `scale_window` consecutive steps without overflow it is
    multiplied by `scale_factor`.
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or scale_window <= 0:
            raise ValueError(f"For '{self.cls_name}', the 'scale_window' must be a positive int, "
                             f"but got {scale_window!r}.")
        self.loss_scale_value = _check_positive_number(self.cls_name, "loss_scale_value", loss_scale_value)
        self.scale_factor = _check_positive_number(self.cls_name, "scale_factor", scale_factor)
        self.scale_window = scale_window
        self.cur_iter = Parameter(Tensor(1, mstype.int32), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(0, mstype.int32), name="last_overflow_iterator_step")
        self._select, self._assign = P.Select(), P.Assign()

    def get_loss_scale(self):
        """The initial loss scale."""
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        select = self._select
        dtype = loss_scale.dtype
        one = Tensor(1.0, dtype)
        halved = P.Maximum()(P.RealDiv()(loss_scale, Tensor(self.scale_factor, dtype)), one)
        on_overflow = select(overflow, halved, loss_scale)
        good_steps = P.Sub()(self.cur_iter, self.last_overflow_iter)
        should_grow = P.LessEqual()(Tensor(self.scale_window, mstype.int32), good_steps)
        restart = P.LogicalOr()(overflow, should_grow)
        self._assign(self.last_overflow_iter, select(restart, self.cur_iter, self.last_overflow_iter))
        grow = P.LogicalAnd()(should_grow, P.LogicalNot()(overflow))
        grown = P.Mul()(on_overflow, Tensor(self.scale_factor, dtype))
        self._assign(loss_scale, select(grow, grown, on_overflow))
        self._assign(self.cur_iter, P.Add()(self.cur_iter, Tensor(1, mstype.int32)))
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """`FixedLossScaleUpdateCell(loss_scale_value)`: the scale never changes; `construct` returns `overflow`."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = _check_positive_number(self.cls_name, "loss_scale_value", loss_scale_value)

    def get_loss_scale(self):
        """The (constant) loss scale."""
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """`TrainOneStepWithLossScaleCell(network, optimizer, scale_sense)`: a training step with loss scaling.

    `scale_sense` is a Tensor of shape () or (1,) (a fixed scale, stored as the Parameter `scale_sense`) or an
    update cell (`DynamicLossScaleUpdateCell` / `FixedLossScaleUpdateCell`). `construct(*inputs)` returns
    `(loss, overflow, scaling_sens)`: the loss, a bool Tensor that is True when the gradients held inf/NaN (the
    update was skipped) and the scale this step used.
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            if not hasattr(scale_sense, "get_loss_scale"):
                raise TypeError("The 'scale_sense' must be Cell or Tensor, but got a Cell without "
                                f"'get_loss_scale': {type(scale_sense).__name__}.")
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(scale_sense.get_loss_scale(), mstype.float32), name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if tuple(scale_sense.shape) not in ((), (1,)):
                raise ValueError(f"The shape of 'scale_sense' must be (1,) or (), but got {scale_sense.shape}.")
            self.scale_sense = Parameter(scale_sense, name="scale_sense")
        else:
            raise TypeError(f"The 'scale_sense' must be Cell or Tensor, but got {type(scale_sense)}.")
        self._reshape, self._cast, self._reciprocal = P.Reshape(), P.Cast(), P.Reciprocal()
        self._identity = P.Identity()
        self._scaled_value_and_grad = value_and_grad(self._loss_scaled, None, self.weights, has_aux=True)

    def _scale_like(self, loss):
        scale = self._reshape(self.scale_sense, ())
        return scale if scale.dtype is loss.dtype else self._cast(scale, loss.dtype)

    def _loss_scaled(self, *inputs):
        loss = self.network(*inputs)
        return self._mul(loss, self._scale_like(loss)), loss

    def start_overflow_check(self, pre_cond, compute_input):
        """(status, compute_input): the overflow status holder to pass to `get_overflow_status`. The finite check
        needs no device status register, so the holder is a zero Tensor and `compute_input` is unchanged."""
        return Tensor([0] * 8, mstype.int32), compute_input

    def get_overflow_status(self, status, compute_output):
        """A bool Tensor: True when any Tensor of `compute_output` holds inf or NaN."""
        return P.LogicalNot()(all_finite_flag(compute_output))

    def process_loss_scale(self, overflow):
        """Let the update cell adapt the scale; returns the overflow flag."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow

    def set_sense_scale(self, sens):
        """Replace the loss scale value with the Tensor `sens`."""
        if not isinstance(sens, Tensor):
            raise TypeError(f"The input type must be Tensor, but got {type(sens)}")
        self.scale_sense.set_data(sens)

    def construct(self, *inputs):
        scaling_sens = self._identity(self.scale_sense)
        (_, loss), grads = self._scaled_value_and_grad(*inputs)
        inverse = self._reciprocal(self._reshape(scaling_sens, ()))
        grads = tuple(self._mul(g, inverse if g.dtype is inverse.dtype else self._cast(inverse, g.dtype))
                      for g in grads)
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(None, grads)
        overflow = self.process_loss_scale(cond)
        # A plain `if` on the flag in PyNative; an `if` node with the update in one branch when traced.
        cond_if(overflow, self._skip_update, self._apply_update, grads, ())
        return loss, cond, scaling_sens

    def _apply_update(self, *grads):
        self.optimizer(grads)
        return ()

    def _skip_update(self, *grads):
        return ()
