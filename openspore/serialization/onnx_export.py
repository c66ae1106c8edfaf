"""ONNX export: the traced network as an ONNX model (opset `onnx_ops.OPSET`), facts §1.15 / §2.3.

The network is switched to eval mode for the export (as MindSpore's ONNX export does) and traced by the graph
frontend; every IR node becomes ONNX operators (`onnx_ops.CONVERTERS`): Dense is one `Gemm`, convolutions
`Conv` with explicit pads, `AdaptiveAvgPool2d((1, 1))` a `GlobalAveragePool`, a tensor `if` an ONNX `If`
whose branches read the outer values by name. Parameters are initializers named by `Parameter.name`.
Operators without an ONNX counterpart are reported together, before anything is written. The `onnx` package
is needed only here (`pip install openspore[onnx]`).
"""
import os

import numpy as np

from ..common.files import write_atomic as _write_atomic
from ..core.tensor import Tensor
from .export_graph import ExportError, UnsupportedExportError, capture, unsupported_report
from .onnx_ops import CONVERTERS, OPSET, Py

_IR_VERSION = 8  # the ONNX IR version that goes with opset 18 (accepted by every onnxruntime since 1.14)


def _onnx():
    try:
        import onnx
        from onnx import helper, numpy_helper
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("ONNX export needs the 'onnx' package: pip install 'openspore[onnx]' (or pip install "
                          "onnx).") from None
    return onnx, helper, numpy_helper


def _is_convertible(node):
    if node.op == "while":
        return "while (a loop whose condition is a tensor)"
    if node.is_primitive and node.op_name not in CONVERTERS:
        return node.op_name
    return True


def export_onnx(net, inputs, file_name, where="export", input_names=None, output_names=None, export_params=True,
                keep_initializers_as_inputs=False, dynamic_axes=None):
    """Write `net(*inputs)` as `<file_name>.onnx` (the suffix is added when missing); returns the path."""
    onnx, helper, _ = _onnx()
    if not isinstance(file_name, (str, os.PathLike)) or not os.fspath(file_name):
        raise TypeError(f"For '{where}', the argument 'file_name' should be a non-empty str, but got {file_name!r}.")
    from .export_graph import check_net
    check_net(net, where)
    was_training = bool(getattr(net, "training", False))
    net.set_train(False)
    try:
        cap = capture(net, inputs, where, lambda name: name in CONVERTERS)
    finally:
        net.set_train(was_training)
    unsupported_report(cap.graph, _is_convertible, where, "ONNX")
    model = _OnnxBuilder(cap.graph, where).build(input_names, output_names, export_params,
                                                 keep_initializers_as_inputs, dynamic_axes)
    try:
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError as exc:
        raise ExportError(f"For '{where}', the ONNX model failed validation: {exc}") from None
    path = os.fspath(file_name)
    path = os.path.realpath(path if path.endswith(".onnx") else path + ".onnx")
    _write_atomic(path, [model.SerializeToString()])
    return path


class _OnnxBuilder:
    def __init__(self, graph, where):
        self.graph, self.where = graph, where
        self.nodes = []          # NodeProtos of the graph being written (a stack for If branches)
        self.env = {}            # IR node id -> ONNX name | Py | tuple of entries
        self.initializers = {}   # parameter name -> numpy array
        self.fused = {}          # BiasAdd node id -> the MatMul (into a Gemm) or Conv2D (its B input) it joins
        self.skip = set()        # MatMul node ids written as part of a Gemm
        self.count = 0

    def unsupported(self, node, why):
        return UnsupportedExportError(f"For '{self.where}', {node.op_name} at {node.scope or self.graph.name} cannot be exported "
                           f"to ONNX: {why}.")

    def fresh(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    # ---- helpers for converters ---------------------------------------------------------------------------
    def op(self, op_type, inputs, n_out=1, **attrs):
        from onnx import helper
        outs = [self.fresh(op_type) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs, name=self.fresh(f"{op_type}_node"),
                                           **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, array):
        from onnx import numpy_helper
        name = self.fresh("const")
        array = np.asarray(array)
        self.nodes.append(_constant_node(name, numpy_helper.from_array(array, name)))
        return name

    def tensor(self, entry, dtype=None):
        """An ONNX value name for an input entry; Python numbers become constants of `dtype`."""
        if isinstance(entry, str):
            return entry
        if isinstance(entry, Py):
            value = entry.value
            if isinstance(value, Tensor):
                return self.const(value.asnumpy())
            return self.const(np.asarray(value, dtype=dtype) if dtype is not None else np.asarray(value))
        raise ExportError(f"For '{self.where}', a tuple value is used where ONNX needs a tensor.")

    def py(self, entry, node, what):
        if isinstance(entry, Py) and not isinstance(entry.value, Tensor):
            return entry.value
        raise self.unsupported(node, f"the '{what}' argument must be a constant")

    # ---- graph ----------------------------------------------------------------------------------------------
    def build(self, input_names, output_names, export_params, keep_initializers_as_inputs, dynamic_axes):
        from onnx import helper
        g = self.graph
        names = _names(input_names, [n.name or f"input_{i}" for i, n in enumerate(g.inputs)], "input_names",
                       self.where)
        for node, name in zip(g.inputs, names):
            self.env[node.id] = name
        self._find_dense(g)
        self._write(g)
        outs = _leaves(g.output, self.env[g.output.id])
        default = ["output"] if len(outs) == 1 else [f"output_{i}" for i in range(len(outs))]
        out_names = _names(output_names, default, "output_names", self.where)
        for (_abstract, entry), name in zip(outs, out_names):
            self.nodes.append(helper.make_node("Identity", [self.tensor(entry)], [name], name=self.fresh("output")))
        axes = _dynamic_axes(dynamic_axes, names + out_names, self.where)
        inputs = [_value_info(n, node.abstract, axes.get(n)) for node, n in zip(g.inputs, names)]
        outputs = [_value_info(n, a, axes.get(n)) for (a, _), n in zip(outs, out_names)]
        from onnx import numpy_helper
        inits = [numpy_helper.from_array(np.ascontiguousarray(v), k) for k, v in self.initializers.items()]
        if not export_params:
            inputs += [_value_info(t.name, _Abstract(t), None) for t in inits]
            inits = []
        elif keep_initializers_as_inputs:
            inputs += [_value_info(t.name, _Abstract(t), None) for t in inits]
        graph = helper.make_graph(self.nodes, g.name or "main", inputs, outputs, initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="MindSpore", producer_version="1.0")
        model.ir_version = _IR_VERSION
        return model

    def _find_dense(self, graph):
        users = graph.users()
        for n in graph.nodes:
            if n.op_name != "BiasAdd":
                continue
            mm = n.inputs[0]
            # a Conv2D's own NCHW bias: ONNX Conv takes it as input B (engines then see no Reshape + Add)
            absorbs = mm.op_name == "MatMul" or (mm.op_name == "Conv2D" and n.attrs.get("data_format") == "NCHW"
                                                 and mm.attrs.get("data_format", "NCHW") == "NCHW")
            if (absorbs and len(users.get(mm.id, ())) == 1 and mm is not graph.output
                    and len(n.inputs[1].abstract.shape) == 1):
                self.fused[n.id] = mm
                self.skip.add(mm.id)
        for n in graph.nodes:
            for sub in n.graphs:
                self._find_dense(sub)

    def _write(self, graph):
        for n in graph.nodes:
            if n.op == "weight":
                name = n.value.name
                self.initializers.setdefault(name, n.value.asnumpy())
                self.env[n.id] = name
            elif n.op == "const":
                self.env[n.id] = Py(n.value)
            elif n.op == "make_tuple":
                self.env[n.id] = tuple(self.env[i.id] for i in n.inputs)
            elif n.op == "tuple_get_item":
                value = self.env[n.inputs[0].id]
                if isinstance(value, Py):
                    self.env[n.id] = Py(value.value[n.index])
                    continue
                item = value[n.index]
                if item is None:
                    raise self.unsupported(n.inputs[0], f"output {n.index} has no ONNX counterpart")
                self.env[n.id] = item
            elif n.op == "if":
                self.env[n.id] = self._if(n)
            elif n.id in self.skip:
                continue
            else:
                ins = [self.env.get(i.id) for i in n.inputs]  # a MatMul fused into Gemm has none
                self.env[n.id] = CONVERTERS[n.op_name](self, n, ins)

    def _if(self, node):
        from onnx import helper
        cond = self.tensor(self.env[node.inputs[0].id])
        branches = []
        n_out = len(node.abstract) if isinstance(node.abstract, tuple) else 1
        for sub in node.graphs:
            saved = self.nodes
            self.nodes = []
            for inner, outer in zip(sub.inputs, node.inputs[1:]):
                self.env[inner.id] = self.env[outer.id]
            self._write(sub)
            outs = _leaves(sub.output, self.env[sub.output.id])
            names = []
            for abstract, entry in outs:
                names.append(self.op("Identity", [self.tensor(entry, abstract.dtype.np_dtype)]))
            infos = [_value_info(name, abstract, None) for name, (abstract, _) in zip(names, outs)]
            branches.append(helper.make_graph(self.nodes, self.fresh("branch"), [], infos))
            self.nodes = saved
        outs = self.op("If", [cond], n_out=n_out, then_branch=branches[0], else_branch=branches[1])
        if not isinstance(node.abstract, tuple):
            return outs
        return tuple(outs) if n_out > 1 else (outs,)


class _Abstract:
    """Shape/dtype of an initializer, to declare it as a graph input."""

    def __init__(self, tensor_proto):
        from onnx import helper
        self.shape = tuple(tensor_proto.dims)
        self.dtype = helper.tensor_dtype_to_np_dtype(tensor_proto.data_type)


def _value_info(name, abstract, dyn):
    from onnx import helper
    np_dtype = abstract.dtype if isinstance(abstract, _Abstract) else abstract.dtype.np_dtype
    shape = [(dyn or {}).get(i, d) for i, d in enumerate(abstract.shape)]
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(np_dtype)), shape)


def _constant_node(name, tensor):
    from onnx import helper
    return helper.make_node("Constant", [], [name], name=f"{name}_node", value=tensor)


def _leaves(node, entry):
    """(abstract, entry) pairs of a graph result (a tensor or a tuple of them)."""
    if isinstance(entry, tuple):
        abstracts = node.abstract if isinstance(node.abstract, tuple) else (None,) * len(entry)
        return list(zip(abstracts, entry))
    abstract = node.abstract
    if abstract is None and isinstance(entry, Py) and isinstance(entry.value, Tensor):
        from ..core.primitive import AbstractTensor
        abstract = AbstractTensor(entry.value.shape, entry.value.dtype)
    return [(abstract, entry)]


def _names(given, default, what, where):
    if given is None:
        return list(default)
    if not isinstance(given, (list, tuple)) or not all(isinstance(n, str) and n for n in given):
        raise TypeError(f"For '{where}', '{what}' should be a list of non-empty str, but got {given!r}.")
    if len(given) != len(default):
        raise ValueError(f"For '{where}', '{what}' has {len(given)} names, but the network has {len(default)}.")
    if len(set(given)) != len(given):
        raise ValueError(f"For '{where}', '{what}' has duplicate names: {list(given)}.")
    return list(given)


def _dynamic_axes(dynamic_axes, names, where):
    """{value name: {axis: dim name}} from MindSpore/torch style `dynamic_axes`."""
    if dynamic_axes is None:
        return {}
    if not isinstance(dynamic_axes, dict):
        raise TypeError(f"For '{where}', 'dynamic_axes' should be a dict, but got {type(dynamic_axes).__name__}.")
    out = {}
    for name, axes in dynamic_axes.items():
        if name not in names:
            raise ValueError(f"For '{where}', 'dynamic_axes' names {name!r}, which is not an input or output "
                             f"name {names}.")
        if isinstance(axes, dict):
            out[name] = {int(k): str(v) for k, v in axes.items()}
        elif isinstance(axes, (list, tuple)):
            out[name] = {int(k): f"{name}_dim{int(k)}" for k in axes}
        else:
            raise TypeError(f"For '{where}', 'dynamic_axes[{name!r}]' should be a dict or a list of axes, but got "
                            f"{type(axes).__name__}.")
    return out
