"""openspore.amp: automatic mixed precision and loss scaling (facts §1.16).

Levels: 'O0' keeps float32; 'O1' runs the white-list cells (Dense, Conv*, RNN cells) in float16 and casts their
outputs back to float32; 'O2' runs every cell in float16 except the black list (BatchNorm*, LayerNorm), which
stays float32; 'O3' runs everything in float16. Parameters always stay float32 (layers cast them to the compute
type), and the returned network casts its outputs to float32. `dtype=ms.bfloat16` uses bfloat16 instead.
'auto' is treated like 'O1' here: MindSpore's op-level lists need a compiler pass that PyNative cells do not
go through, so casting happens at cell granularity.

>>> import openspore as ms
>>> from openspore import amp
>>> float(amp.DynamicLossScaler(2 ** 16, 2, 1000).scale(ms.Tensor(1.0)))
65536.0
"""
import logging
import numbers

import numpy as np

from . import nn, ops
from .common import dtype as mstype
from .core.parameter import Parameter
from .core.primitive import Primitive
from .core.tensor import Tensor
from .ops import composite_primitives
from .nn.cell import Cell
from .train.loss_scale_manager import LossScaleManager, FixedLossScaleManager, DynamicLossScaleManager

__all__ = ["auto_mixed_precision", "custom_mixed_precision", "build_train_network", "get_white_list",
           "get_black_list", "LossScaler", "StaticLossScaler", "DynamicLossScaler", "all_finite", "init_status",
           "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]

logger = logging.getLogger(__name__)

_LEVELS = ("O0", "O1", "O2", "O3", "auto")
_WHITE_CELLS = ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose", "Dense",
                "LSTMCell", "RNNCell", "GRUCell")
_WHITE_OPS = ("Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose", "Conv2DBackpropInput", "MatMul",
              "BatchMatMul", "PReLU", "ReLU", "Ger")
_BLACK_CELLS = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm")
_LOW = (mstype.float16, mstype.bfloat16)


def get_white_list():
    """The cell classes (and primitive classes) O1 runs in low precision."""
    return [getattr(nn, n) for n in _WHITE_CELLS if hasattr(nn, n)] + \
        [getattr(ops, n) for n in _WHITE_OPS if hasattr(ops, n)]


def get_black_list():
    """The cell classes O2 keeps in float32."""
    return [getattr(nn, n) for n in _BLACK_CELLS if hasattr(nn, n)]


def _to_float32(value):
    if isinstance(value, Tensor):
        return ops.cast(value, mstype.float32) if value.dtype in _LOW else value
    if type(value) in (tuple, list):
        return type(value)(_to_float32(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_float32(v) for k, v in value.items()}
    return value


def _output_to_float32_hook(cell, inputs, output):
    return _to_float32(output)


class _OutputTo32(Cell):
    """Runs `network` and casts its float16/bfloat16 outputs to float32 (parameter names unchanged)."""

    def __init__(self, network):
        super().__init__(auto_prefix=False)
        self._backbone = network

    def construct(self, *args, **kwargs):
        return _to_float32(self._backbone(*args, **kwargs))


def _check_network(network, where):
    if not isinstance(network, Cell):
        raise TypeError(f"For '{where}', the argument 'network' must be a Cell, but got {type(network).__name__}.")


def _check_dtype(dtype, where):
    if dtype not in _LOW:
        raise ValueError(f"For '{where}', the argument 'dtype' must be float16 or bfloat16, but got {dtype}.")


def _split_classes(entries, where, arg):
    """Cell classes from a white/black list; primitive classes cannot be cast per op here (see module doc)."""
    cells = []
    for entry in entries:
        if isinstance(entry, type) and issubclass(entry, Cell):
            cells.append(entry)
        elif isinstance(entry, type) and issubclass(entry, (Primitive, composite_primitives._PythonPrimitive)):
            logger.warning("For '%s', the primitive %s in '%s' is skipped: casting is applied per Cell in PyNative.",
                           where, entry.__name__, arg)
        else:
            raise TypeError(f"For '{where}', the elements of '{arg}' must be Cell (or Primitive) classes, "
                            f"but got {entry!r}.")
    return tuple(cells)


def _cast_white(network, white, dtype):
    for _, cell in network.cells_and_names():
        if isinstance(cell, white) and cell._mixed_dtype is None:
            cell.to_float(dtype)
            cell.register_forward_hook(_output_to_float32_hook)


def _cast_all_but(network, black, dtype):
    network.to_float(dtype)
    for _, cell in network.cells_and_names():
        if black and isinstance(cell, black):
            cell.to_float(mstype.float32)


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    """`auto_mixed_precision(network, amp_level='O0', dtype=float16)`: cast the network's cells in place per level;
    returns the network (O0) or a wrapper that casts the outputs to float32."""
    _check_network(network, "auto_mixed_precision")
    if amp_level not in _LEVELS:
        raise ValueError(f"For 'auto_mixed_precision', the amp level {amp_level!r} is not supported; "
                         f"supported levels are {list(_LEVELS)}.")
    _check_dtype(dtype, "auto_mixed_precision")
    if amp_level == "O0":
        return network
    if amp_level in ("O1", "auto"):
        _cast_white(network, _split_classes(get_white_list(), "auto_mixed_precision", "white_list"), dtype)
    elif amp_level == "O2":
        _cast_all_but(network, tuple(get_black_list()), dtype)
    else:
        network.to_float(dtype)
    return _OutputTo32(network)


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=mstype.float16):
    """`custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=float16)`: like O1 with your
    white list, or like O2 with your black list (give exactly one)."""
    _check_network(network, "custom_mixed_precision")
    if (white_list is None) == (black_list is None):
        raise ValueError("For 'custom_mixed_precision', exactly one of 'white_list' and 'black_list' must be given.")
    _check_dtype(dtype, "custom_mixed_precision")
    given = white_list if white_list is not None else black_list
    if not isinstance(given, (list, tuple)):
        raise TypeError("For 'custom_mixed_precision', the white/black list must be a list, "
                        f"but got {type(given).__name__}.")
    if white_list is not None:
        _cast_white(network, _split_classes(white_list, "custom_mixed_precision", "white_list"), dtype)
    else:
        _cast_all_but(network, _split_classes(black_list, "custom_mixed_precision", "black_list"), dtype)
    return _OutputTo32(network)


_LEVEL_CONFIG = {
    "O0": {"cast_model_type": mstype.float32, "keep_batchnorm_fp32": False, "loss_scale_manager": None},
    "O1": {"cast_model_type": mstype.float32, "keep_batchnorm_fp32": False, "loss_scale_manager": None},
    "auto": {"cast_model_type": mstype.float32, "keep_batchnorm_fp32": False, "loss_scale_manager": None},
    "O2": {"cast_model_type": mstype.float16, "keep_batchnorm_fp32": True, "loss_scale_manager": "dynamic"},
    "O3": {"cast_model_type": mstype.float16, "keep_batchnorm_fp32": False, "loss_scale_manager": None},
}


def _train_config(level, kwargs):
    config = dict(_LEVEL_CONFIG[level])
    for key, value in kwargs.items():
        if key not in config:
            raise ValueError(f"For 'build_train_network', the keyword argument '{key}' is not supported; "
                             "use 'cast_model_type', 'keep_batchnorm_fp32' or 'loss_scale_manager'.")
        config[key] = value
    if config["cast_model_type"] not in (mstype.float32,) + _LOW:
        raise ValueError("For 'build_train_network', 'cast_model_type' must be float16, bfloat16 or float32, "
                         f"but got {config['cast_model_type']}.")
    if not isinstance(config["keep_batchnorm_fp32"], bool):
        raise TypeError("For 'build_train_network', 'keep_batchnorm_fp32' must be a bool, "
                        f"but got {type(config['keep_batchnorm_fp32']).__name__}.")
    if config["loss_scale_manager"] == "dynamic":
        config["loss_scale_manager"] = DynamicLossScaleManager()
    lsm = config["loss_scale_manager"]
    if lsm is not None and not isinstance(lsm, LossScaleManager):
        raise TypeError("For 'build_train_network', 'loss_scale_manager' must be a LossScaleManager or None, "
                        f"but got {type(lsm).__name__}.")
    return config


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0", **kwargs):
    """`build_train_network(network, optimizer, loss_fn=None, level='O0', boost_level='O0', **kwargs)`: apply the
    mixed-precision level to `network`, add `loss_fn` (WithLossCell) and wrap it in a one-step training cell:
    `TrainOneStepWithLossScaleCell` when the loss-scale manager has an update cell, else `TrainOneStepCell` (their
    `boost` counterparts when `boost_level` is 'O1' or 'O2', as in MindSpore).
    kwargs: `cast_model_type`, `keep_batchnorm_fp32`, `loss_scale_manager` (level defaults: O2 uses float16,
    keeps BatchNorm in float32 and a `DynamicLossScaleManager()`; O3 float16 without loss scaling)."""
    _check_network(network, "build_train_network")
    if not isinstance(optimizer, Cell):
        raise TypeError("For 'build_train_network', the argument 'optimizer' must be an Optimizer, "
                        f"but got {type(optimizer).__name__}.")
    if level not in _LEVELS:
        raise ValueError(f"For 'build_train_network', the amp level {level!r} is not supported; "
                         f"supported levels are {list(_LEVELS)}.")
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(f"For 'build_train_network', the boost level {boost_level!r} is not supported; "
                         "supported levels are ['O0', 'O1', 'O2'].")
    one_step, scaled_step = nn.TrainOneStepCell, nn.TrainOneStepWithLossScaleCell
    if boost_level != "O0":
        # MindSpore wraps the step in the boost cells at O1/O2; off Ascend their AutoBoost runs at "O0" (no
        # algorithm), so training gives plain TrainOneStepCell's values, in a BoostTrainOneStepCell.
        from .boost import BoostTrainOneStepCell, BoostTrainOneStepWithLossScaleCell
        logger.warning("boost_level=%s: the boost algorithms target Ascend; training runs without them.", boost_level)
        one_step, scaled_step = BoostTrainOneStepCell, BoostTrainOneStepWithLossScaleCell
    config = _train_config(level, kwargs)
    cast_type = config["cast_model_type"]
    if level in ("O1", "auto"):
        network = auto_mixed_precision(network, "O1", cast_type if cast_type in _LOW else mstype.float16)
    elif cast_type in _LOW:
        network = auto_mixed_precision(network, "O2" if config["keep_batchnorm_fp32"] else "O3", cast_type)
    if loss_fn is not None:
        network = nn.WithLossCell(network, loss_fn)
    lsm = config["loss_scale_manager"]
    if lsm is not None:
        update_cell = lsm.get_update_cell()
        if update_cell is not None:
            return scaled_step(network, optimizer, scale_sense=update_cell).set_train()
        return one_step(network, optimizer, sens=float(lsm.get_loss_scale())).set_train()
    return one_step(network, optimizer).set_train()


# ---- functional loss scaling -----------------------------------------------------------------------------
def _tree_map(fn, value):
    if isinstance(value, Tensor):
        return fn(value)
    if type(value) in (tuple, list):
        return type(value)(_tree_map(fn, v) for v in value)
    if isinstance(value, dict):
        return {k: _tree_map(fn, v) for k, v in value.items()}
    raise TypeError(f"Loss scaling expects Tensors or (nested) tuples/lists/dicts of Tensors, "
                    f"but got {type(value).__name__}.")


def _scale_number(cls_name, arg, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise ValueError(f"For '{cls_name}', the argument '{arg}' must be a positive number, but got {value!r}.")
    return float(value)


class LossScaler:
    """Base of the functional loss scalers: `scale(inputs)`, `unscale(inputs)`, `adjust(grads_finite)`."""

    def scale(self, inputs):
        """Multiply the loss (or a structure of tensors) by the scale."""
        raise NotImplementedError(f"'{type(self).__name__}' must implement scale().")

    def unscale(self, inputs):
        """Divide the gradients (or a structure of tensors) by the scale."""
        raise NotImplementedError(f"'{type(self).__name__}' must implement unscale().")

    def adjust(self, grads_finite):
        """Update the scale after a step whose gradients were (not) all finite."""
        raise NotImplementedError(f"'{type(self).__name__}' must implement adjust().")


class _ValueScaler(LossScaler):
    """scale/unscale by the Parameter `scale_value` (cast to each tensor's dtype)."""

    def scale(self, inputs):
        return _tree_map(lambda x: ops.mul(x, ops.cast(self.scale_value, x.dtype)), inputs)

    def unscale(self, inputs):
        return _tree_map(lambda x: ops.div(x, ops.cast(self.scale_value, x.dtype)), inputs)


class StaticLossScaler(_ValueScaler):
    """`StaticLossScaler(scale_value)`: a constant scale (Parameter `scale_value`)."""

    def __init__(self, scale_value):
        value = _scale_number("StaticLossScaler", "scale_value", scale_value)
        self.scale_value = Parameter(Tensor(value, mstype.float32), name="scale_value")

    def adjust(self, grads_finite):
        """A static scale never changes; returns False."""
        return False


class DynamicLossScaler(_ValueScaler):
    """`DynamicLossScaler(scale_value, scale_factor, scale_window)`: divide the scale by `scale_factor` (not below 1)
    when gradients overflow; multiply it after `scale_window` finite steps in a row."""

    def __init__(self, scale_value, scale_factor, scale_window):
        value = _scale_number("DynamicLossScaler", "scale_value", scale_value)
        if isinstance(scale_factor, bool) or not isinstance(scale_factor, int) or scale_factor <= 1:
            raise ValueError("For 'DynamicLossScaler', the argument 'scale_factor' must be an int greater than 1, "
                             f"but got {scale_factor!r}.")
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or scale_window < 1:
            raise ValueError("For 'DynamicLossScaler', the argument 'scale_window' must be a positive int, "
                             f"but got {scale_window!r}.")
        self.scale_value = Parameter(Tensor(value, mstype.float32), name="scale_value")
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.counter = Parameter(Tensor(0, mstype.int32), name="counter")

    def adjust(self, grads_finite):
        """Update `scale_value` and `counter` from `grads_finite` (a bool or bool Tensor); returns True."""
        finite = grads_finite if isinstance(grads_finite, Tensor) else Tensor(bool(grads_finite))
        finite = ops.cast(finite, mstype.bool_)
        zero = Tensor(0, mstype.int32)
        counter = ops.where(finite, self.counter + 1, zero)
        grow = counter >= self.scale_window
        scale = self.scale_value
        grown = ops.where(grow, scale * float(self.scale_factor), scale)
        shrunk = ops.maximum(scale / float(self.scale_factor), Tensor(1.0, mstype.float32))
        ops.assign(self.scale_value, ops.where(finite, grown, shrunk))
        ops.assign(self.counter, ops.where(grow, zero, counter))
        return True


def init_status():
    """The overflow-status buffer of Ascend devices; elsewhere a placeholder zeros((8,), float32) that `all_finite`
    does not need."""
    return Tensor(np.zeros((8,), np.float32))


def all_finite(inputs, status=None):
    """`all_finite(inputs, status=None)`: a bool Tensor, True when every element of every input is finite."""
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, (tuple, list)) or not all(isinstance(x, Tensor) for x in inputs):
        raise TypeError("For 'all_finite', the argument 'inputs' must be a Tensor or a tuple/list of Tensors.")
    if not inputs:
        return Tensor(True)
    flags = [ops.isfinite(x).all() for x in inputs]
    return ops.stack(flags).all() if len(flags) > 1 else flags[0]
