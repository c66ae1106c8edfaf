"""The user-facing transforms: grad, value_and_grad, vjp, jvp, GradOperation (facts §1.11)."""
from .autograd import Recorded, differentiate, normalize_weights, run_with_grad
from .backward_replay import BackwardReplay
from .no_grad import check_grad_allowed
from .tensor import Tensor


def _positions(grad_position, nargs):
    if grad_position is None:
        return ()
    if isinstance(grad_position, int) and not isinstance(grad_position, bool):
        return (grad_position,)
    if isinstance(grad_position, (tuple, list)) and all(isinstance(p, int) for p in grad_position):
        return tuple(grad_position)
    raise TypeError(f"grad_position must be an int, a tuple of ints or None, but got {grad_position!r}.")


def _tensor_positions(positions, args):
    """The positions whose argument can have a gradient: MindSpore leaves a Python number (or None, a string) out
    of the result. Tensors, sparse tensors and tuples of tensors stay. A position past the arguments stays, for
    its error."""
    return tuple(p for p in positions
                 if not -len(args) <= p < len(args) or not isinstance(args[p], _NO_GRADIENT))


_NO_GRADIENT = (bool, int, float, complex, str, type(None))


def _shape_grads(grad_position, weights, in_grads, w_grads, return_ids, positions, weight_list):
    if return_ids:
        in_grads = tuple((p, g) for p, g in zip(positions, in_grads))
        w_grads = tuple((w.name, g) for w, g in zip(weight_list, w_grads))
    # MindSpore unwraps a one-element position tuple too: grad(f, (0,)) gives the bare gradient, not (dx,); so
    # does it when the positions left after dropping non-Tensor inputs are one.
    inputs = in_grads[0] if len(positions) == 1 else in_grads
    if grad_position is None:
        return w_grads
    if weights is None:
        return inputs
    return inputs, w_grads


def _check(grad_position, weights):
    if grad_position is None and weights is None:
        raise ValueError("`grad_position` and `weight` can not be None at the same time.")


def _run_or_reuse(fn, args, kwargs, positions, weights, sens=None, has_aux=False):
    """run_with_grad, except when `fn` is a cell marked `set_grad()` whose last PyNative call got these very
    input objects: then that recorded forward is differentiated and not run again (MindSpore's behaviour)."""
    rec = getattr(fn, "__dict__", {}).get("_grad_record")
    if rec is not None:
        fn.__dict__["_grad_record"] = None
        usable = (not kwargs and not rec.spent and len(args) == len(rec.args)
                  and all(a is b for a, b in zip(args, rec.args)))
        leaf_of_position = dict(zip(rec.positions, rec.input_leaves))
        leaf_of_weight = {id(w): leaf for w, leaf in zip(rec.weights, rec.weight_leaves)}
        if usable and all(p in leaf_of_position for p in positions) and all(id(w) in leaf_of_weight for w in weights):
            view = Recorded(rec.out, rec.level, rec.args, tuple(positions), [leaf_of_position[p] for p in positions],
                            tuple(weights), [leaf_of_weight[id(w)] for w in weights], rec.out_nodes)
            try:
                return differentiate(view, sens, has_aux)
            finally:
                rec.spent = True
        rec.drop()
    return run_with_grad(fn, args, kwargs, positions, weights, sens, has_aux)


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
    """`value_and_grad(fn, grad_position=0, weights=None, has_aux=False)` → function returning (value, grads).

    >>> import openspore as ms
    >>> f = ms.value_and_grad(lambda x: (x * x).sum())
    >>> value, g = f(ms.Tensor([1.0, 2.0]))
    >>> g.asnumpy().tolist()
    [2.0, 4.0]
    """
    _check(grad_position, weights)
    weight_list = normalize_weights(weights)

    def wrapper(*args, **kwargs):
        check_grad_allowed()
        sens = None
        if sens_param:
            if not args:
                raise ValueError("sens_param=True: the last positional argument must be the sensitivity.")
            args, sens = args[:-1], args[-1]
        positions = _tensor_positions(_positions(grad_position, len(args)), args)
        out, in_grads, w_grads = _run_or_reuse(fn, args, kwargs, positions, weight_list, sens, has_aux)
        return out, _shape_grads(grad_position, weights, in_grads, w_grads, return_ids, positions, weight_list)

    wrapper.__wrapped__ = fn
    return wrapper


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
    """`grad(fn, grad_position=0, weights=None, has_aux=False)` → function returning gradients
    (with has_aux: `(grads, (aux, ...))`)."""
    vg = value_and_grad(fn, grad_position, weights, has_aux, return_ids, sens_param)

    def wrapper(*args, **kwargs):
        out, grads = vg(*args, **kwargs)
        if has_aux:
            return grads, tuple(out[1:])
        return grads

    wrapper.__wrapped__ = fn
    return wrapper


def vjp(fn, *inputs, weights=None, has_aux=False):
    """`vjp(fn, *inputs)` → (outputs, vjp_fn); `vjp_fn(v)` returns the input gradients for cotangent v, as a tuple
    with one gradient per input even for a single input (MindSpore's `(dx,)`); with `weights`, `(input_grads,
    weight_grads)`.

    >>> import openspore as ms
    >>> out, vjp_fn = ms.vjp(lambda x: x * 3, ms.Tensor([1.0, 2.0]))
    >>> (dx,) = vjp_fn(ms.Tensor([1.0, 1.0]))
    >>> dx.asnumpy().tolist()
    [3.0, 3.0]
    """
    from . import autograd
    weight_list = normalize_weights(weights)
    scope = autograd._Scope()
    boxed, leaves = [], []
    for x in inputs:
        b, leaf = autograd.box(x, scope.level)
        boxed.append(b)
        leaves.append(leaf)
    w_leaves = [scope.watch_parameter(w) for w in weight_list]
    try:
        with scope:
            out = fn(*boxed)
        primary = out[0] if has_aux else out
        # The output links are read before the weights get their outer links back: a weight returned as an
        # output is its own leaf and must pass its cotangent on.
        out_links = [o._nodes.get(scope.level) if o._nodes else None for o in autograd._flatten_tensors(primary)]
    finally:
        scope.restore()

    replay = BackwardReplay()  # vjp_fn called again and again (jacrev's rows): kernels replayed, not walked

    def vjp_fn(*cotangent):
        cot = cotangent[0] if len(cotangent) == 1 else cotangent
        cots = autograd._flatten_tensors(cot)
        if len(out_links) != len(cots):
            raise ValueError(f"vjp_fn expects {len(out_links)} cotangents, got {len(cots)}.")
        roots = [(link[0], link[1], c) for link, c in zip(out_links, cots) if link is not None]
        got = replay.backward(roots) if roots else {}

        def g(leaf, like):
            v = got.get(id(leaf))
            return v if v is not None else autograd.zeros_like(like)
        grads = tuple(g(leaf, x) for leaf, x in zip(leaves, inputs))
        if weight_list:
            return grads, tuple(g(leaf, w) for leaf, w in zip(w_leaves, weight_list))
        return grads

    # `out` keeps its links to this (finished) level: vjp_fn walks them on each call.
    if has_aux:
        return out[0], vjp_fn, _aux_of(out)
    return out, vjp_fn


def _aux_of(out):
    """vjp/jvp aux value: the second output itself when there are two outputs, else a tuple of the rest."""
    return out[1] if len(out) == 2 else tuple(out[1:])


def jvp(fn, inputs, v, has_aux=False):
    """Forward-mode product via the transpose of a vjp (two reverse passes): returns (outputs, jvp)."""
    from . import autograd
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    v = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    if len(v) != len(inputs):
        raise TypeError(f"For 'jvp', 'v' must hold one tangent per input: got {len(v)} tangents for {len(inputs)} inputs.")
    if has_aux:
        out, vjp_fn, aux = vjp(fn, *inputs, has_aux=True)
    else:
        out, vjp_fn = vjp(fn, *inputs)
    outs = autograd._flatten_tensors(out)
    # u ↦ vjp_fn(u) = Jᵀu is linear in u; its own vjp applied to v is (Jᵀ)ᵀv = Jv.
    dummy = tuple(autograd.zeros_like(o) for o in outs)
    _, inner = vjp(vjp_fn, *dummy)
    tangent = inner(*v) if len(v) > 1 else inner(v[0])
    tangent = tangent[0] if len(tangent) == 1 and not isinstance(out, (tuple, list)) else tangent
    if has_aux:
        return out, tangent, aux
    return out, tangent


def _default_weights(fn):
    """The weights of `GradOperation(get_by_list=True)(fn)` called without any: on MindSpore 2.10 a Cell in
    PyNative mode gives the gradients of its trainable parameters; a plain function, or GRAPH_MODE, gives ()."""
    from .. import context
    if context.get_context("mode") == context.PYNATIVE_MODE and callable(getattr(fn, "trainable_params", None)):
        return tuple(fn.trainable_params())
    return ()


class GradOperation:
    """`GradOperation(get_all=False, get_by_list=False, sens_param=False)(fn, weights)(*inputs[, sens])`."""

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param

    def __call__(self, fn, weights=None):
        if self.get_by_list and weights is None:
            weights = _default_weights(fn)

        def wrapper(*args):
            sens = None
            if self.sens_param:
                args, sens = args[:-1], args[-1]
            positions = tuple(range(len(args))) if self.get_all else ((0,) if not self.get_by_list else ())
            if self.get_all:
                positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
            wl = normalize_weights(weights) if self.get_by_list else ()
            _, in_grads, w_grads = _run_or_reuse(fn, args, {}, positions, wl, sens)
            if self.get_all and self.get_by_list:
                return in_grads, w_grads
            if self.get_by_list:
                return w_grads
            if self.get_all:
                return in_grads
            return in_grads[0]
        return wrapper
