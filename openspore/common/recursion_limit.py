"""`mindspore.set_recursion_limit(recursion_limit=1000)`: how deep graph compilation may nest function calls.

It is the limit the graph compiler checks while it traces nested calls and subgraphs, the one
`set_context(max_call_depth=...)` sets (MindSpore 2.x's newer spelling of it), so either call sets it; the
value must be a positive int. Python's own recursion limit is raised with it when needed, since tracing a
deep call chain recurses in Python too.

>>> import openspore as ms
>>> ms.set_recursion_limit(2000)
>>> ms.get_context("max_call_depth")
2000
>>> ms.set_recursion_limit()
"""
import sys

from .. import context

__all__ = ["set_recursion_limit"]


def set_recursion_limit(recursion_limit=1000):
    """Set the compile-time call-depth limit (a positive int)."""
    if isinstance(recursion_limit, bool):
        raise TypeError(f"The input value must be int and must > 0, but got '{recursion_limit}' with type 'bool'.")
    if not isinstance(recursion_limit, int):
        raise TypeError(f"The input value must be int, but got '{type(recursion_limit).__name__}'")
    if recursion_limit <= 0:
        raise ValueError(f"The input value must be int and must > 0, but got '{recursion_limit}' with type 'int'.")
    context.set_context(max_call_depth=recursion_limit)
    # Each traced call costs a few Python frames: keep Python's own limit above the compiler's.
    if sys.getrecursionlimit() < 4 * recursion_limit:
        sys.setrecursionlimit(4 * recursion_limit)
