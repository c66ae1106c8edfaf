"""Parameters read by recorded ops keep, for the backward, the value they had when read.

An in-place write (`ops.assign`, `self.p = v` in a compiled construct, AssignAdd...) overwrites a Parameter's
buffer. A backward rule that reads the Parameter (the `y` of `Mul(x, y)`) must see the value the forward read,
as MindSpore's auto-monad `Load` gives it, not the one left after later writes:

    for i in range(3):
        ops.assign(self.w, i)
        out = x * self.w + out     # d out / d x = 0 + 1 + 2, not 3 * (final w)

While a grad transform is active, each recorded op that takes a Parameter is noted here; just before a write to
that Parameter, the noted ops get a copy of its current value in place of the Parameter (copy on write: a
Parameter that is never written while differentiated is never copied). In graph mode the copy is an
`Identity` node placed before the write, so the compiled backward reads it too.

>>> import numpy as np, openspore as ms
>>> from openspore import ops
>>> w = ms.Parameter(ms.Tensor(np.float32(2.0)), name="w")
>>> def f(x):
...     y = x * w
...     ops.assign(w, ms.Tensor(np.float32(10.0)))
...     return y
>>> float(ms.grad(f)(ms.Tensor(np.float32(1.0))).asnumpy())   # the w that was read: 2.0
2.0
"""
import weakref

from . import registry
from .parameter import Parameter

_READS = {}  # id(Parameter) -> (Parameter, [weakref to autodiff Node])


def _parameters(args):
    for a in args:
        if isinstance(a, Parameter):
            yield a
        elif type(a) in (tuple, list):
            yield from (b for b in a if isinstance(b, Parameter))


def note(node, args):
    """Remember that recorded `node` reads the Parameters among `args` (called by autograd.record)."""
    for p in _parameters(args):
        entry = _READS.get(id(p))
        if entry is None:
            entry = _READS[id(p)] = (p, [])
        entry[1].append(weakref.ref(node))


def forget():
    """Called when the last grad level closes: nothing is differentiated any more."""
    _READS.clear()


def _replace(args, param, value):
    out = []
    for a in args:
        if a is param:
            a = value
        elif type(a) in (tuple, list) and any(b is param for b in a):
            a = type(a)(value if b is param else b for b in a)
        out.append(a)
    return tuple(out)


def before_write(variable, active):
    """`variable` is about to be overwritten in place: give the ops that read it a copy of its value now.
    `active` is autograd's list of open levels (emptied while the copy is made, so that it is not recorded)."""
    entry = _READS.pop(id(variable), None)
    if entry is None:
        return
    param, refs = entry
    nodes = [n for n in (r() for r in refs) if n is not None and n.args]
    if not nodes:
        return
    saved = active[:]
    active.clear()
    try:
        snapshot = registry.prim("Identity")(param)
    finally:
        active[:] = saved
    for n in nodes:
        n.args = _replace(n.args, param, snapshot)
