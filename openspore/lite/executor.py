"""Run a Program: each block becomes one generated straight-line Python function over numpy arrays.

    def block1(t0, *, S=S, k1=k1, k2=k2):
        t1 = S[1]                    # a weight: read from the store at every call (update_weights, training)
        t2 = k1(t0, t1)              # LiteConv2D
        del t0                       # last use: the buffer can be freed
        t3 = k2(t2, (-1, 400))       # a literal input
        return [t3]

`S` is the store: one slot per tensor id, holding the data of const and param tensors. Kernels come from
`kernels.make`. An `if` calls one of its two block functions, a `while` loops over its (cond, body) pair.
A kernel failure is re-raised naming the operator, its type and node.
"""

import numpy as np

from ..common.codegen import Bindings, failing_item, is_literal, load_source
from . import kernels

_serial = [0]


def _error_state_var():
    """numpy's error-state context variable and its value under `errstate(all="ignore")`, or (None, None).

    Why: a run ignores floating-point errors (IEEE results are the answer), and `np.errstate`'s enter and exit
    cost ~1.2 µs in a loop and ~4 µs measured inside LeNet's predict (6 % of it); setting and resetting the
    variable numpy's errstate sets costs a tenth of that. The value is taken once, inside an errstate (so it is
    numpy's own object, not one built here); where numpy keeps no such variable the run uses np.errstate."""
    try:
        from numpy._core._ufunc_config import _extobj_contextvar as var
    except ImportError:
        return None, None
    with np.errstate(all="ignore"):
        value = var.get()
    with np.errstate(all="raise"):
        if var.get() is value:  # not the variable errstate sets
            return None, None
    return var, value


_ERR_VAR, _IGNORE_ERRORS = _error_state_var()


class LiteRuntimeError(RuntimeError):
    pass


class Executable:
    """`run(inputs)` → list of output arrays for a program; `store` holds weights by tensor id."""

    def __init__(self, program, keep=(), kernel_for=None, block=None, store=None, arena=None):
        self.program = program
        self.store = store if store is not None else [t.data for t in program.tensors]
        self.arena = arena or {}  # tensor id -> preallocated view its value is copied into (training memory plan)
        self.keep = set(keep)  # tensors kept alive (not deleted) and returned in `self.kept` after a run
        self.kernel_for = kernel_for or kernels.make
        self.kept = {}
        gen = _Codegen(self)
        self.entry = gen.function(block or program.main, top=True)
        self.source = "\n".join(gen.lines) + "\n"
        _serial[0] += 1
        self.filename = f"<lite program #{_serial[0]}>"
        self.fn = load_source(self.source, self.filename, gen.bindings)[self.entry]
        self.line_ops = gen.line_ops

    def run(self, arrays):
        if _ERR_VAR is None:
            with np.errstate(all="ignore"):
                return self._call(arrays)
        token = _ERR_VAR.set(_IGNORE_ERRORS)
        try:
            return self._call(arrays)
        finally:
            _ERR_VAR.reset(token)

    def _call(self, arrays):
        """The kernels over `arrays`; an error a kernel raised comes back naming its operator."""
        try:
            return self.fn(*arrays)
        except (ValueError, TypeError, IndexError, RuntimeError, FloatingPointError, KeyError) as exc:
            named = self._named(exc)
            if named is None:
                raise
            raise named from exc

    def _named(self, exc):
        """The LiteRuntimeError naming the operator whose kernel raised `exc` (None when none did)."""
        op = self._failing_op(exc.__traceback__)
        if op is None:
            return None
        return LiteRuntimeError(f"operator '{op.type}' (node '{op.name or '?'}') failed: "
                                f"{type(exc).__name__}: {exc}")

    def _failing_op(self, tb):
        return failing_item(tb, self.filename, self.line_ops)


class _Codegen(Bindings):
    def __init__(self, exe):
        super().__init__({"S": exe.store, "_kept": exe.kept, "_copyto": np.copyto})
        self.exe = exe
        self.lines = []
        self.line_ops = {}

    def function(self, block, top=False):
        subs = {id(op): [self.function(b) for b in op.blocks] for op in block.ops if op.blocks}
        self.serial += 1
        fname = f"block{self.serial}"
        body, defaults = self.body(block, subs, top)
        params = [f"t{i}" for i in block.inputs]
        kw = ", ".join(f"{d}={d}" for d in defaults)
        params.append("*")
        header = f"def {fname}({', '.join(params)}, S=S, _kept=_kept, _copyto=_copyto{', ' + kw if kw else ''}):"
        self.lines.append(header)
        for text, op in body:
            for k, line in enumerate(text.split("\n")):
                self.lines.append("    " + line)
                if op is not None and k == 0:
                    self.line_ops[len(self.lines)] = op
        self.lines.append("")
        return fname

    def body(self, block, subs, top):
        tensors = self.exe.program.tensors
        defined = set(block.inputs)
        defaults = []
        out = []
        last = {}
        for pos, op in enumerate(block.ops):
            for t in op.tensor_inputs():
                last[t] = pos
        keep = set(block.outputs) | self.exe.keep
        for pos, op in enumerate(block.ops):
            for t in op.tensor_inputs():
                if t not in defined:
                    if tensors[t].kind in ("const", "param"):
                        out.append((f"t{t} = S[{t}]", None))
                        defined.add(t)
                    else:
                        raise LiteRuntimeError(f"operator '{op.type}' (node '{op.name}') reads tensor "
                                               f"'{tensors[t].name}' before it is computed.")
            text = self.op_line(op, subs, defaults)
            out.append((text, op))
            defined.update(op.outputs)
            for t in op.outputs:
                if t in self.exe.arena:
                    view = self.bind("A", self.exe.arena[t])
                    defaults.append(view)
                    out.append((f"_copyto({view}, t{t}); t{t} = {view}", None))
            for t in op.outputs:
                if t in self.exe.keep:
                    out.append((f"_kept[{t}] = t{t}", None))
            dead = [f"t{t}" for t, p in last.items() if p == pos and t not in keep and tensors[t].kind != "param"]
            if dead:
                out.append((f"del {', '.join(sorted(dead))}", None))
        for t in block.outputs:
            if t not in defined:
                if tensors[t].kind in ("const", "param", "input") and tensors[t].data is not None:
                    out.append((f"t{t} = S[{t}]", None))
                    defined.add(t)
        out.append((f"return [{', '.join(f't{t}' for t in block.outputs)}]", None))
        return out, defaults

    def op_line(self, op, subs, defaults):
        outs = ", ".join(f"t{t}" for t in op.outputs)
        if op.type == "if":
            then_fn, else_fn = subs[id(op)]
            defaults.extend([then_fn, else_fn])
            cond, *operands = op.inputs
            args = ", ".join(f"t{t}" for t in operands)
            return f"[{outs}] = ({then_fn} if t{cond} else {else_fn})({args})"
        if op.type == "while":
            cond_fn, body_fn = subs[id(op)]
            defaults.extend([cond_fn, body_fn])
            args = ", ".join(f"t{t}" for t in op.inputs)
            return (f"_state = [{args}]\n"
                    f"while {cond_fn}(*_state)[0]:\n"
                    f"    _state = {body_fn}(*_state)\n"
                    f"[{outs}] = _state")
        k = self.bind("k", self.exe.kernel_for(op))
        defaults.append(k)
        args = ", ".join(self.arg(item, defaults) for item in op.inputs)
        call = f"{k}({args})"
        if len(op.outputs) == 1 and not op.attrs.get("__tuple_out__"):
            return f"t{op.outputs[0]} = {call}"
        return f"[{outs}] = {call}"

    def arg(self, item, defaults):
        if type(item) is int:
            return f"t{item}"
        if type(item) is list:
            return "[" + ", ".join(f"t{t}" for t in item) + "]"
        value = item.value
        if is_literal(value):
            return repr(value)
        name = self.bind("c", value)
        defaults.append(name)
        return name

