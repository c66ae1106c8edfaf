"""Emitting openspore IR while reading a MindIR graph.

The builder appends nodes to one IR graph in order, inferring each node's abstract value as it goes, so a
shape or attribute problem in the file surfaces at load time, at the node that causes it. Implicit dtype
promotion (what `bind` would do at run time) is made explicit here with `Cast` nodes and typed constants, so
the loaded graph runs on the fast path.
"""
import numpy as np

from ..common import dtype as mstype
from ..core.primitive import PRIMITIVES, AbstractTensor
from ..core.tensor import Tensor
from ..ir import Graph, Node


class Builder:
    """Nodes of one IR graph under construction; `scope`/`name` label the nodes emitted next."""

    def __init__(self, name):
        self.name = name
        self.inputs = []
        self.nodes = []
        self.scope = ""
        self.label = ""
        self._weights = {}  # id(Parameter) -> weight node

    # ---- leaves -----------------------------------------------------------------------------------------
    def input(self, name, abstract):
        node = Node("input", abstract=abstract, name=name)
        self.inputs.append(node)
        return node

    def weight(self, param):
        node = self._weights.get(id(param))
        if node is None:
            node = self._add(Node("weight", abstract=AbstractTensor(param.shape, param.dtype), value=param,
                                  name=param.name))
            self._weights[id(param)] = node
        return node

    def const(self, value):
        """A const node for a Python value, numpy array or Tensor (arrays become Tensors)."""
        if isinstance(value, np.ndarray):
            value = Tensor(value, dtype=mstype.nptype_to_dtype(value.dtype))
        abstract = AbstractTensor(value.shape, value.dtype) if isinstance(value, Tensor) else None
        return self._add(Node("const", abstract=abstract, value=value, name=self.label))

    def node(self, value):
        """`value` as one IR node: nodes pass through, Python tuples of values become make_tuple nodes (or a
        const tuple when nothing in them is a node), everything else a const node."""
        if isinstance(value, Node):
            return value
        if isinstance(value, (tuple, list)) and any(isinstance(v, Node) for v in value):
            items = [self.node(v) for v in value]
            return self._add(Node("make_tuple", items, abstract=tuple(i.abstract for i in items), name=self.label))
        return self.const(value)

    # ---- structure --------------------------------------------------------------------------------------
    def get_item(self, value, index):
        """Element `index` of a tuple-valued node or Python tuple."""
        if isinstance(value, (tuple, list)):
            return value[_index(index, len(value))]
        if not isinstance(value, Node) or not isinstance(value.abstract, tuple):
            raise ValueError(f"TupleGetItem needs a tuple, but got {_describe(value)}.")
        i = _index(index, len(value.abstract))
        if value.op == "make_tuple":
            return value.inputs[i]
        return self._add(Node("tuple_get_item", (value,), abstract=value.abstract[i], index=i, name=self.label))

    def branch(self, cond, operands, then_graph, else_graph):
        node = Node("if", (cond, *operands), abstract=then_graph.output.abstract, graphs=(then_graph, else_graph),
                    name=self.label)
        return self._add(node)

    def finish(self, output):
        out = self.node(output)
        if out not in self.nodes and out not in self.inputs:
            self.nodes.append(out)
        return Graph(self.name, self.inputs, self.nodes, out)

    # ---- primitive calls --------------------------------------------------------------------------------
    def call(self, name, *inputs, **attrs):
        """Emit primitive `name` (constructed with `attrs`) applied to `inputs`."""
        prim = PRIMITIVES[name](**attrs)
        if prim.promote is not None:
            inputs = self._promote(prim, inputs)
        nodes = [self.node(v) for v in inputs]
        abstract = prim.infer(*[infer_arg(n) for n in nodes])
        return self._add(Node(prim, nodes, abstract=abstract, scope=self.scope, name=self.label))

    def abstract(self, value):
        if isinstance(value, Node) and isinstance(value.abstract, AbstractTensor):
            return value.abstract
        raise ValueError(f"expected a tensor, but got {_describe(value)}.")

    def _promote(self, prim, inputs):
        """Python scalars become constants of the promoted dtype, tensors of another dtype are cast."""
        idx = range(len(inputs)) if prim.promote == "all" else [i for i in prim.promote if i < len(inputs)]
        operands = []
        for i in idx:
            v = inputs[i]
            if isinstance(v, Node) and isinstance(v.abstract, AbstractTensor):
                operands.append(v.abstract.dtype)
            elif isinstance(v, np.ndarray):
                operands.append(mstype.nptype_to_dtype(v.dtype))
            elif isinstance(v, (bool, int, float)):
                operands.append(v)
            else:
                return inputs  # let infer report the bad operand
        target = mstype.result_type(*operands)
        out = list(inputs)
        for i in idx:
            v = inputs[i]
            if isinstance(v, Node):
                if v.abstract.dtype is not target:
                    out[i] = self.call("Cast", v, target)
            elif isinstance(v, np.ndarray):
                out[i] = v.astype(target.np_dtype)
            else:
                out[i] = Tensor(np.asarray(v, dtype=target.np_dtype), dtype=target)
        return out

    def _add(self, node):
        self.nodes.append(node)
        return node


def infer_arg(node):
    """What `infer` receives for an IR node: Python values as they are, tensors as abstracts."""
    if node.op == "const":
        return AbstractTensor(node.value.shape, node.value.dtype) if isinstance(node.value, Tensor) else node.value
    if node.op == "make_tuple":
        return tuple(infer_arg(i) for i in node.inputs)
    return node.abstract


def _index(index, length):
    if isinstance(index, bool) or not isinstance(index, int) or not -length <= index < length:
        raise ValueError(f"TupleGetItem index {index!r} is out of range for a tuple of {length} elements.")
    return index % length


def _describe(value):
    if isinstance(value, Node):
        return f"a node {value.op_name} of type {value.abstract!r}"
    return f"{type(value).__name__} {value!r:.60}"
