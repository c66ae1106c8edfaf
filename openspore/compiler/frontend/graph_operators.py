"""The Python operators of graph code whose meaning MindSpore's graph mode fixes: `and`/`or`/`not`, `in`,
`is` and the exception types `raise` accepts. The AST rewrite (ast_rewrite.py) turns each written operator into a
call of these (`_os_cf.user_and_(...)`); the compiler's own generated tests use control_flow's lenient `and_`.

>>> import numpy as np, openspore as ms
>>> from openspore.compiler.frontend.graph_operators import member_in
>>> x = ms.Tensor(np.ones((2, 2), np.float32))
>>> member_in(x, [ms.Tensor(np.zeros((2, 2), np.float32)), "a"]), member_in(x, (ms.Tensor(np.ones((2, 2))),))
(False, True)
"""
from ...core.dispatch import current_tracer
from .symbolic import SymbolicTensor


def _symbolic_now(value):
    return isinstance(value, SymbolicTensor) and current_tracer() is not None


def _as_bool_tensor(value):
    from ...core.tensor import Tensor
    from ...common import dtype as mstype
    from ...ops import functional as F
    if not isinstance(value, Tensor):
        return Tensor(bool(value))
    return value if value.dtype is mstype.bool_ else F.not_equal(value, 0)


def _join_operand(value, other, pick_other_if_true):
    """`value and other` / `value or other` with a traced `value`: MindSpore compiles it into two branches that
    return one operand each, so both must be tensors of one dtype (else its join TypeError), and the condition a
    one-element tensor (else its ValueError)."""
    from ...core.tensor import Tensor
    from ...common import dtype as mstype
    from ...ops import functional as F
    _truth_shape_check(value)
    if not (isinstance(value, Tensor) and isinstance(other, Tensor) and value.dtype == other.dtype):
        raise TypeError("Cannot join the return values of different branches, perhaps you need to make them equal.")
    if value.dtype is mstype.bool_:  # on booleans picking an operand is the logical operation itself
        return F.logical_and(value, other) if pick_other_if_true else F.logical_or(value, other)
    cond = _as_bool_tensor(value)
    return F.select(cond, other, value) if pick_other_if_true else F.select(cond, value, other)


def _truth_shape_check(value):
    from ...core.tensor import Tensor
    if isinstance(value, Tensor) and value.size != 1:
        shape = ", ".join(str(d) for d in value.shape)
        raise ValueError(f"Only tensor which shape is () or (1,) can be converted to bool, but got tensor shape "
                         f"is ({shape})")


def user_and_(value, *thunks):
    """`a and b and ...` written in graph code: Python's short circuit on known values, MindSpore's two-branch
    join once an operand is traced (see `_join_operand`)."""
    for thunk in thunks:
        if _symbolic_now(value):
            value = _join_operand(value, thunk(), True)
        elif not _truth(value):
            return value
        else:
            value = thunk()
    return value


def user_or_(value, *thunks):
    """`a or b or ...` written in graph code (see `user_and_`)."""
    for thunk in thunks:
        if _symbolic_now(value):
            value = _join_operand(value, thunk(), False)
        elif _truth(value):
            return value
        else:
            value = thunk()
    return value


# the exception types graph code may raise (MindSpore 2.10's list, in its message's order)
GRAPH_RAISE_TYPES = ("AssertionError", "AttributeError", "BaseException", "EnvironmentError", "Exception", "IOError",
                     "IndentationError", "IndexError", "KeyError", "KeyboardInterrupt", "MemoryError", "NameError",
                     "NotImplementedError", "OSError", "OverflowError", "RuntimeError", "RuntimeWarning",
                     "StopIteration", "TypeError", "UnboundLocalError", "ValueError", "ZeroDivisionError")


def unsupported_exception(name):
    """The RuntimeError MindSpore's graph mode raises for `raise <name>(...)` with a type outside its list."""
    return RuntimeError(f"Unsupported exception type: {name}. Raise only support some Python standard exception "
                        f"types: {', '.join(GRAPH_RAISE_TYPES)}. ")


def member_in(item, container):
    """`item in container` in graph code. A tensor is in a list/tuple when one of its tensors has its shape and
    equal values (MindSpore's rule; Python's `==` then `bool()` fails on tensors of several elements); the
    answer is a bool tensor when a traced tensor takes part."""
    from ...core.tensor import Tensor
    if not (isinstance(item, Tensor) and isinstance(container, (list, tuple))):
        return item in container
    from ...ops import functional as F
    found = False
    for element in container:
        if element is item:
            return True
        if not isinstance(element, Tensor) or tuple(element.shape) != tuple(item.shape):
            continue
        same = F.equal(element, item).all()
        found = same if found is False else F.logical_or(found, same)
        if not _symbolic_now(found) and bool(found):
            return True
    return found if _symbolic_now(found) else False


def member_not_in(item, container):
    """`item not in container` in graph code (see `member_in`)."""
    return not_(member_in(item, container))


def _traced_scalar(value):
    """A traced 0-d integer or bool tensor: a Python int/bool the graph carries as a variable (a loop counter,
    a value set in a branch), which MindSpore keeps a scalar."""
    from ...common import dtype as mstype
    return (isinstance(value, SymbolicTensor) and tuple(value.shape) == ()
            and (value.dtype is mstype.bool_ or "int" in str(value.dtype).lower()))


def is_(left, right):
    """`left is right` in graph code: a variable int/bool scalar against an int/bool constant compares values at
    run time (MindSpore runs `is` on the scalar's value); everything else is Python's identity."""
    from ...common import dtype as mstype
    for var, const in ((left, right), (right, left)):
        if _traced_scalar(var) and isinstance(const, (int, bool)) and not _traced_scalar(const):
            if (var.dtype is mstype.bool_) != isinstance(const, bool):
                return False  # an int is never a bool
            from ...ops import functional as F
            return F.equal(var, const)
    return left is right


def is_not(left, right):
    """`left is not right` in graph code (see `is_`)."""
    return not_(is_(left, right))


def not_(value):
    if _symbolic_now(value):
        from ...ops import functional as F
        return F.logical_not(_as_bool_tensor(value))
    return not value


def _truth(value):
    """bool(value) for `and`/`or` in graph code; a tensor of several elements fails with MindSpore's message."""
    _truth_shape_check(value)
    return bool(value)
