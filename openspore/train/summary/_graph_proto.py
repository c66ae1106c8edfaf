"""An openspore IR graph as MindSpore's summary graph (`anf_ir.GraphProto`), for the dashboard's graph view.

Nodes are the primitive calls of the graph and its subgraphs, named "1", "2", ... in execution order as
MindSpore names them; `scope` is the cell path (`Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d`),
`full_name` adds the operator (`.../Conv2D-op3`). Inputs name other nodes, parameters (weights by their
checkpoint names, graph inputs by argument name) or constants (`cst1`, ...). The user-code location of a node
goes into an attribute `code_stack` (a list of "file:line" strings): anf_ir has no field for it, and readers that
do not know the attribute show it as one more attribute.
"""
import time

import numpy as np

from ...ir.node import value_producers as _sources
from . import anf_ir_pb2

_DTYPES = {"bool": "DT_BOOL", "int8": "DT_INT8", "int16": "DT_INT16", "int32": "DT_INT32", "int64": "DT_INT64",
           "uint8": "DT_UINT8", "uint16": "DT_UINT16", "uint32": "DT_UINT32", "uint64": "DT_UINT64",
           "float16": "DT_FLOAT16", "float32": "DT_FLOAT32", "float64": "DT_FLOAT64", "bfloat16": "DT_BFLOAT16",
           "complex64": "DT_COMPLEX64", "complex128": "DT_COMPLEX128"}


def _dtype_enum(dtype):
    name = str(dtype).lower().replace("mindspore.", "")
    return anf_ir_pb2.DataType.Value(_DTYPES.get(name, "DT_UNDEFINED"))


def fill_type(proto, abstract):
    """TypeProto of an abstract value: a tensor (elem type + shape), a tuple of them, or undefined."""
    if isinstance(abstract, tuple):
        proto.data_type = anf_ir_pb2.DT_TUPLE
        for a in abstract:
            fill_type(proto.sequence_type.elem_types.add(), a)
    elif hasattr(abstract, "shape") and hasattr(abstract, "dtype"):
        proto.data_type = anf_ir_pb2.DT_TENSOR
        proto.tensor_type.elem_type = _dtype_enum(abstract.dtype)
        for d in abstract.shape:
            proto.tensor_type.shape.dim.add(size=int(d))
    else:
        proto.data_type = anf_ir_pb2.DT_UNDEFINED


def fill_value(proto, value):
    """ValueProto of an attribute value (numbers, strings, bools, sequences of them; others as text)."""
    if isinstance(value, bool):
        proto.dtype, proto.bool_val = anf_ir_pb2.DT_BOOL, value
    elif isinstance(value, (int, np.integer)):
        proto.dtype, proto.int_val = anf_ir_pb2.DT_INT64, int(value)
    elif isinstance(value, (float, np.floating)):
        proto.dtype, proto.double_val = anf_ir_pb2.DT_FLOAT64, float(value)
    elif isinstance(value, str):
        proto.dtype, proto.str_val = anf_ir_pb2.DT_STRING, value
    elif isinstance(value, (tuple, list)):
        proto.dtype = anf_ir_pb2.DT_TUPLE if isinstance(value, tuple) else anf_ir_pb2.DT_LIST
        for v in value:
            fill_value(proto.values.add(), v)
    elif value is None:
        proto.dtype = anf_ir_pb2.DT_NONE
    else:
        proto.dtype, proto.str_val = anf_ir_pb2.DT_STRING, str(value)


def graph_proto(graph):
    """The GraphProto of an IR `Graph` (see the module docstring)."""
    proto = anf_ir_pb2.GraphProto(name=graph.name)
    names = {}
    for k, n in enumerate(graph.inputs):
        names[n.id] = n.name or f"inputs{k}"
        fill_type(proto.parameters.add(name=names[n.id]).type, n.abstract)
    counter = {"node": 0, "cst": 0, "op": 0}
    for g in graph.all_graphs():
        for k, n in enumerate(g.nodes):
            if k % 32 == 31:  # built on the summary writer thread: let a training thread waiting for the GIL run
                time.sleep(0)
            if n.op == "weight":
                if n.name not in {p.name for p in proto.parameters}:
                    fill_type(proto.parameters.add(name=n.name).type, n.abstract)
                names[n.id] = n.name
            elif n.op == "input" and n.id not in names:
                names[n.id] = n.name or f"input{n.id}"
            elif n.op == "const":
                counter["cst"] += 1
                names[n.id] = f"cst{counter['cst']}"
                named = proto.const_vals.add(key=names[n.id])
                value = n.value
                if hasattr(value, "shape") and getattr(value, "size", 2) > 1:
                    named.value.dtype, named.value.str_val = anf_ir_pb2.DT_TENSOR, f"Tensor{list(value.shape)}"
                else:
                    fill_value(named.value, value.item() if hasattr(value, "item") else value)
            elif n.is_primitive:
                counter["node"] += 1
                names[n.id] = str(counter["node"])
                node = proto.node.add(name=names[n.id], op_type=n.op_name)
                full = n.scope or "Default"
                if not full.rsplit("/", 1)[-1].startswith(f"{n.op_name}-op"):
                    full = f"{full}/{n.op_name}-op{counter['op']}"
                counter["op"] += 1
                node.full_name = full
                node.scope = full.rpartition("/")[0]
                for key, value in n.attrs.items():
                    fill_value(node.attribute.add(name=key).value, value)
                if n.loc:
                    fill_value(node.attribute.add(name="code_stack").value, [n.loc])
                fill_type(node.output_type, n.abstract)
                for src in _sources(n.inputs):
                    if src.id in names:
                        node.input.add(name=names[src.id])
    out = _sources([graph.output])
    for src in out:
        if src.id in names:
            proto.outputs.add(name=names[src.id])
    return proto
