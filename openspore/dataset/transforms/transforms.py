"""`mindspore.dataset.transforms`: transforms that apply to any tensor (not only images)."""
import enum

import numpy as np

from ...common import dtype as mstype
from ..engine.checks import check_interval, check_type, engine_dtype_name
from .base import TensorOperation, check_prob, check_transforms, rng, run_chain


def _np_dtype(data_type, where):
    if getattr(data_type, "np_dtype", None) is not None:
        return data_type.np_dtype
    try:
        return np.dtype(data_type)
    except TypeError:
        raise TypeError(f"For '{where}', 'data_type' must be an openspore or numpy dtype, but got {data_type!r}.") from None


class Compose(TensorOperation):
    """`Compose(transforms)`: the transforms applied in order, as one operation. A run of fusable image operations
    (Decode → Resize → CenterCrop → Normalize → HWC2CHW → TypeCast) runs fused, as under `map`, so an eager
    preprocess — a serving stage, say — gets the same single-pass kernels (`ds.config.set_enable_fusion(False)` or
    debug mode: op by op).

    >>> import numpy as np
    >>> from openspore.dataset import vision
    >>> Compose([vision.Resize((2, 2)), vision.HWC2CHW()])(np.zeros((4, 4, 3), np.uint8)).shape
    (3, 2, 2)
    """

    def __init__(self, transforms):
        self.transforms = check_transforms(transforms, "Compose")
        self._fused = None

    def __call__(self, *args):
        from .. import config
        if not config.get_enable_fusion() or config.get_debug_mode():
            return run_chain(self.transforms, args)
        if self._fused is None:
            from ..vision.fused import fuse_operations  # late: vision builds on this module
            self._fused = fuse_operations(self.transforms)
        return run_chain(self._fused, args)


class RandomApply(TensorOperation):
    """`RandomApply(transforms, prob=0.5)`: all transforms in order with probability `prob`, else none."""

    def __init__(self, transforms, prob=0.5):
        self.transforms = check_transforms(transforms, "RandomApply")
        self.prob = check_prob(prob, "RandomApply")

    def __call__(self, *args):
        if rng().random() < self.prob:
            return run_chain(self.transforms, args)
        return args[0] if len(args) == 1 else args


class RandomChoice(TensorOperation):
    """`RandomChoice(transforms)`: one transform, chosen uniformly."""

    def __init__(self, transforms):
        self.transforms = check_transforms(transforms, "RandomChoice")

    def __call__(self, *args):
        return run_chain([self.transforms[int(rng().integers(len(self.transforms)))]], args)


class RandomOrder(TensorOperation):
    """`RandomOrder(transforms)`: all transforms, in a random order."""

    def __init__(self, transforms):
        self.transforms = check_transforms(transforms, "RandomOrder")

    def __call__(self, *args):
        return run_chain([self.transforms[i] for i in rng().permutation(len(self.transforms))], args)


class TypeCast(TensorOperation):
    """`TypeCast(data_type)`: cast to an openspore dtype (e.g. ms.int32) or a numpy dtype."""

    def __init__(self, data_type):
        self.data_type = data_type
        self._dtype = _np_dtype(data_type, "TypeCast")

    def _execute(self, x):
        return np.asarray(x).astype(self._dtype)


class OneHot(TensorOperation):
    """`OneHot(num_classes, smoothing_rate=0.0)`: integer labels → one-hot rows (smoothed rows are float32)."""

    def __init__(self, num_classes, smoothing_rate=0.0):
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"For 'OneHot', 'num_classes' must be a positive int, but got {num_classes!r}.")
        if not isinstance(smoothing_rate, (int, float)) or not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError(f"For 'OneHot', 'smoothing_rate' must be in [0.0, 1.0], but got {smoothing_rate!r}.")
        self.num_classes, self.smoothing_rate = num_classes, float(smoothing_rate)

    def _execute(self, x):
        # MindSpore's checks and sentences (RuntimeErrors of the pipeline)
        x = np.asarray(x)
        while x.ndim > 1 and x.shape[0] == 1:
            x = x[0]
        if x.ndim > 1:
            raise RuntimeError(f"OneHot: Only support scalar or 1D input, got rank: {x.ndim}")
        if x.dtype.kind not in "iu":
            raise RuntimeError(f"OneHot: Only support input of int type, but got: {x.dtype}")
        if x.size and x.max() >= self.num_classes:
            raise RuntimeError(f"OneHot: index values should not bigger than num classes: {self.num_classes}, "
                               f"but got: {x.max()}")
        valid = x >= 0  # a negative label gives an all-zero row
        x = np.where(valid, x, 0)
        eye = np.eye(self.num_classes, dtype=np.float32)[x] * np.expand_dims(valid, -1)
        if self.smoothing_rate:
            return eye * (1 - self.smoothing_rate) + self.smoothing_rate / self.num_classes
        return eye.astype(x.dtype)


def _type_name(value):
    """MindSpore's dtype word for a value or array ('string' for str and bytes)."""
    dtype = np.asarray(value).dtype
    return "string" if dtype.kind in "SUO" else str(dtype)


class Fill(TensorOperation):
    """`Fill(fill_value)`: an array of the input's shape and dtype, filled with `fill_value`."""

    def __init__(self, fill_value):
        if not isinstance(fill_value, (int, float, str, bytes, bool, np.generic)):
            raise TypeError(f"For 'Fill', 'fill_value' must be a number, str or bytes, but got {type(fill_value).__name__}.")
        self.fill_value = fill_value

    def _execute(self, x):
        if isinstance(self.fill_value, (str, bytes)) != (x.dtype.kind in "SU"):
            raise RuntimeError("Fill: fill_value and the input tensor must be of the same data type when involving "
                               f"strings or bytes, but got fill_value data type {_type_name(self.fill_value)} and "
                               f"input tensor data type {_type_name(x)}")
        if x.dtype.kind in "SU":
            value = self.fill_value
            if x.dtype.kind == "S" and isinstance(value, str):
                value = value.encode()
            elif x.dtype.kind == "U" and isinstance(value, bytes):
                value = value.decode()
            return np.full(x.shape, value)  # the fill value's own length, not the input strings'

        # numbers are cast to the input's dtype the C way: -3 → 253 for uint8, 3.7 → 3 for int32
        value = np.asarray(self.fill_value)
        if x.dtype.kind in "iu" and value.dtype.kind == "f":
            value = value.astype(np.int64)
        if x.dtype.kind in "iu" and value.dtype.kind in "iu":
            value = value.astype(np.int64).astype(x.dtype)
        return np.full(x.shape, value.astype(x.dtype), dtype=x.dtype)


class PadEnd(TensorOperation):
    """`PadEnd(pad_shape, pad_value=None)`: pad (or cut) each dimension at its end to `pad_shape` (None keeps a size)."""

    def __init__(self, pad_shape, pad_value=None):
        check_type(pad_shape, (list,), "pad_shape")
        for size in pad_shape:
            if size is None:
                continue
            if isinstance(size, bool) or not isinstance(size, int):
                raise TypeError("a value in the list is not an integer.")
            check_interval(size, 1, 2 ** 63 - 1, "pad_shape")
        self.pad_shape, self.pad_value = list(pad_shape), pad_value

    def _execute(self, x):
        x = np.asarray(x)
        if x.ndim != len(self.pad_shape):
            raise ValueError(f"For 'PadEnd', the input rank {x.ndim} must equal len(pad_shape) {len(self.pad_shape)}.")
        shape = tuple(d if s is None else s for d, s in zip(x.shape, self.pad_shape))
        text = x.dtype.kind in "SU"
        if self.pad_value is None:
            value, dtype = ("" if x.dtype.kind == "U" else b"") if text else 0, x.dtype
        else:
            value = self.pad_value
            if text != isinstance(value, (str, bytes)):
                raise RuntimeError(f"PadEnd: pad_value and item of dataset are not of the same type, pad_value "
                                   f"{value!r} for an input of {x.dtype}.")
            # a string pad value longer than the input's strings widens the result instead of being cut
            dtype = np.result_type(x.dtype, np.array(value).dtype) if text else x.dtype
        out = np.full(shape, value, dtype=dtype)
        region = tuple(slice(0, min(a, b)) for a, b in zip(x.shape, shape))
        out[region] = x[region]
        return out


class Duplicate(TensorOperation):
    """`Duplicate()`: the input and a copy of it (two columns)."""

    def _execute(self, x):
        return x, np.array(x, copy=True)


class Concatenate(TensorOperation):
    """`Concatenate(axis=0, prepend=None, append=None)`: 1-D `prepend`, the 1-D inputs and `append` joined end to end.

    As MindSpore's, it is 1-D only (`axis` 0 or -1) and every part must have the same dtype (str and bytes differ).

    >>> Concatenate(0, np.array([0]), np.array([9]))(np.array([1, 2])).tolist()
    [0, 1, 2, 9]
    """

    def __init__(self, axis=0, prepend=None, append=None):
        check_type(axis, (int,), "axis")
        if axis not in (0, -1):
            raise ValueError("only 1D concatenation supported.")
        for name, part in (("prepend", prepend), ("append", append)):
            if part is not None:
                check_type(part, (np.ndarray,), name)
                if part.ndim != 1:
                    raise ValueError(f"can only {name} 1D arrays.")
        self.axis = axis
        self.prepend = prepend
        self.append = append

    def _execute(self, *xs):
        xs = [np.asarray(x) for x in xs]
        for x in xs:
            axis = self.axis + x.ndim if self.axis < 0 else self.axis
            if axis != 0:
                raise RuntimeError(f"Concatenate: only 1D input supported, input 'axis' should be 0, but got: {axis}")
            if x.ndim != 1:
                raise RuntimeError(f"Concatenate: only 1D input supported, got rank of input: {x.ndim}")
            for name, part in (("prepend", self.prepend), ("append", self.append)):
                if part is not None and engine_dtype_name(part) != engine_dtype_name(x):
                    raise RuntimeError(f"Concatenate: input datatype does not match the {name} datatype, got input "
                                       f"datatype: {engine_dtype_name(x)}, {name} datatype:{engine_dtype_name(part)}")
        parts = ([self.prepend] if self.prepend is not None else []) + xs + \
            ([self.append] if self.append is not None else [])
        return np.concatenate(parts)


class Slice(TensorOperation):
    """`Slice(*slices)`: one selector per dimension (int, list of int, slice; None, Ellipsis or True keep all).

    >>> Slice(slice(1, 3), [0, 2])(np.arange(12).reshape(3, 4)).tolist()
    [[4, 6], [8, 10]]
    """

    def __init__(self, *slices):
        for s in slices:
            if isinstance(s, (list, tuple)):
                for k, index in enumerate(s):
                    check_type(index, (int,), f"slice_option[{k}]")
            elif not (s is None or s is Ellipsis or isinstance(s, (bool, int, slice))):
                raise TypeError(f"Argument slice_option with value {s!r} is not of type [<class 'int'>, <class "
                                f"'list'>, <class 'slice'>, <class 'NoneType'>, <class 'ellipsis'>], but got "
                                f"{type(s)}.")
        self.slices = slices

    def _execute(self, x):
        x = np.asarray(x)
        if len(self.slices) > x.ndim:
            raise ValueError(f"For 'Slice', {len(self.slices)} selectors for a {x.ndim}-D input.")
        out = x
        for axis, s in enumerate(self.slices):
            if s is None or s is Ellipsis or s is True:
                continue
            if s is False or (isinstance(s, (list, tuple)) and not s):
                raise RuntimeError("Both indices and slices can not be empty.")
            if isinstance(s, slice):
                out = out[(slice(None),) * axis + (s,)]
                continue
            indices = [s] if isinstance(s, int) else list(s)
            for index in indices:
                if not -x.shape[axis] <= index < x.shape[axis]:
                    raise RuntimeError(f"Index {index} is out of bounds.")
            out = np.take(out, indices, axis=axis)
        return np.array(out)


class Relational(enum.Enum):
    EQ = "EQ"
    NE = "NE"
    GT = "GT"
    GE = "GE"
    LT = "LT"
    LE = "LE"


_COMPARE = {Relational.EQ: np.equal, Relational.NE: np.not_equal, Relational.GT: np.greater,
            Relational.GE: np.greater_equal, Relational.LT: np.less, Relational.LE: np.less_equal}


class Mask(TensorOperation):
    """`Mask(operator, constant, dtype=mstype.bool_)`: elementwise `input <operator> constant`, cast to `dtype`."""

    def __init__(self, operator, constant, dtype=None):
        if not isinstance(operator, Relational):
            raise TypeError(f"For 'Mask', 'operator' must be a Relational, but got {operator!r}.")
        self.operator, self.constant = operator, constant
        self.dtype = dtype
        if dtype is mstype.string:  # accepted here; MindSpore rejects it when the mask is computed
            self._dtype = np.dtype(np.str_)
        else:
            self._dtype = np.dtype(np.bool_) if dtype is None else _np_dtype(dtype, "Mask")

    def _execute(self, x):
        if self._dtype.kind in "SUO":
            raise RuntimeError("Mask: Only supports bool or numeric datatype for generated mask type, but got:string")
        x = np.asarray(x)
        textual = x.dtype.kind in "SUO"
        if textual != isinstance(self.constant, (str, bytes)):
            raise RuntimeError("Mask: input datatype does not match the value datatype, both should be numeric or "
                               "non-numerical in the same time.")
        if textual:
            constant = self.constant
            if x.dtype.kind == "S" and isinstance(constant, str):
                constant = constant.encode()
            elif x.dtype.kind == "U" and isinstance(constant, bytes):
                constant = constant.decode()
        else:
            constant = np.asarray(self.constant).astype(x.dtype)  # compared in the input's dtype: 3.5 → 3 for ints
        return _COMPARE[self.operator](x, constant).astype(self._dtype)


class Unique(TensorOperation):
    """`Unique()`: (distinct values in order of first appearance, index of each input in them, their counts)."""

    def _execute(self, x):
        x = np.asarray(x)
        if x.ndim != 1:
            raise ValueError(f"For 'Unique', the input must be 1-D, but got shape {x.shape}.")
        values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return values[order], rank[inverse].astype(np.int32), counts[order].astype(np.int32)
