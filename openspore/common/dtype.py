"""MindSpore dtypes and promotion rules (facts §1.3, §3.3).

A dtype is a singleton `Type`; `str(float32) == 'Float32'`. Backends map these to their own array
dtypes; numpy's bfloat16 comes from ml_dtypes.
"""
import numpy as np

try:  # numpy has no bfloat16; ml_dtypes provides the standard one
    from ml_dtypes import bfloat16 as _np_bfloat16
except ImportError:  # pragma: no cover - ml_dtypes is a declared dependency
    _np_bfloat16 = None


class Type:
    """A MindSpore dtype. Compare with `==`; kinds: 'bool', 'uint', 'int', 'float', 'complex' or a non-tensor kind."""

    __slots__ = ("name", "kind", "bits", "np_dtype", "_repr")

    def __init__(self, name, kind, bits, np_dtype, repr_name):
        self.name, self.kind, self.bits, self.np_dtype, self._repr = name, kind, bits, np_dtype, repr_name

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"mindspore.{self._repr}"

    def __reduce__(self):  # pickle as the singleton
        return (_lookup, (self._repr,))

    @property
    def is_floating_point(self):
        return self.kind == "float"

    @property
    def is_complex(self):
        return self.kind == "complex"

    @property
    def itemsize(self):
        return max(self.bits // 8, 1)


_BY_REPR = {}


def _lookup(repr_name):
    return _BY_REPR[repr_name]


def _make(name, kind, bits, np_dtype, repr_name):
    t = Type(name, kind, bits, np_dtype, repr_name)
    _BY_REPR[repr_name] = t
    return t


bool_ = _make("Bool", "bool", 8, np.dtype(np.bool_), "bool_")
int8 = _make("Int8", "int", 8, np.dtype(np.int8), "int8")
int16 = _make("Int16", "int", 16, np.dtype(np.int16), "int16")
int32 = _make("Int32", "int", 32, np.dtype(np.int32), "int32")
int64 = _make("Int64", "int", 64, np.dtype(np.int64), "int64")
uint8 = _make("UInt8", "uint", 8, np.dtype(np.uint8), "uint8")
uint16 = _make("UInt16", "uint", 16, np.dtype(np.uint16), "uint16")
uint32 = _make("UInt32", "uint", 32, np.dtype(np.uint32), "uint32")
uint64 = _make("UInt64", "uint", 64, np.dtype(np.uint64), "uint64")
float16 = _make("Float16", "float", 16, np.dtype(np.float16), "float16")
float32 = _make("Float32", "float", 32, np.dtype(np.float32), "float32")
float64 = _make("Float64", "float", 64, np.dtype(np.float64), "float64")
bfloat16 = _make("BFloat16", "float", 16, np.dtype(_np_bfloat16) if _np_bfloat16 else None, "bfloat16")
complex64 = _make("Complex64", "complex", 64, np.dtype(np.complex64), "complex64")
complex128 = _make("Complex128", "complex", 128, np.dtype(np.complex128), "complex128")
# Width-less and non-tensor types (facts §1.3).
int_ = _make("Int", "generic", 0, None, "int")
float_ = _make("Float", "generic", 0, None, "float")
uint = _make("UInt", "generic", 0, None, "uint")
number = _make("Number", "generic", 0, None, "number")
string = _make("String", "object", 0, None, "string_")
type_none = _make("TypeNone", "object", 0, None, "type_none")
tensor_type = _make("TensorType", "object", 0, None, "tensor")
list_ = _make("List", "object", 0, None, "list_")
tuple_ = _make("Tuple", "object", 0, None, "tuple_")
# Exported by MindSpore for Ascend formats; named here so scripts import, but no backend stores them.
float8_e4m3fn = _make("Float8_e4m3fn", "float", 8, None, "float8_e4m3fn")
float8_e5m2 = _make("Float8_e5m2", "float", 8, None, "float8_e5m2")
hifloat8 = _make("HiFloat8", "float", 8, None, "hifloat8")
qint4x2 = _make("QInt4x2", "int", 8, None, "qint4x2")

# Aliases (facts §1.3): ms.int is int32 and ms.float is float32.
bool = bool_  # noqa: A001 - MindSpore exports this name
int = int32  # noqa: A001
float = float32  # noqa: A001
half, single, double = float16, float32, float64
short, intc, intp, long = int16, int32, int64, int64
byte, ubyte, ushort, uintc, uintp = int8, uint8, uint16, uint32, uint64
cfloat, cdouble = complex64, complex128

TENSOR_DTYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                 float16, float32, float64, bfloat16, complex64, complex128)
FLOAT_DTYPES = (float16, float32, float64, bfloat16)
INT_DTYPES = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
_BY_NAME = {t.name: t for t in TENSOR_DTYPES}
_BY_NP = {t.np_dtype: t for t in TENSOR_DTYPES if t.np_dtype is not None}

__all__ = [
    "Type", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "bfloat16", "complex64", "complex128",
    "float8_e4m3fn", "float8_e5m2", "hifloat8", "qint4x2",
    "int_", "float_", "uint", "number", "string", "type_none", "tensor_type", "list_", "tuple_",
    "half", "single", "double", "short", "intc", "intp", "long", "byte", "ubyte", "ushort", "uintc", "uintp",
    "cfloat", "cdouble", "dtype_to_nptype", "dtype_to_pytype", "pytype_to_dtype", "get_py_obj_dtype",
]  # `bool`, `int`, `float` are exported explicitly by openspore/__init__ (star-importing them would shadow builtins)

mstype = None  # replaced below by this module so `from openspore.common.dtype import mstype` style works


def from_name(name):
    """'Float32' → float32 (checkpoint tensor_type strings)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"Unknown dtype name {name!r}; expected one of {sorted(_BY_NAME)}") from None


def dtype_to_nptype(type_):
    """MindSpore dtype → numpy dtype class."""
    if not isinstance(type_, Type) or type_.np_dtype is None:
        raise TypeError(f"For 'dtype_to_nptype', the argument must be a tensor dtype, but got {type_!r}.")
    return type_.np_dtype.type


def nptype_to_dtype(np_type):
    try:
        return _BY_NP[np.dtype(np_type)]
    except (KeyError, TypeError):
        raise TypeError(f"The numpy dtype {np_type!r} has no MindSpore counterpart.") from None


def dtype_to_pytype(type_):
    import builtins
    containers = {id(list_): builtins.list, id(tuple_): builtins.tuple, id(string): builtins.str,
                  id(type_none): type(None)}
    if id(type_) in containers:
        return containers[id(type_)]
    return {"bool": builtins.bool, "int": builtins.int, "uint": builtins.int,
            "float": builtins.float, "complex": complex}.get(type_.kind, type(None))


def pytype_to_dtype(obj):
    """Python type / numpy type or dtype / Type → Type (MindSpore's `pytype_to_dtype`): int → Int64,
    float → Float64, bool → Bool, list → List, tuple → Tuple, str → String, NoneType → TypeNone."""
    import builtins
    if isinstance(obj, Type):
        return obj
    if isinstance(obj, np.dtype):
        return nptype_to_dtype(obj)
    if not isinstance(obj, type):
        raise TypeError(f"For 'pytype_to_dtype', the argument 'obj' must be a python type object, such as int, "
                        f"float or str, but got {type(obj).__name__}.")
    simple = {builtins.bool: bool_, builtins.int: int64, builtins.float: float64, complex: complex128,
              builtins.list: list_, builtins.tuple: tuple_, builtins.str: string, type(None): type_none}
    if obj in simple:
        return simple[obj]
    try:
        return nptype_to_dtype(obj)
    except TypeError:
        # MindSpore's wording and error type for a type it has no dtype for
        raise NotImplementedError(f"The python type {obj} cannot be converted to MindSpore type.") from None


def get_py_obj_dtype(obj):
    """The dtype of a Python object or of a Python type (`get_py_obj_dtype(1.5)` and `(float)` are Float64)."""
    if hasattr(obj, "dtype") and isinstance(obj.dtype, Type):
        return obj.dtype
    return pytype_to_dtype(obj if isinstance(obj, type) else type(obj))


def to_dtype(value, where="dtype"):
    """Accept a Type, numpy dtype, Python type or name string; return a tensor Type."""
    import builtins
    if isinstance(value, Type):
        if value.np_dtype is None and value is not bfloat16:
            raise TypeError(f"For '{where}', {value!r} is not a tensor dtype.")
        return value
    if isinstance(value, str):
        lowered = {t._repr: t for t in TENSOR_DTYPES}
        if value in _BY_NAME:
            return _BY_NAME[value]
        if value in lowered:
            return lowered[value]
        if value == "bool":
            return bool_
    if value is builtins.float:
        return float32
    if value is builtins.int:
        return int64
    if value is builtins.bool:
        return bool_
    try:
        return nptype_to_dtype(value)
    except TypeError:
        raise TypeError(f"For '{where}', expected a dtype such as mindspore.float32, but got {value!r}.") from None


# ---- promotion (facts §3.3) -------------------------------------------------------------------
_INT_ORDER = {bool_: 0, uint8: 1, int8: 1, int16: 2, int32: 3, int64: 4}


def _promote_ints(a, b):
    if a is b:
        return a
    if {a, b} == {uint8, int8}:
        return int16
    if a.kind == "uint" and b.kind == "uint":
        return a if a.bits >= b.bits else b
    # mixing an unsigned wider than int8 with signed: take the wider signed type (u16/u32/u64 rarely seen)
    ra = _INT_ORDER.get(a, {16: 2, 32: 3, 64: 4}.get(a.bits, 4))
    rb = _INT_ORDER.get(b, {16: 2, 32: 3, 64: 4}.get(b.bits, 4))
    if a.kind == "uint" and b.kind == "uint":
        return a if ra >= rb else b
    if a.kind == "uint" and b.kind in ("int", "bool"):
        a = {8: int16, 16: int32, 32: int64, 64: int64}[a.bits] if b.kind == "int" else a
    if b.kind == "uint" and a.kind in ("int", "bool"):
        b = {8: int16, 16: int32, 32: int64, 64: int64}[b.bits] if a.kind == "int" else b
    if a.kind == "bool":
        return b
    if b.kind == "bool":
        return a
    return a if a.bits >= b.bits else b


def _promote_floats(a, b):
    if a is b:
        return a
    if {a, b} == {bfloat16, float16}:
        return float32
    return a if a.bits > b.bits else b


def promote_types(a, b):
    """Result dtype of a binary op between two tensors (neither weak)."""
    if a is b:
        return a
    ka, kb = a.kind, b.kind
    if ka == "complex" or kb == "complex":
        if ka == "complex" and kb == "complex":
            return a if a.bits >= b.bits else b
        c = a if ka == "complex" else b
        other = b if ka == "complex" else a
        return complex128 if other is float64 else c
    if ka == "float" and kb == "float":
        return _promote_floats(a, b)
    if ka == "float":
        return a
    if kb == "float":
        return b
    return _promote_ints(a, b)


def weak_scalar_kind(value):
    """Python scalars are weak operands: only their kind matters."""
    import builtins
    if isinstance(value, builtins.bool):
        return "bool"
    if isinstance(value, builtins.int):
        return "int"
    if isinstance(value, builtins.float):
        return "float"
    if isinstance(value, complex):
        return "complex"
    return None


def promote_with_scalar(tensor_dtype, scalar_kind):
    """tensor ⊕ Python scalar (facts §3.3)."""
    k = tensor_dtype.kind
    if scalar_kind == "bool":
        return tensor_dtype
    if scalar_kind == "int":
        return int64 if k == "bool" else tensor_dtype
    if scalar_kind == "float":
        return tensor_dtype if k in ("float", "complex") else float32
    if scalar_kind == "complex":
        return tensor_dtype if k == "complex" else (complex128 if tensor_dtype is float64 else complex64)
    raise TypeError(f"unsupported scalar kind {scalar_kind!r}")


def result_type(*operands):
    """Promote a mix of dtypes (strong) and Python scalars (weak)."""
    strong = [o for o in operands if isinstance(o, Type)]
    weak = [weak_scalar_kind(o) for o in operands if not isinstance(o, Type)]
    if strong:
        out = strong[0]
        for t in strong[1:]:
            out = promote_types(out, t)
    else:  # all Python scalars: MindSpore makes int64 / float32 / bool tensors of them
        order = ["bool", "int", "float", "complex"]
        top = max(weak, key=order.index)
        return {"bool": bool_, "int": int64, "float": float32, "complex": complex64}[top]
    order = ["bool", "int", "float", "complex"]
    for w in weak:
        if w is not None:
            out = promote_with_scalar(out, w)
    return out


import sys as _sys  # noqa: E402

mstype = _sys.modules[__name__]

from .dtype_kinds import Int, TensorType, QuantDtype  # noqa: E402,F401  (the dtype classes, built on the above)
__all__ += ["Int", "TensorType", "QuantDtype"]
