"""PyNative primitive calls seen as the kernels of a graph: names, iterations and code stacks, for the PyNative dump
(pynative_dump.py) and the PyNative online debugger (pynative_online.py).

A call is named `Default/{PrimName}-op{n}`, `n` counting the calls of an iteration from 0, so the same code gives
the same names every step. A call made by a backward rule is named after the forward call it differentiates, as
in graphs: `Gradients/Default/Grad_{ForwardPrim}/{PrimName}-op{n}`, with the forward call's code stack. An
iteration ends after the optimizer's updates: the first call of a primitive without side effects after
side-effecting ones (Assign*, Apply*, Foreach* updates) starts the next.
"""
import weakref

from ...core import autograd
from ...core.tensor import Tensor
from ...ir.source import capture


class KernelCalls:
    """The naming and iteration state of one PyNative run (see the module docstring)."""

    def __init__(self):
        self.iteration, self.count = 0, 0
        self.started = False
        self.in_update = False
        self._forward = weakref.WeakKeyDictionary()  # autograd node -> (forward name, forward stack)

    def starts_iteration(self, prim):
        """Call first for every primitive call: whether it ends the iteration under way (and starts the next)."""
        if not self.started:
            self.started = True
            return False
        if self.in_update and not prim.side_effect:
            self.iteration += 1
            self.count, self.in_update = 0, False
            return True
        return False

    def name(self, prim, with_stack):
        """(full name, code stack or None) of this call; the stack (innermost frame first) when `with_stack`."""
        n = self.count
        self.count += 1
        running = autograd.DIFFERENTIATING[0]
        forward = self._forward.get(running) if running is not None and running is not True else None
        if forward is not None:
            cell, _, op = forward[0].rpartition("/")
            return f"Gradients/{cell}/Grad_{op.rpartition('-op')[0]}/{prim.name}-op{n}", forward[1]
        scope = "Gradients/Default" if running is not None else "Default"
        return f"{scope}/{prim.name}-op{n}", (capture(2).frames if with_stack else None)

    def called(self, prim, name, stack, result):
        """After the call: remember which autodiff node it made (for its backward calls' names)."""
        self.in_update = prim.side_effect
        for out in (result if isinstance(result, tuple) else (result,)):
            links = out._nodes if isinstance(out, Tensor) else None
            if links:
                for node, _index in links.values():
                    self._forward[node] = (name, stack or ())
