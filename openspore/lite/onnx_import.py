"""ONNX → lite Program: each ONNX node becomes openspore primitives through the MindIR reader's `Builder`
(shape inference and dtype promotion at every node), then the IR is lowered like a MindIR graph.

Shape arithmetic that exporters write into the graph (`Shape → Gather → Unsqueeze → Concat → Reshape` chains)
is evaluated here on the statically known shapes, so the program receives plain shape constants. Every operator
type the importer lacks is collected first and reported together, each with the nodes that use it.
"""
import os

import numpy as np

from ..common import dtype as mstype
from ..core.parameter import Parameter
from ..core.primitive import AbstractTensor
from ..core.tensor import Tensor
from ..serialization.mindir_builder import Builder
from .kernels import UnsupportedOperator
from .lower import lower_graph, numpy_scope

_ELEM = {1: np.float32, 2: np.uint8, 3: np.int8, 5: np.int16, 6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16,
         11: np.float64}
_UNARY = {"Relu": "ReLU", "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt",
          "Neg": "Neg", "Abs": "Abs", "Erf": "Erf", "Reciprocal": "Reciprocal", "Floor": "Floor", "Ceil": "Ceil"}
_BINARY = {"Add": "Add", "Sub": "Sub", "Mul": "Mul", "Div": "RealDiv", "Pow": "Pow", "Max": "Maximum",
           "Min": "Minimum", "Equal": "Equal", "Greater": "Greater", "Less": "Less"}
_SHAPE_OPS = ("Constant", "Shape", "Gather", "Unsqueeze", "Squeeze", "Concat", "Cast", "Identity")


def load_onnx_program(path, input_shapes=None):
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError as exc:
        raise ImportError("converter: reading ONNX needs the 'onnx' package (pip install onnx).") from exc
    path = os.fspath(path)
    try:
        model = onnx.load(path)
    except Exception as exc:  # noqa: BLE001 - any parse failure is a bad model file
        raise ValueError(f"converter: {path} is not a readable ONNX model: {exc}") from None
    with numpy_scope():
        graph = _Importer(model, numpy_helper, input_shapes or {}, path).run()
        program = lower_graph(graph)
    program.meta.update(source=path, producer=model.producer_name or "onnx")
    return program


class _Importer:
    def __init__(self, model, numpy_helper, input_shapes, path):
        self.g = model.graph
        self.path = path
        self.b = Builder(self.g.name or "onnx")
        self.inits = {t.name: numpy_helper.to_array(t) for t in self.g.initializer}
        self.to_array = numpy_helper.to_array
        self.input_shapes = input_shapes
        self.env = {}
        self.params = {}

    def run(self):
        self.check_supported()
        for vi in self.g.input:
            if vi.name in self.inits:
                continue
            tt = vi.type.tensor_type
            dims = [d.dim_value if d.HasField("dim_value") else 1 for d in tt.shape.dim]
            shape = tuple(self.input_shapes.get(vi.name, dims))
            dtype = _ELEM.get(tt.elem_type)
            if dtype is None:
                raise ValueError(f"converter: input '{vi.name}' has an unsupported ONNX element type {tt.elem_type}.")
            self.env[vi.name] = self.b.input(vi.name, AbstractTensor(shape, mstype.nptype_to_dtype(np.dtype(dtype))))
        for node in self.g.node:
            self.b.scope, self.b.label = node.name or node.op_type, node.name
            try:
                outs = self.node(node)
            except (ValueError, TypeError, KeyError, IndexError) as exc:
                raise ValueError(f"converter: ONNX node '{node.name}' ({node.op_type}) in {self.path}: {exc}") from exc
            outs = outs if isinstance(outs, list) else [outs]
            for name, value in zip(node.output, outs):
                self.env[name] = value
        outputs = [self.tensor(self.value(o.name)) for o in self.g.output]
        return self.b.finish(outputs[0] if len(outputs) == 1 else tuple(outputs))

    def check_supported(self):
        known = set(_UNARY) | set(_BINARY) | set(_SHAPE_OPS) | set(_HANDLERS)
        bad = {}
        for node in self.g.node:
            if node.op_type not in known:
                bad.setdefault(node.op_type, []).append(node.name or "?")
        if bad:
            lines = "; ".join(f"{op} (node {', '.join(names[:3])})" for op, names in bad.items())
            raise UnsupportedOperator(f"converter: {self.path} uses unsupported ONNX operator(s): {lines}.")

    # ---- values -------------------------------------------------------------------------------------------
    def value(self, name):
        if name == "":
            return None
        if name in self.env:
            return self.env[name]
        if name in self.inits:
            return self.inits[name]
        raise KeyError(f"the value '{name}' is used before it is defined")

    def tensor(self, v):
        """An IR node for a value: an initializer becomes a named weight, other arrays constants."""
        if isinstance(v, np.ndarray):
            key = next((k for k, a in self.inits.items() if a is v), None)
            if key is not None and v.dtype.kind == "f":
                if key not in self.params:
                    self.params[key] = Parameter(Tensor(np.ascontiguousarray(v)), name=key)
                return self.b.weight(self.params[key])
            return self.b.const(np.ascontiguousarray(v))
        return v

    def shape_of(self, v):
        return tuple(v.shape) if isinstance(v, np.ndarray) else tuple(self.b.abstract(v).shape)

    def node(self, node):
        op = node.op_type
        attrs = {a.name: _attr(a, self.to_array) for a in node.attribute}
        ins = [self.value(n) for n in node.input]
        if op in _UNARY:
            return self.b.call(_UNARY[op], self.tensor(ins[0]))
        if op in _BINARY:
            if all(isinstance(v, np.ndarray) for v in ins):
                return _NUMPY_BINARY[op](ins[0], ins[1])
            return self.b.call(_BINARY[op], self.tensor(ins[0]), self.tensor(ins[1]))
        if op in _SHAPE_OPS:
            return self.shape_op(op, ins, attrs)
        return _HANDLERS[op](self, ins, attrs)

    def shape_op(self, op, ins, attrs):
        """Shape arithmetic on constants (and Concat/Identity/Cast of tensors)."""
        if op == "Constant":
            return np.asarray(attrs["value"])
        if op == "Shape":
            return np.asarray(self.shape_of(ins[0]), np.int64)
        if op == "Identity":
            return ins[0]
        consts = all(isinstance(v, np.ndarray) for v in ins if v is not None)
        if op == "Cast":
            to = np.dtype(_ELEM[attrs["to"]])
            if consts:
                return ins[0].astype(to)
            return self.b.call("Cast", ins[0], mstype.nptype_to_dtype(to))
        if op == "Gather" and consts:
            return np.take(ins[0], ins[1], axis=attrs.get("axis", 0))
        if op == "Unsqueeze" and consts:
            axes = attrs.get("axes", ins[1] if len(ins) > 1 else None)
            return np.expand_dims(ins[0], tuple(int(a) for a in np.atleast_1d(axes)))
        if op == "Squeeze" and consts:
            axes = attrs.get("axes", ins[1] if len(ins) > 1 else None)
            return np.squeeze(ins[0], None if axes is None else tuple(int(a) for a in np.atleast_1d(axes)))
        if op == "Concat":
            if consts:
                return np.concatenate(ins, axis=attrs["axis"])
            return self.b.call("Concat", tuple(self.tensor(v) for v in ins), axis=attrs["axis"])
        if op == "Gather":
            return self.b.call("Gather", self.tensor(ins[0]), self.tensor(ins[1]), attrs.get("axis", 0))
        if op == "Unsqueeze":
            axes = attrs.get("axes", ins[1] if len(ins) > 1 else None)
            shape = list(self.shape_of(ins[0]))
            for a in sorted(int(a) % (len(shape) + len(np.atleast_1d(axes))) for a in np.atleast_1d(axes)):
                shape.insert(a, 1)
            return self.b.call("Reshape", ins[0], tuple(shape))
        axes = attrs.get("axes", ins[1] if len(ins) > 1 else None)
        shape = self.shape_of(ins[0])
        drop = {int(a) % len(shape) for a in np.atleast_1d(axes)} if axes is not None else \
            {k for k, d in enumerate(shape) if d == 1}
        return self.b.call("Reshape", ins[0], tuple(d for k, d in enumerate(shape) if k not in drop))


def _attr(a, to_array):
    import onnx
    t = onnx.AttributeProto
    if a.type == t.INT:
        return a.i
    if a.type == t.FLOAT:
        return a.f
    if a.type == t.INTS:
        return list(a.ints)
    if a.type == t.FLOATS:
        return list(a.floats)
    if a.type == t.STRING:
        return a.s.decode("utf-8")
    if a.type == t.TENSOR:
        return to_array(a.t)
    return None


# ---- operators ------------------------------------------------------------------------------------------------
def _pads4(attrs, ndim=2):
    pads = attrs.get("pads", [0] * (2 * ndim))
    return (pads[0], pads[2], pads[1], pads[3])  # ONNX (top, left, bottom, right) → (top, bottom, left, right)


def _conv(im, ins, attrs):
    x, w = im.tensor(ins[0]), ins[1]
    wshape = im.shape_of(w)
    auto = attrs.get("auto_pad", "NOTSET")
    pad_mode = {"NOTSET": "pad", "VALID": "valid", "SAME_UPPER": "same"}.get(auto)
    if pad_mode is None:
        raise ValueError(f"auto_pad={auto} is not supported")
    y = im.b.call("Conv2D", x, im.tensor(w), out_channel=wshape[0], kernel_size=tuple(wshape[2:]), mode=1,
                  pad_mode=pad_mode, pad=_pads4(attrs) if pad_mode == "pad" else 0,
                  stride=tuple(attrs.get("strides", [1, 1])), dilation=tuple(attrs.get("dilations", [1, 1])),
                  group=attrs.get("group", 1))
    if len(ins) > 2 and ins[2] is not None:
        y = im.b.call("BiasAdd", y, im.tensor(ins[2]))
    return y


def _gemm(im, ins, attrs):
    a, w = im.tensor(ins[0]), im.tensor(ins[1])
    y = im.b.call("MatMul", a, w, transpose_a=bool(attrs.get("transA", 0)), transpose_b=bool(attrs.get("transB", 0)))
    if attrs.get("alpha", 1.0) != 1.0:
        y = im.b.call("Mul", y, float(attrs["alpha"]))
    if len(ins) > 2 and ins[2] is not None:
        c = ins[2]
        if attrs.get("beta", 1.0) != 1.0:
            beta = float(attrs["beta"])
            c = c * np.float32(beta) if isinstance(c, np.ndarray) else im.b.call("Mul", c, beta)
        y = im.b.call("Add", y, im.tensor(c))
    return y


def _matmul(im, ins, attrs):
    a, w = im.tensor(ins[0]), im.tensor(ins[1])
    two_d = len(im.shape_of(ins[0])) == 2 and len(im.shape_of(ins[1])) == 2
    return im.b.call("MatMul" if two_d else "BatchMatMul", a, w)


def _pool(kind):
    def convert(im, ins, attrs):
        x = im.tensor(ins[0])
        k = tuple(attrs["kernel_shape"])
        s = tuple(attrs.get("strides", [1, 1]))
        pads = _pads4(attrs)
        ceil = bool(attrs.get("ceil_mode", 0))
        if not any(pads) and not ceil and attrs.get("auto_pad", "NOTSET") in ("NOTSET", "VALID"):
            return im.b.call(kind, x, kernel_size=k, strides=s, pad_mode="valid")
        if kind == "AvgPool":
            raise ValueError("padded or ceil-mode AveragePool is not supported")
        if pads[0] != pads[1] or pads[2] != pads[3]:
            raise ValueError(f"asymmetric MaxPool pads {pads} are not supported")
        out = im.b.call("MaxPoolWithArgmaxV2", x, kernel_size=k, strides=s, pads=(pads[0], pads[2]),
                        ceil_mode=ceil)
        return im.b.get_item(out, 0)
    return convert


def _global_avg(im, ins, attrs):
    return im.b.call("ReduceMean", im.tensor(ins[0]), (2, 3), keep_dims=True)


def _flatten(im, ins, attrs):
    shape = im.shape_of(ins[0])
    axis = attrs.get("axis", 1) % max(len(shape), 1)
    return im.b.call("Reshape", im.tensor(ins[0]), (int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))))


def _reshape(im, ins, attrs):
    if not isinstance(ins[1], np.ndarray):
        raise ValueError("the target shape must be computable at conversion time")
    shape = im.shape_of(ins[0])
    target = [int(d) for d in ins[1]]
    target = [shape[k] if d == 0 and not attrs.get("allowzero") else d for k, d in enumerate(target)]
    if isinstance(ins[0], np.ndarray):
        return ins[0].reshape(target)
    return im.b.call("Reshape", im.tensor(ins[0]), tuple(target))


def _transpose(im, ins, attrs):
    perm = attrs.get("perm") or list(reversed(range(len(im.shape_of(ins[0])))))
    return im.b.call("Transpose", im.tensor(ins[0]), tuple(perm))


def _softmax(im, ins, attrs):
    return im.b.call("Softmax", im.tensor(ins[0]), axis=(attrs.get("axis", -1),))


def _batchnorm(im, ins, attrs):
    x, scale, bias, mean, var = (im.tensor(v) for v in ins[:5])
    out = im.b.call("BatchNorm", x, scale, bias, mean, var, is_training=False, epsilon=attrs.get("epsilon", 1e-5))
    return im.b.get_item(out, 0)


def _clip(im, ins, attrs):
    lo = ins[1] if len(ins) > 1 and ins[1] is not None else attrs.get("min")
    hi = ins[2] if len(ins) > 2 and ins[2] is not None else attrs.get("max")
    x = im.tensor(ins[0])
    if lo is not None and hi is not None and float(lo) == 0.0 and float(hi) == 6.0:
        return im.b.call("ReLU6", x)
    if lo is not None:
        x = im.b.call("Maximum", x, float(lo))
    if hi is not None:
        x = im.b.call("Minimum", x, float(hi))
    return x


def _leaky(im, ins, attrs):
    return im.b.call("LeakyReLU", im.tensor(ins[0]), alpha=attrs.get("alpha", 0.01))


def _dropout(im, ins, attrs):
    return ins[0]


_HANDLERS = {"Conv": _conv, "Gemm": _gemm, "MatMul": _matmul, "MaxPool": _pool("MaxPool"),
             "AveragePool": _pool("AvgPool"), "GlobalAveragePool": _global_avg, "Flatten": _flatten,
             "Reshape": _reshape, "Transpose": _transpose, "Softmax": _softmax, "BatchNormalization": _batchnorm,
             "Clip": _clip, "LeakyRelu": _leaky, "Dropout": _dropout}
_NUMPY_BINARY = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide, "Pow": np.power,
                 "Max": np.maximum, "Min": np.minimum, "Equal": np.equal, "Greater": np.greater, "Less": np.less}
