"""Generation counters: a cheap proof, for a cached fast path, that nothing it depends on changed since it was made.

* `CHANGES[0]` counts changes to what selects a compiled graph besides the call's own arguments: `set_context`,
  and a Cell's structure or mode (an attribute set or deleted, a sub-cell or Parameter added, replaced or removed,
  `set_train`, hooks, `set_jit_config`).
* `WRITES[0]` counts writes into tensors' arrays made by openspore: a side-effecting kernel ran (Assign, the
  optimizer updates: backends/base.py counts them), or a Tensor's array was replaced (`set_data`,
  `load_param_into_net`, the in-place Tensor methods, `__setitem__`).

A reader keeps a counter's value and compares it later: equal means no such change happened in between (the
counters only grow; each is bumped after the change it announces). A differing count only says "look again":
the reader then does its full check (the inference path compares every frozen array, runtime/inference.py).
Writes made by code outside openspore straight into a backend array (`tensor.data_ref().add_(1)` on a torch
tensor) are not counted.

>>> from openspore.common import generations
>>> seen = generations.WRITES[0]
>>> generations.written()
>>> generations.WRITES[0] > seen
True
"""
from collections import OrderedDict

CHANGES = [0]
WRITES = [0]


def changed():
    """Announce a change of context or of a Cell's structure or mode."""
    CHANGES[0] += 1


def written():
    """Announce a write into a tensor's array."""
    WRITES[0] += 1


class TrackedDict(OrderedDict):
    """An OrderedDict whose every change is announced with `changed()`: a Cell's Parameters and sub-cells, so that
    code which registers them without going through the Cell's attributes (containers, optimizers) is seen too.

    >>> d = TrackedDict(); seen = CHANGES[0]
    >>> d["w"] = 1; CHANGES[0] > seen
    True
    """

    __slots__ = ()

    def __setitem__(self, key, value):
        OrderedDict.__setitem__(self, key, value)
        changed()

    def __delitem__(self, key):
        OrderedDict.__delitem__(self, key)
        changed()

    def pop(self, *args):
        try:
            return OrderedDict.pop(self, *args)
        finally:
            changed()

    def popitem(self, last=True):
        try:
            return OrderedDict.popitem(self, last)
        finally:
            changed()

    def setdefault(self, key, default=None):
        try:
            return OrderedDict.setdefault(self, key, default)
        finally:
            changed()

    def update(self, *args, **kwargs):
        OrderedDict.update(self, *args, **kwargs)
        changed()

    def clear(self):
        OrderedDict.clear(self)
        changed()

    def move_to_end(self, key, last=True):
        OrderedDict.move_to_end(self, key, last)
        changed()
