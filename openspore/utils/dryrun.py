"""`mindspore.utils.dryrun`: the dry-run switch and `mock`, for scripts written to be simulated.

MindSpore's dry run (`MS_SIMULATION_LEVEL` set) compiles and plans a large model without running it on devices,
so values read back are not real; `mock(value, ...)` lets such a script take a chosen branch instead. openspore
computes every value for real even then, so a dry run here changes only what `mock` returns.

>>> from openspore.utils import dryrun
>>> dryrun.mock(True, lambda a: a > 5, 3)  # no dry run: the real value
False
"""
import os

from .. import context

__all__ = ["set_simulation", "mock"]


def set_simulation():
    """Turn the dry run on for this process and the ones it starts (`MS_SIMULATION_LEVEL=1`)."""
    os.environ["MS_SIMULATION_LEVEL"] = "1"


def mock(mock_val, *args):
    """`mock_val` during a dry run; otherwise the real value: args[0](*args[1:]) when args[0] is callable, else
    args[0]."""
    if not args:
        raise TypeError("For 'mock', give the real value (or a function and its arguments) after 'mock_val'.")
    if context.simulation_level() > 0:
        return mock_val
    return args[0](*args[1:]) if callable(args[0]) else args[0]
