"""A summary graph (`anf_ir.GraphProto`) as the dashboard's graph view reads it: operator nodes with their scope,
inputs, attributes, output type text and user-code stack, plus the parameters and constants they read.

    >>> from openspore.train.summary import anf_ir_pb2
    >>> g = anf_ir_pb2.GraphProto(name="g")
    >>> n = g.node.add(name="1", op_type="ReLU", scope="Default/net", full_name="Default/net/ReLU-op0")
    >>> _ = n.input.add(name="x")
    >>> view = graph_json(g)
    >>> view["nodes"][0]["name"], view["nodes"][0]["inputs"]
    ('Default/net/ReLU-op0', ['x'])
"""
from openspore.train.summary import anf_ir_pb2


def type_text(t):
    """'float32[8,1,32,32]', '(float32[2], int32[])' or '' for a TypeProto."""
    kind = t.WhichOneof("value")
    if kind == "tensor_type":
        elem = anf_ir_pb2.DataType.Name(t.tensor_type.elem_type).replace("DT_", "").lower()
        return f"{elem}[{','.join(str(d.size) for d in t.tensor_type.shape.dim)}]"
    if kind == "sequence_type":
        return "(" + ", ".join(type_text(e) for e in t.sequence_type.elem_types) + ")"
    return ""


def value_text(v):
    for field in ("str_val", "int_val", "double_val", "float_val", "bool_val", "uint_val"):
        if v.HasField(field):
            return str(getattr(v, field))
    if v.values:
        items = ", ".join(value_text(x) for x in v.values)
        return f"({items})" if v.dtype == anf_ir_pb2.DT_TUPLE else f"[{items}]"
    if v.dtype == anf_ir_pb2.DT_NONE:
        return "None"
    return ""


def graph_json(graph):
    """{name, nodes: [...], parameters: [...], constants: [...]}; node names are full scope names."""
    names = {}
    for node in graph.node:
        names[node.name] = node.full_name or f"{node.scope}/{node.op_type}-{node.name}"
    nodes = []
    for node in graph.node:
        attrs, stack = {}, []
        for a in node.attribute:
            if a.name == "code_stack":
                stack = [value_text(x) for x in a.value.values]
            else:
                attrs[a.name] = value_text(a.value)
        nodes.append({"name": names[node.name], "id": node.name, "op_type": node.op_type, "scope": node.scope,
                      "inputs": [names.get(i.name, i.name) for i in node.input], "attrs": attrs,
                      "output": type_text(node.output_type), "stack": stack})
    return {"name": graph.name, "nodes": nodes,
            "parameters": [{"name": p.name, "type": type_text(p.type)} for p in graph.parameters],
            "constants": [{"name": c.key, "value": value_text(c.value)} for c in graph.const_vals]}
