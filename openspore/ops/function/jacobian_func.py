"""Jacobians (`ops.jacrev`, `ops.jacfwd`): the full matrix of partial derivatives of `fn`'s outputs with respect to
the inputs at `grad_position`, built from `vjp` (one cotangent per output element: rows) or `jvp` (one tangent
per input element: columns). Each block has shape output.shape + input.shape; several outputs give a tuple over
outputs, several positions a tuple over positions inside it (MindSpore's layout).

>>> import openspore as ms
>>> ms.ops.jacrev(lambda x: x ** 2)(ms.Tensor([1.0, 2.0])).asnumpy().tolist()
[[2.0, 0.0], [0.0, 4.0]]
"""
import numpy as np

from ...core.grad_api import jvp, vjp
from ...core.tensor import Tensor
from .array_func import reshape, stack

__all__ = ["jacrev", "jacfwd"]


def _positions(grad_position, nargs):
    single = isinstance(grad_position, int) and not isinstance(grad_position, bool)
    positions = (grad_position,) if single else tuple(grad_position) if isinstance(grad_position, (tuple, list)) \
        else None
    if not positions or not all(isinstance(p, int) and not isinstance(p, bool) and -nargs <= p < nargs
                                for p in positions):
        raise TypeError(f"'grad_position' must be an int or a non-empty tuple of ints within the {nargs} inputs, "
                        f"but got {grad_position!r}.")
    return tuple(p % nargs for p in positions), single or len(positions) == 1


def _selected(fn, args, positions, has_aux):
    def sub(*chosen):
        full = list(args)
        for p, value in zip(positions, chosen):
            full[p] = value
        out = fn(*full)
        if has_aux and not (isinstance(out, tuple) and len(out) > 1):
            raise ValueError("With has_aux=True, fn must return more than one output.")
        return out
    return sub


def _arrange(blocks, outs_is_tuple, single_position):
    """blocks[k][j]: output k, position j → MindSpore's nesting."""
    per_output = [b[0] if single_position else tuple(b) for b in blocks]
    return tuple(per_output) if outs_is_tuple else per_output[0]


def _split_aux(out, has_aux):
    if not has_aux:
        return out, None
    return out[0], (out[1] if len(out) == 2 else tuple(out[1:]))


def jacrev(fn, grad_position=0, has_aux=False):
    """The Jacobian of fn by reverse mode: one vjp per output element."""
    if not isinstance(has_aux, bool):
        raise TypeError(f"'has_aux' must be a bool, but got {type(has_aux).__name__}.")

    def jacobian(*args):
        positions, single = _positions(grad_position, len(args))
        sub = _selected(fn, args, positions, has_aux)
        result = vjp(sub, *[args[p] for p in positions], has_aux=has_aux)
        out, vjp_fn = result[0], result[1]
        aux = result[2] if has_aux else None
        outs = out if isinstance(out, tuple) else (out,)
        blocks = []
        for k, o in enumerate(outs):
            rows = []
            for i in range(int(np.prod(o.shape)) if o.shape else 1):
                cots = []
                for m, other in enumerate(outs):
                    c = np.zeros(other.shape, other.dtype.np_dtype)
                    if m == k:
                        c.reshape(-1)[i] = 1
                    cots.append(Tensor(c))
                rows.append(vjp_fn(*cots))
            block = []
            for j, p in enumerate(positions):
                # ops, not numpy: inside @jit the rows are traced values (MindSpore's jacrev runs under jit too)
                block.append(reshape(stack([r[j] for r in rows]), tuple(o.shape) + tuple(args[p].shape)))
            blocks.append(block)
        jac = _arrange(blocks, isinstance(out, tuple), single)
        return (jac, aux) if has_aux else jac
    return jacobian


def jacfwd(fn, grad_position=0, has_aux=False):
    """The Jacobian of fn by forward mode: one jvp per input element."""
    if not isinstance(has_aux, bool):
        raise TypeError(f"'has_aux' must be a bool, but got {type(has_aux).__name__}.")

    def jacobian(*args):
        positions, single = _positions(grad_position, len(args))
        sub = _selected(fn, args, positions, has_aux)
        primals = [args[p] for p in positions]
        columns, out, aux = [], None, None  # columns[j][e] = d outputs / d primals[j].flat[e]
        for j, x in enumerate(primals):
            cols = []
            for e in range(int(np.prod(x.shape)) if x.shape else 1):
                tangents = []
                for m, other in enumerate(primals):
                    t = np.zeros(other.shape, other.dtype.np_dtype)
                    if m == j:
                        t.reshape(-1)[e] = 1
                    tangents.append(Tensor(t))
                res = jvp(sub, tuple(primals), tuple(tangents), has_aux=has_aux)
                out, tangent = res[0], res[1]
                aux = res[2] if has_aux else None
                cols.append(tangent if isinstance(out, tuple) else (tangent,))
            columns.append(cols)
        outs = out if isinstance(out, tuple) else (out,)
        blocks = []
        for k, o in enumerate(outs):
            block = []
            for j, x in enumerate(primals):
                cols = stack([c[k] for c in columns[j]], -1)
                block.append(reshape(cols, tuple(o.shape) + tuple(x.shape)))
            blocks.append(block)
        jac = _arrange(blocks, isinstance(out, tuple), single)
        return (jac, aux) if has_aux else jac
    return jacobian
