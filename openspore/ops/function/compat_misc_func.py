"""Small functional names of mindspore.ops: augmented assignment (`augassign_add` is what `x += y` compiles to),
scalar/tuple helpers, type queries, control-flow selections, a matrix condition number, fused add+norm and rotary
position embedding, all written with the functional API (so they differentiate and compile like it).

>>> import numpy as np, openspore as ms
>>> from openspore import ops
>>> ops.augassign_add(ms.Tensor([1.0, 2.0]), 3.0).asnumpy().tolist()
[4.0, 5.0]
>>> ops.tail((1, 2, 3)), ops.reduced_shape((2, 3, 4), 1), ops.broadcast_gradient_args((2, 1), (3,))
((2, 3), (2, 1, 4), ((1,), (0,)))
>>> round(float(ops.cond(ms.Tensor([[1.0, 0.0], [0.0, 4.0]]))), 4)
4.0
"""
import copy as _copy
import numbers

import numpy as np

from ...common import dtype as mstype
from ...core.dispatch import current_tracer
from ...core.registry import prim
from ...core.tensor import Tensor
from .. import function as F

__all__ = ["augassign_add", "augassign_sub", "augassign_mul", "augassign_div", "augassign_floordiv",
           "augassign_mod", "tensor_muls", "pows", "scalar_to_array", "deepcopy", "typeof", "hastype", "tail",
           "isconstant", "switch", "switch_layer", "cond", "reduced_shape", "broadcast_gradient_args", "padding",
           "mixed_precision_cast", "linearize", "move_to", "inplace_sigmoid", "print_", "add_layer_norm",
           "add_rms_norm", "rotary_position_embedding"]


# ---- augmented assignment: `x op= y` in compiled code ----------------------------------------------------------------
def _aug(name, fn):
    def aug(x, y):
        if isinstance(x, Tensor) or isinstance(y, Tensor):
            return fn(x, y)
        return {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
                "div": lambda a, b: a / b, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b}[name](x, y)
    aug.__name__ = aug.__qualname__ = f"augassign_{name}"
    aug.__doc__ = f"The value of `x {dict(add='+', sub='-', mul='*', div='/', floordiv='//', mod='%')[name]}= y`."
    return aug


augassign_add = _aug("add", F.add)
augassign_sub = _aug("sub", F.sub)
augassign_mul = _aug("mul", F.mul)
augassign_div = _aug("div", F.div)
augassign_floordiv = _aug("floordiv", F.floor_divide)
augassign_mod = _aug("mod", F.floor_mod)


def tensor_muls(x, y):
    """x times the number (or tensor) y."""
    return F.mul(x, y)


def pows(x, y):
    """x raised to the power y (a number or tensor)."""
    return F.pow(x, y)


def scalar_to_array(x):
    """A 0-D Tensor holding the Python number x (float32 for floats, int64 for ints, bool for bools)."""
    if isinstance(x, bool):
        return Tensor(np.array(x, np.bool_))
    if not isinstance(x, numbers.Number):
        raise TypeError(f"For 'scalar_to_array', 'x' must be a number, but got {type(x).__name__}.")
    return Tensor(np.array(x, np.float32 if isinstance(x, float) else np.int64))


def deepcopy(x):
    """An independent copy of x (Tensors copy their data; containers are copied recursively)."""
    return _copy.deepcopy(x)


def typeof(x):
    """MindSpore's type of x: the dtype of a Tensor's elements or of a Python value (Int64, Float32, Tuple, …)."""
    return mstype.get_py_obj_dtype(x)


def hastype(x, type_):
    """Whether typeof(x) is `type_` (or, for a width-less type such as mstype.number, falls under it)."""
    t = typeof(x)
    if t == type_:
        return True
    if type_ is mstype.number:
        return getattr(t, "kind", None) in ("int", "uint", "float", "complex", "bool")
    return False


def tail(x):
    """A tuple or list without its first element."""
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"For 'tail', 'x' must be a tuple or list, but got {type(x).__name__}.")
    return x[1:]


def isconstant(x):
    """True for a value known without running the network (a Python number, string, None or a container of
    them); False for a Tensor."""
    if isinstance(x, Tensor):
        return False
    if isinstance(x, (tuple, list)):
        return all(isconstant(v) for v in x)
    return True


def switch(cond, true_branch, false_branch):
    """true_branch when cond holds (a bool or one-element Tensor), else false_branch. In compiled code a tensor
    condition picks between two tensors of one shape and dtype at run time (differentiable, as a select)."""
    if isinstance(cond, Tensor) and current_tracer() is not None:
        if not (isinstance(true_branch, Tensor) and isinstance(false_branch, Tensor)
                and tuple(true_branch.shape) == tuple(false_branch.shape)
                and true_branch.dtype == false_branch.dtype):
            raise TypeError("For 'switch' in graph mode with a tensor condition, both branches must be Tensors of "
                            "one shape and dtype (use an `if` statement to choose between other values).")
        if cond.size != 1:
            raise ValueError(f"For 'switch', 'cond' must be a one-element tensor, but got shape {list(cond.shape)}.")
        flag = F.reshape(cond if cond.dtype == mstype.bool_ else F.not_equal(cond, 0), ())
        return F.select(F.broadcast_to(flag, tuple(true_branch.shape)), true_branch, false_branch)
    return true_branch if bool(cond.asnumpy() if isinstance(cond, Tensor) else cond) else false_branch


def switch_layer(index, branches):
    """branches[index] (index: an int or one-element integer Tensor)."""
    i = int(index.asnumpy()) if isinstance(index, Tensor) else int(index)
    if not -len(branches) <= i < len(branches):
        raise ValueError(f"For 'switch_layer', 'index' must be in [{-len(branches)}, {len(branches)}), but got {i}.")
    return branches[i]


def cond(A, p=None):
    """The condition number of (a batch of) square matrices: ‖A‖·‖A⁻¹‖ in norm `p` (None: the 2-norm, the
    ratio of the largest to the smallest singular value)."""
    if not isinstance(A, Tensor) or len(A.shape) < 2:
        raise ValueError(f"For 'cond', 'A' must be a Tensor of at least 2 dimensions, but got "
                         f"{getattr(A, 'shape', A)!r}.")
    if p is None or p == 2 or p == -2:
        s = F.svd(A, compute_uv=False)
        big, small = F.amax(s, -1), F.amin(s, -1)
        return big / small if p != -2 else small / big
    if p not in ("fro", "nuc", 1, -1, float("inf"), float("-inf")):
        raise ValueError(f"For 'cond', 'p' must be None, 2, -2, 1, -1, inf, -inf, 'fro' or 'nuc', but got {p!r}.")
    return F.matrix_norm(A, p) * F.matrix_norm(F.inverse(A), p)


def reduced_shape(shape, axis):
    """`shape` with each reduced axis (an int, a tuple, or () / None for all) set to 1."""
    shape = tuple(shape)
    axes = range(len(shape)) if axis is None or axis == () else ((axis,) if isinstance(axis, int) else axis)
    axes = {a % len(shape) for a in axes}
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def broadcast_gradient_args(x_shape, y_shape):
    """The axes each operand's gradient is summed over after broadcasting x_shape with y_shape."""
    x_shape, y_shape = tuple(x_shape), tuple(y_shape)
    n = max(len(x_shape), len(y_shape))
    xs, ys = (1,) * (n - len(x_shape)) + x_shape, (1,) * (n - len(y_shape)) + y_shape
    rx, ry = [], []
    for i, (a, b) in enumerate(zip(xs, ys)):
        if a != b and a != 1 and b != 1:
            raise ValueError(f"For 'broadcast_gradient_args', the shapes {list(x_shape)} and {list(y_shape)} cannot "
                             f"broadcast at axis {i}.")
        if a == 1 and b != 1 or (a == 1 and b == 1 and i < n - len(x_shape)):
            rx.append(i)
        if b == 1 and a != 1 or (a == 1 and b == 1 and i < n - len(y_shape)):
            ry.append(i)
    return tuple(rx), tuple(ry)


def padding(x, pad_dim_size=8):
    """Extend x's last axis (which must have size 1) to pad_dim_size: the value then zeros."""
    if not isinstance(x, Tensor) or not x.shape or x.shape[-1] != 1:
        raise ValueError(f"For 'padding', the last dimension of 'x' must be 1, but got {getattr(x, 'shape', x)!r}.")
    if isinstance(pad_dim_size, bool) or not isinstance(pad_dim_size, int) or pad_dim_size < 1:
        raise ValueError(f"For 'padding', 'pad_dim_size' must be a positive int, but got {pad_dim_size!r}.")
    return F.pad(x, (0, pad_dim_size - 1))


def mixed_precision_cast(dst_type, x):
    """x with every floating-point Tensor (inside tuples, lists and dicts too) cast to dst_type."""
    if isinstance(x, Tensor):
        return F.cast(x, dst_type) if x.dtype.kind == "float" else x
    if isinstance(x, (tuple, list)):
        return type(x)(mixed_precision_cast(dst_type, v) for v in x)
    if isinstance(x, dict):
        return {k: mixed_precision_cast(dst_type, v) for k, v in x.items()}
    return x


def linearize(fn, inputs):
    """(fn(*inputs), jvp_fn): jvp_fn(*tangents) is the Jacobian of fn at `inputs` applied to the tangents."""
    from ... import ops
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    output = fn(*inputs)

    def jvp_fn(*tangents):
        tangents = tangents[0] if len(tangents) == 1 and isinstance(tangents[0], (tuple, list)) else tangents
        return ops.jvp(fn, inputs, tuple(tangents))[1]
    return output, jvp_fn


def move_to(input, to="CPU", blocking=True):
    """A copy of `input` on device `to` ("CPU", "GPU"/"Ascend" where present): the backend decides placement,
    so this is a copy that keeps dtype and values."""
    if to not in ("CPU", "GPU", "Ascend", "cpu", "cuda"):
        raise ValueError(f"For 'move_to', 'to' must be 'CPU', 'GPU' or 'Ascend', but got {to!r}.")
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'move_to', 'input' must be a Tensor, but got {type(input).__name__}.")
    return F.identity(input) if hasattr(F, "identity") else input.copy()


def inplace_sigmoid(input):
    """Sigmoid written back into `input`; returns it."""
    from ..tensor_methods import _inplace
    return _inplace(input, F.sigmoid(input))


def print_(*input_x):
    """Print the inputs, one a line, like ops.Print (the `Print` primitive: ops/defs/debug.py): in PyNative Tensors
    as their repr and the rest as `str`; in a compiled graph when the graph runs, in MindSpore's graph layout.

    >>> import openspore as ms
    >>> _ = print_("x:", ms.Tensor([1, 2]))
    x:
    Tensor(shape=[2], dtype=Int64, value= [1, 2])
    """
    return prim("Print")(*input_x)


# ---- fused norms and rotary embedding (CPU references of the Ascend fusions) ------------------------------------
def add_layer_norm(x1, x2, gamma, beta, epsilon=1e-5, additional_output=False):
    """(LayerNorm over the last axis of x1 + x2 with gamma/beta, its mean, its 1/std, x1 + x2 when
    additional_output else None)."""
    x = x1 + x2
    axis = len(x.shape) - 1
    mean = F.mean(x, axis, keep_dims=True)
    var = F.mean(F.square(x - mean), axis, keep_dims=True)
    rstd = F.rsqrt(var + epsilon)
    return (x - mean) * rstd * gamma + beta, mean, rstd, (x if additional_output else None)


def add_rms_norm(x1, x2, gamma, epsilon=1e-6):
    """(RMSNorm of x1 + x2 over gamma's trailing axes, its 1/rms, x1 + x2)."""
    x = x1 + x2
    axes = tuple(range(len(x.shape) - len(gamma.shape), len(x.shape)))
    rstd = F.rsqrt(F.mean(F.square(x), axes, keep_dims=True) + epsilon)
    return x * rstd * gamma, rstd, x


def rotary_position_embedding(x, cos, sin, mode=0):
    """Rotary position embedding x·cos + rotate(x)·sin: mode 0 rotates halves (x = [a, b] → [−b, a]), mode 1
    interleaved pairs ((a, b) → (−b, a))."""
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"For 'rotary_position_embedding', the last dimension of 'x' must be even, but got {d}.")
    if mode == 0:
        a, b = F.narrow(x, -1, 0, d // 2), F.narrow(x, -1, d // 2, d // 2)
        rotated = F.concat((-b, a), -1)
    elif mode == 1:
        pairs = F.reshape(x, tuple(x.shape[:-1]) + (d // 2, 2))
        a, b = F.narrow(pairs, -1, 0, 1), F.narrow(pairs, -1, 1, 1)
        rotated = F.reshape(F.concat((-b, a), -1), tuple(x.shape))
    else:
        raise ValueError(f"For 'rotary_position_embedding', 'mode' must be 0 (half) or 1 (interleave), but got "
                         f"{mode!r}.")
    return x * cos + rotated * sin
