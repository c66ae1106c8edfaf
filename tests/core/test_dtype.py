"""dtypes (facts §1.3), implicit promotion (facts §3.3) and broadcasting of binary arithmetic, on both backends."""
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import openspore as ms
from openspore.common import dtype as mstype
from tests.device import use_backend

# ---- the promotion table, verbatim from facts §3.3 (row ⊕ column) --------------------------------------
ORDER = ["bool", "u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64"]
DT = {"bool": ms.bool_, "u8": ms.uint8, "i8": ms.int8, "i16": ms.int16, "i32": ms.int32, "i64": ms.int64,
      "f16": ms.float16, "f32": ms.float32, "f64": ms.float64}
TABLE_TEXT = """
 bool  bool   u8    i8   i16   i32   i64   f16   f32   f64
   u8    u8   u8   i16   i16   i32   i64   f16   f32   f64
   i8    i8  i16    i8   i16   i32   i64   f16   f32   f64
  i16   i16  i16   i16   i16   i32   i64   f16   f32   f64
  i32   i32  i32   i32   i32   i32   i64   f16   f32   f64
  i64   i64  i64   i64   i64   i64   i64   f16   f32   f64
  f16   f16  f16   f16   f16   f16   f16   f16   f32   f64
  f32   f32  f32   f32   f32   f32   f32   f32   f32   f64
  f64   f64  f64   f64   f64   f64   f64   f64   f64   f64
"""
TABLE = {}
for _line in TABLE_TEXT.strip().splitlines():
    _row, *_cells = _line.split()
    for _col, _cell in zip(ORDER, _cells):
        TABLE[(_row, _col)] = DT[_cell]
PAIRS = sorted(TABLE)

# Python scalar ⊕ tensor (weak scalars, facts §3.3): the result dtype for each tensor dtype.
WEAK_INT = {**{k: DT[k] for k in ORDER}, "bool": ms.int64}
WEAK_FLOAT = {k: (DT[k] if k.startswith("f") else ms.float32) for k in ORDER}
WEAK_BOOL = {k: DT[k] for k in ORDER}


def ones(key, shape=(2,)):
    return ms.Tensor(np.ones(shape, DT[key].np_dtype))


def rand_tensor(key, shape, rng):
    np_dtype = DT[key].np_dtype
    if key == "bool":
        arr = rng.integers(0, 2, shape).astype(np.bool_)
    elif key.startswith("f"):
        arr = rng.uniform(-4, 4, shape).astype(np_dtype)
    else:
        info = np.iinfo(np_dtype)
        arr = rng.integers(max(info.min, -20), min(info.max, 20), shape).astype(np_dtype)
    return arr


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}+{b}" for a, b in PAIRS])
def test_tensor_tensor_promotion_table(backend, a, b):
    out = ones(a) + ones(b)
    assert out.dtype is TABLE[(a, b)]
    assert out.asnumpy().dtype == TABLE[(a, b)].np_dtype


def test_the_table_is_symmetric():
    assert all(TABLE[(a, b)] is TABLE[(b, a)] for a, b in PAIRS)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=st.sampled_from(ORDER), b=st.sampled_from(ORDER), op=st.sampled_from(["add", "mul", "sub"]),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       seed=st.integers(0, 2 ** 16), backend_name=st.sampled_from(["numpy", "torch"]))
def test_promoted_values_match_numpy_in_the_result_dtype(a, b, op, shapes, seed, backend_name):
    if op == "sub" and "bool" in (a, b) and TABLE[(a, b)] is ms.bool_:
        return  # Sub has no boolean kernel (as in MindSpore)
    use_backend(backend_name)
    rng = np.random.default_rng(seed)
    x, y = rand_tensor(a, shapes.input_shapes[0], rng), rand_tensor(b, shapes.input_shapes[1], rng)
    out = {"add": lambda p, q: p + q, "mul": lambda p, q: p * q, "sub": lambda p, q: p - q}[op](ms.Tensor(x), ms.Tensor(y))
    want_dtype = TABLE[(a, b)]
    assert out.dtype is want_dtype
    assert out.shape == shapes.result_shape
    np_op = {"add": np.add, "mul": np.multiply, "sub": np.subtract}[op]
    expected = np_op(x.astype(want_dtype.np_dtype), y.astype(want_dtype.np_dtype))
    if want_dtype.kind == "float":
        np.testing.assert_allclose(out.asnumpy(), expected, rtol=2e-3 if want_dtype is ms.float16 else 1e-6)
    else:
        np.testing.assert_array_equal(out.asnumpy(), expected)


@pytest.mark.parametrize("key", ORDER)
@pytest.mark.parametrize("scalar,table", [(3, WEAK_INT), (2.5, WEAK_FLOAT), (True, WEAK_BOOL)],
                         ids=["int", "float", "bool"])
def test_python_scalars_are_weak(backend, key, scalar, table):
    t = ones(key)
    for out in (t + scalar, scalar + t, t * scalar):
        assert out.dtype is table[key], f"{DT[key]} with {type(scalar).__name__}"
    assert (t + scalar).asnumpy().dtype == table[key].np_dtype


def test_weak_scalar_values(backend):
    assert (ones("u8") + 3).asnumpy().tolist() == [4, 4]
    assert (ones("f16") + 2.5).asnumpy().tolist() == [3.5, 3.5]
    assert (ones("i32") + 2.5).asnumpy().tolist() == [3.5, 3.5]
    assert (ones("bool") + 2).asnumpy().tolist() == [3, 3]


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"0d-{a}+{b}" for a, b in PAIRS])
def test_zero_dim_tensors_are_not_weak(a, b):
    scalar_tensor = ms.Tensor(np.array(1, DT[a].np_dtype))
    assert (scalar_tensor + ones(b)).dtype is TABLE[(a, b)]
    assert (ones(b) + scalar_tensor).dtype is TABLE[(a, b)]


def test_zero_dim_examples_from_the_facts():
    assert (ms.Tensor(np.float64(1)) + ones("f32")).dtype is ms.float64
    assert (ms.Tensor(np.int64(1)) + ones("i8")).dtype is ms.int64


@pytest.mark.parametrize("other,expected", [(ms.float16, ms.float32), (ms.float32, ms.float32),
                                            (ms.float64, ms.float64), (ms.bfloat16, ms.bfloat16),
                                            (ms.int32, ms.bfloat16), (ms.bool_, ms.bfloat16)])
def test_bfloat16_promotion(backend, other, expected):
    bf = ms.Tensor(np.ones(2, np.float32), ms.bfloat16)
    o = ms.Tensor(np.ones(2, np.float32), other)
    assert (bf + o).dtype is expected
    assert (o + bf).dtype is expected
    assert (bf + o).asnumpy().astype(np.float32).tolist() == [2.0, 2.0]


# ---- broadcasting ---------------------------------------------------------------------------------------
OPS = {"Add": (lambda a, b: a + b, np.add), "Mul": (lambda a, b: a * b, np.multiply),
       "Sub": (lambda a, b: a - b, np.subtract)}


@settings(max_examples=60, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4),
       name=st.sampled_from(sorted(OPS)), backend_name=st.sampled_from(["numpy", "torch"]), seed=st.integers(0, 999))
def test_broadcasting_matches_numpy(shapes, name, backend_name, seed):
    use_backend(backend_name)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shapes.input_shapes[0]).astype(np.float32)
    b = rng.standard_normal(shapes.input_shapes[1]).astype(np.float32)
    ours, ref = OPS[name]
    out = ours(ms.Tensor(a), ms.Tensor(b))
    assert out.shape == shapes.result_shape == np.broadcast_shapes(a.shape, b.shape)
    np.testing.assert_allclose(out.asnumpy(), ref(a, b), rtol=1e-6)
    prim = getattr(ms.ops, name)()  # the Primitive class gives the same result
    np.testing.assert_allclose(prim(ms.Tensor(a), ms.Tensor(b)).asnumpy(), ref(a, b), rtol=1e-6)


@st.composite
def incompatible_shapes(draw):
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    axis = draw(st.integers(0, len(shape) - 1))
    other = list(shape)
    sizes = [s for s in range(2, 6) if s != shape[axis]]
    if shape[axis] == 1:
        shape[axis] = draw(st.sampled_from([2, 3]))
        sizes = [s for s in range(2, 6) if s != shape[axis]]
    other[axis] = draw(st.sampled_from(sizes))
    drop = draw(st.integers(0, axis))  # the shorter shape may also lose leading dims
    return tuple(shape), tuple(other[drop:])


@settings(max_examples=40, deadline=None)
@given(shapes=incompatible_shapes(), name=st.sampled_from(sorted(OPS)), backend_name=st.sampled_from(["numpy", "torch"]))
def test_incompatible_shapes_raise_a_value_error_naming_op_and_shapes(shapes, name, backend_name):
    use_backend(backend_name)
    sa, sb = shapes
    with pytest.raises(ValueError) as info:
        OPS[name][0](ms.Tensor(np.ones(sa, np.float32)), ms.Tensor(np.ones(sb, np.float32)))
    msg = str(info.value)
    assert f"'{name}'" in msg
    assert str(list(sa)) in msg and str(list(sb)) in msg


# ---- names, reprs, aliases, converters (facts §1.3) ---------------------------------------------------
NAMES = [("bool_", "Bool", "bool_"), ("int8", "Int8", "int8"), ("int16", "Int16", "int16"), ("int32", "Int32", "int32"),
         ("int64", "Int64", "int64"), ("uint8", "UInt8", "uint8"), ("uint16", "UInt16", "uint16"),
         ("uint32", "UInt32", "uint32"), ("uint64", "UInt64", "uint64"), ("float16", "Float16", "float16"),
         ("float32", "Float32", "float32"), ("float64", "Float64", "float64"), ("bfloat16", "BFloat16", "bfloat16"),
         ("complex64", "Complex64", "complex64"), ("complex128", "Complex128", "complex128"),
         ("int_", "Int", "int"), ("float_", "Float", "float"), ("uint", "UInt", "uint"),
         ("string", "String", "string_"), ("tensor_type", "TensorType", "tensor"), ("list_", "List", "list_"),
         ("tuple_", "Tuple", "tuple_"), ("type_none", "TypeNone", "type_none"), ("number", "Number", "number"),
         ("float8_e4m3fn", "Float8_e4m3fn", "float8_e4m3fn"), ("float8_e5m2", "Float8_e5m2", "float8_e5m2"),
         ("hifloat8", "HiFloat8", "hifloat8"), ("qint4x2", "QInt4x2", "qint4x2")]


@pytest.mark.parametrize("attr,text,rep", NAMES, ids=[n[0] for n in NAMES])
def test_names_and_reprs(attr, text, rep):
    t = getattr(ms, attr)
    assert t is getattr(mstype, attr)
    assert str(t) == text
    assert repr(t) == f"mindspore.{rep}"
    assert isinstance(t, ms.dtype.Type)
    assert pickle.loads(pickle.dumps(t)) is t


ALIASES = {"half": "float16", "single": "float32", "double": "float64", "short": "int16", "intc": "int32",
           "intp": "int64", "long": "int64", "byte": "int8", "ubyte": "uint8", "ushort": "uint16",
           "uintc": "uint32", "uintp": "uint64", "cfloat": "complex64", "cdouble": "complex128",
           "bool": "bool_", "int": "int32", "float": "float32"}


@pytest.mark.parametrize("alias,target", sorted(ALIASES.items()))
def test_aliases(alias, target):
    assert getattr(ms, alias) is getattr(ms, target)
    assert getattr(mstype, alias) is getattr(ms, target)


def test_width_less_types_are_not_tensor_dtypes():
    assert ms.int_ is not ms.int32 and ms.float_ is not ms.float32
    for t in (ms.int_, ms.float_, ms.uint, ms.number, ms.string, ms.float8_e4m3fn):
        with pytest.raises(TypeError, match="not a tensor dtype"):
            ms.Tensor([1.0], t)


def test_tensor_dtype_compares_and_is_a_type():
    t = ms.Tensor([1.0, 2.0])
    assert t.dtype == ms.float32 and t.dtype != ms.float64
    assert isinstance(t.dtype, ms.dtype.Type)
    assert ms.dtype.Type is mstype.Type


def test_star_import_does_not_leak_helpers():
    import openspore
    assert not hasattr(openspore, "np")
    ns = {}
    exec("from openspore.common.dtype import *", ns)
    assert "float32" in ns and "dtype_to_nptype" in ns
    assert "int" not in ns and "float" not in ns and "bool" not in ns  # builtins stay intact


@pytest.mark.parametrize("dtype,np_type", [(ms.float32, np.float32), (ms.float16, np.float16), (ms.float64, np.float64),
                                           (ms.int8, np.int8), (ms.int64, np.int64), (ms.uint8, np.uint8),
                                           (ms.bool_, np.bool_), (ms.complex64, np.complex64)])
def test_dtype_to_nptype(dtype, np_type):
    assert ms.dtype_to_nptype(dtype) is np_type
    assert ms.pytype_to_dtype(np_type) is dtype
    assert ms.pytype_to_dtype(np.dtype(np_type)) is dtype


def test_dtype_to_nptype_bfloat16_and_errors():
    import ml_dtypes
    assert ms.dtype_to_nptype(ms.bfloat16) is ml_dtypes.bfloat16
    with pytest.raises(TypeError):
        ms.dtype_to_nptype(ms.string)
    with pytest.raises(TypeError):
        ms.dtype_to_nptype("float32")


@pytest.mark.parametrize("py,expected", [(bool, ms.bool_), (int, ms.int64), (float, ms.float64), (complex, ms.complex128),
                                         (list, ms.list_), (tuple, ms.tuple_), (str, ms.string), (type(None), ms.type_none)])
def test_pytype_to_dtype(py, expected):
    assert ms.pytype_to_dtype(py) is expected


def test_pytype_to_dtype_errors_and_identity():
    assert ms.pytype_to_dtype(ms.float16) is ms.float16
    with pytest.raises(TypeError, match="python type object"):
        ms.pytype_to_dtype(3)
    with pytest.raises(NotImplementedError, match="cannot be converted to MindSpore type"):
        ms.pytype_to_dtype(dict)  # MindSpore 2.10's error type for a type without a dtype


def test_dtype_to_pytype_and_get_py_obj_dtype():
    assert ms.dtype_to_pytype(ms.float16) is float
    assert ms.dtype_to_pytype(ms.int8) is int and ms.dtype_to_pytype(ms.uint32) is int
    assert ms.dtype_to_pytype(ms.bool_) is bool
    assert ms.get_py_obj_dtype(ms.Tensor([1], ms.int16)) is ms.int16
    assert ms.get_py_obj_dtype(1) is ms.int64 and ms.get_py_obj_dtype(1.0) is ms.float64
    assert ms.get_py_obj_dtype(True) is ms.bool_


def test_itemsize_and_kind():
    assert [t.itemsize for t in (ms.bool_, ms.int16, ms.float32, ms.float64, ms.bfloat16, ms.complex128)] == [1, 2, 4, 8, 2, 16]
    assert ms.float16.is_floating_point and not ms.int8.is_floating_point
    assert ms.complex64.is_complex


def test_dtype_kind_classes_and_quant_dtype():
    import openspore as ms
    assert isinstance(ms.int64, ms.Int) and not isinstance(ms.uint8, ms.Int) and ms.Int(8) is ms.int8
    assert ms.Int() is ms.int_
    assert ms.TensorType(ms.int32) == ms.TensorType(ms.int32) != ms.TensorType(ms.float32)
    assert isinstance(ms.tensor_type, ms.TensorType) and not isinstance(ms.float32, ms.TensorType)
    assert [q.value for q in (ms.QuantDtype.INT1, ms.QuantDtype.INT16, ms.QuantDtype.UINT1)] == [0, 15, 100]
    assert ms.common.dtype.QuantDtype is ms.QuantDtype
