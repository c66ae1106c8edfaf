"""Function values chosen by a tensor: `f if cond else g` joined at an `if`, and `layers[index]` on a tensor index.

MindSpore's graph compiler lets a branch on a tensor yield a *function* (a user function, a Cell, a primitive)
and call it later; a tuple/list of Cells indexed by a tensor is its `switch_layer`. Here such a value is a
`SwitchCallable`: the candidates and the tensor that picks one. Calling it traces every candidate as a branch of
an `if` chain on the selector, so the call is ordinary graph control flow (and differentiable like any `if`).

>>> import numpy as np, openspore as ms
>>> from openspore import ops
>>> from openspore.compiler.frontend.cf_switch import SwitchCallable
>>> pick = SwitchCallable.by_index(ms.Tensor(1), (ops.relu, ops.neg))
>>> pick(ms.Tensor(np.array([1.0, -2.0], np.float32)))
Tensor(shape=[2], dtype=Float32, value= [-1.00000000e+00,  2.00000000e+00])
"""
from .errors import GraphCaptureError, located, user_location
from .scope import is_cell
from .symbolic import SymbolicTensor


def is_function_value(value):
    """Values that graph code may choose between and call: functions, methods, Cells, primitives."""
    return callable(value) and not isinstance(value, type) and not hasattr(value, "shape")


class SwitchCallable:
    """One of `candidates`, chosen at run time: candidate k where `predicates[k]` holds (the last one otherwise).

    `predicates` are boolean tensors (one fewer than the candidates); calling traces each candidate once."""

    def __init__(self, predicates, candidates, loc=None):
        self.predicates = tuple(predicates)
        self.candidates = tuple(candidates)
        self.loc = loc

    @classmethod
    def by_condition(cls, pred, if_true, if_false, loc=None):
        return cls((pred,), (if_true, if_false), loc)

    @classmethod
    def by_index(cls, index, candidates, loc=None):
        """`candidates[index]` for an integer tensor `index` (negative counts from the end, as in Python)."""
        from ...ops import functional as F
        n = len(candidates)
        if n == 0:
            raise GraphCaptureError(located("an empty tuple/list of functions can not be indexed by a tensor", loc))
        if not str(index.dtype).lower().startswith(("int", "uint")):
            raise TypeError(located(f"the index of a tuple/list of functions (MindSpore's switch_layer) must be "
                                    f"an integer tensor, but got a Tensor[{index.dtype}]", loc))
        if index.size != 1:
            raise ValueError(located(f"the index of a tuple/list of functions must be a one-element tensor, but "
                                     f"got shape {list(index.shape)}", loc))
        index = F.reshape(index, ())
        predicates = [F.logical_or(F.equal(index, k), F.equal(index, k - n)) for k in range(n - 1)]
        return cls(predicates, candidates, loc)

    def __call__(self, *args, **kwargs):
        from .control_flow import callee, cond_if
        run = [(lambda f: lambda: callee(f)(*args, **kwargs))(f) for f in self.candidates]

        def chain(k):
            if k == len(self.predicates):
                return run[k]()
            return cond_if(self.predicates[k], run[k], lambda: chain(k + 1), (), (), returns=True)
        return chain(0)

    def __repr__(self):
        return f"SwitchCallable({', '.join(getattr(f, '__name__', type(f).__name__) for f in self.candidates)})"


def _indexable_functions(obj):
    """The elements of a tuple/list/CellList/SequentialCell when all of them are callable, else None."""
    if type(obj) in (tuple, list):
        items = list(obj)
    elif is_cell(obj) and hasattr(type(obj), "__len__") and hasattr(type(obj), "__iter__"):
        items = list(iter(obj))
    else:
        return None
    return items if items and all(is_function_value(v) for v in items) else None


def _stackable_tensors(obj):
    """The elements of a tuple/list when all are tensors of one shape and dtype (so one can be picked by a
    run-time index from their stack), else None."""
    if type(obj) not in (tuple, list) or not obj:
        return None
    from ...core.tensor import Tensor
    first = obj[0]
    if not all(isinstance(v, Tensor) and tuple(v.shape) == tuple(first.shape) and v.dtype == first.dtype
               for v in obj):
        return None
    return list(obj)


def _number_tensors(obj):
    """The elements of a tuple/list of Python numbers of one kind (bool, int or float) as scalar tensors (so a
    run-time index picks one from their stack, the traced scalar MindSpore's graph gives), else None."""
    if type(obj) not in (tuple, list) or not obj:
        return None
    kinds = {bool if isinstance(v, bool) else int if isinstance(v, int) else float if isinstance(v, float) else None
             for v in obj}
    if len(kinds) != 1 or None in kinds:
        return None
    from ...core.tensor import Tensor
    return [Tensor(v) for v in obj]


def _pick_tensor(items, index):
    """`items[index]` for a traced integer index: the index-th slice of the items' stack (negative from the end)."""
    from ...ops import functional as F
    n = len(items)
    if str(index.dtype).lower().startswith("float") or index.size != 1:
        raise ValueError(located("Only integer tensors of a single element can be converted to an index."))
    index = F.reshape(index, ())
    index = F.select(F.less(index, 0), index + n, index)
    return F.gather(F.stack(items), index, 0)


def getitem(obj, index):
    """`obj[index]` in graph code: a tuple/list of functions indexed by a traced tensor chooses at run time, and
    one of tensors of one shape is taken from their stack (MindSpore's dynamic list/tuple getitem)."""
    if isinstance(index, SymbolicTensor):
        items = _indexable_functions(obj)
        if items is not None:
            return SwitchCallable.by_index(index, items, user_location())
        tensors = _stackable_tensors(obj)
        if tensors is None:
            tensors = _number_tensors(obj)
        if tensors is not None:
            return _pick_tensor(tensors, index)
    return obj[index]
