"""fold_batchnorm: an eval-mode BatchNorm after a convolution with constant weights is folded into it.

    %2 = Conv2D[...](%0, %w) : f32[1,16,32,32]                   %2 = Conv2D[...](%0, %w') : f32[1,16,32,32]
    %3 = BatchNorm[is_training=False, epsilon=1e-05](%2, %g, %b, %m, %v)     →      %3 = BiasAdd(%2, %b') : f32[...]
    %4 = tuple_get_item[0](%3) : f32[1,16,32,32]

with s = g / sqrt(v + epsilon), w' = w * s (per output channel) and b' = b - m * s (plus s times a BiasAdd's
constant bias between the convolution and the BatchNorm). The folded values are computed in float64 and stored
in the weight's dtype. It applies when the convolution (and its BiasAdd) has the BatchNorm as only reader, every
BatchNorm operand but the input is a constant (the inference path freezes Parameters first: freeze_weights),
and only output 0 of the BatchNorm is read. Inference only: a training-mode BatchNorm normalises by the batch.
"""
import numpy as np

from ...core.primitive import PRIMITIVES
from ...core.tensor import Tensor
from ...ir.node import Node
from ...ir.rewrite import rewrite

_CONVOLUTIONS = ("Conv2D",)


def fold_batchnorm(graph):
    """fold_batchnorm(graph) -> Graph with eval-mode BatchNorms after constant-weight convolutions folded."""
    return rewrite(graph, _visit, prepare=_folds)


def _const_array(node):
    if node.op != "const" or not isinstance(node.value, Tensor):
        return None
    return node.value.asnumpy()


def _single_reader(node, users):
    return len(users.get(node.id, ())) == 1


def _fold_site(bn, users, output_id):
    """(conv, bias_add or None) when BatchNorm node `bn` can be folded; else None."""
    if not (bn.is_primitive and bn.op_name == "BatchNorm") or bn.attrs.get("is_training", True):
        return None
    if bn.attrs.get("data_format", "NCHW") != "NCHW" or bn.id == output_id:
        return None
    if any(u is None or u.op != "tuple_get_item" or u.index != 0 for u in users.get(bn.id, ())):
        return None
    if any(_const_array(i) is None for i in bn.inputs[1:5]):
        return None
    x, bias_add = bn.inputs[0], None
    if x.is_primitive and x.op_name == "BiasAdd" and _single_reader(x, users) and x.id != output_id \
            and x.attrs.get("data_format", "NCHW") == "NCHW" and _const_array(x.inputs[1]) is not None:
        bias_add, x = x, x.inputs[0]
    if not (x.is_primitive and x.op_name in _CONVOLUTIONS and _single_reader(x, users) and x.id != output_id):
        return None
    if x.attrs.get("data_format", "NCHW") != "NCHW" or _const_array(x.inputs[1]) is None:
        return None
    return x, bias_add


def _folds(g):
    users = g.users()
    output_id = g.output.id if g.output is not None else None
    sites = {}
    for n in g.nodes:
        site = _fold_site(n, users, output_id)
        if site is not None:
            sites[n.id] = site
    dropped = {node.id for conv, bias_add in sites.values() for node in (conv, bias_add) if node is not None}
    return sites, dropped


def folded_values(weight, gamma, beta, mean, variance, epsilon, bias=None):
    """(weight', bias') of a convolution with the BatchNorm folded in (float64 math, the weight's dtype).

    >>> w, b = folded_values(np.ones((2, 1, 1, 1), np.float32), np.array([2., 1.]), np.zeros(2), np.array([1., 0.]),
    ...                      np.array([3., 0.]), 1.0)
    >>> w.ravel().tolist(), b.tolist()
    ([1.0, 1.0], [-1.0, 0.0])
    """
    scale = np.asarray(gamma, np.float64) / np.sqrt(np.asarray(variance, np.float64) + float(epsilon))
    w = np.asarray(weight, np.float64) * scale.reshape((-1,) + (1,) * (np.ndim(weight) - 1))
    shift = np.asarray(beta, np.float64) - np.asarray(mean, np.float64) * scale
    if bias is not None:
        shift = shift + np.asarray(bias, np.float64) * scale
    dtype = np.asarray(weight).dtype
    return w.astype(dtype), shift.astype(dtype)


def _visit(n, inputs, rw):
    sites, dropped = rw.facts
    if n.id in dropped:
        return None
    if n.op == "tuple_get_item" and n.inputs[0].id in sites:
        return inputs[0]  # output 0 of a folded BatchNorm: the BiasAdd that replaced it
    site = sites.get(n.id)
    if site is None:
        return rw.keep(n, inputs)
    conv, bias_add = site
    gamma, beta, mean, variance = (_const_array(i) for i in n.inputs[1:5])
    old_bias = _const_array(bias_add.inputs[1]) if bias_add is not None else None
    weight, shift = folded_values(_const_array(conv.inputs[1]), gamma, beta, mean, variance,
                                  n.attrs.get("epsilon", 1e-5), old_bias)
    w_node = Node("const", value=Tensor(weight), abstract=conv.inputs[1].abstract, loc=conv.loc, scope=conv.scope)
    b_node = Node("const", value=Tensor(shift), abstract=n.inputs[2].abstract, loc=n.loc, scope=n.scope)
    new_conv = conv.clone(inputs=(rw.get(conv.inputs[0]), w_node))
    return Node(PRIMITIVES["BiasAdd"](data_format="NCHW"), (new_conv, b_node), abstract=n.abstract[0], loc=n.loc,
                scope=n.scope)
