"""Tensor construction, properties, conversions, printing, hashing, pickling and lazy init (facts §1.4)."""
import copy
import pickle

import ml_dtypes
import numpy as np
import pytest

import openspore as ms
from openspore.common.initializer import Constant, One, Zero, initializer

from ..conftest import assert_close


# ---- construction: dtype inference -------------------------------------------------------------------------
@pytest.mark.parametrize("data,dtype", [(1, ms.int64), (1.0, ms.float32), (True, ms.bool_), ([1, 2], ms.int64),
                                        ([1.0, 2.0], ms.float32), ([1, 2.5], ms.float32), ((1, 2), ms.int64),
                                        ([[True], [False]], ms.bool_), (1 + 2j, ms.complex64),
                                        ([np.float64(1.0), 2.0], ms.float64)],
                         ids=["int", "float", "bool", "int-list", "float-list", "mixed-list", "tuple", "bool-list",
                              "complex", "list-with-np-float64"])
def test_python_data_dtype_inference(backend, data, dtype):
    t = ms.Tensor(data)
    assert t.dtype is dtype
    assert t.asnumpy().dtype == dtype.np_dtype
    assert t.shape == np.shape(data)


@pytest.mark.parametrize("np_dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.float16, np.float32,
                                      np.float64, np.bool_, np.complex64])
def test_numpy_arrays_keep_their_dtype(backend, np_dtype):
    arr = np.arange(6).reshape(2, 3).astype(np_dtype)
    t = ms.Tensor(arr)
    assert t.dtype is ms.pytype_to_dtype(np_dtype)
    out = t.asnumpy()
    assert out.dtype == np_dtype and out.shape == (2, 3)
    np.testing.assert_array_equal(out, arr)


def test_numpy_scalars_keep_their_dtype():
    assert ms.Tensor(np.float64(1.5)).dtype is ms.float64
    assert ms.Tensor(np.int8(3)).dtype is ms.int8
    assert ms.Tensor(np.float64(1.5)).shape == ()


@pytest.mark.parametrize("dtype_arg", [ms.float16, np.float16, "float16", "Float16"])
def test_dtype_argument_converts(backend, dtype_arg):
    t = ms.Tensor([1, 2], dtype_arg)
    assert t.dtype is ms.float16
    assert t.asnumpy().tolist() == [1.0, 2.0]


def test_python_type_as_dtype():
    assert ms.Tensor([1, 2], float).dtype is ms.float32
    assert ms.Tensor([1.7, 2.2], int).dtype is ms.int64
    assert ms.Tensor([1, 0], bool).dtype is ms.bool_


def test_tensor_from_tensor(backend):
    a = ms.Tensor([1.5, 2.5])
    b = ms.Tensor(a)
    assert b.dtype is ms.float32 and b.asnumpy().tolist() == [1.5, 2.5]
    c = ms.Tensor(a, ms.int32)
    assert c.dtype is ms.int32 and c.asnumpy().tolist() == [1, 2]


def test_construction_copies_the_numpy_array(backend):
    arr = np.array([1.0, 2.0], np.float32)
    t = ms.Tensor(arr)
    arr[0] = 100.0
    assert t.asnumpy().tolist() == [1.0, 2.0]


def test_from_numpy_shares_memory(backend):
    if ms.get_context("device_target") == "GPU":
        pytest.skip("memory is shared with numpy on the CPU only; on the GPU from_numpy copies to the device")
    arr = np.array([1.0, 2.0], np.float32)
    t = ms.from_numpy(arr)
    arr[0] = 100.0
    assert t.asnumpy().tolist() == [100.0, 2.0]
    assert ms.Tensor.from_numpy(arr).dtype is ms.float32


def test_construction_from_a_torch_tensor_copies(backend):
    torch = pytest.importorskip("torch")
    src = torch.tensor([1.0, 2.0])
    t = ms.Tensor(src)
    src[0] = 9.0
    assert t.dtype is ms.float32 and t.asnumpy().tolist() == [1.0, 2.0]
    assert ms.Tensor(torch.tensor([1, 2]), ms.float64).dtype is ms.float64


def test_lowercase_tensor_function():
    t = ms.tensor([1, 2], ms.float32)
    assert type(t) is ms.Tensor and t.dtype is ms.float32


def test_placeholder_with_shape_and_dtype():
    t = ms.Tensor(shape=(2, 3), dtype=ms.float32)
    assert t.shape == (2, 3) and t.dtype is ms.float32
    with pytest.raises(TypeError):
        ms.Tensor()


def test_construction_errors():
    with pytest.raises(ValueError, match="rectangular"):
        ms.Tensor([[1, 2], [3]])
    with pytest.raises(TypeError, match="input_data"):
        ms.Tensor({"a": 1})
    with pytest.raises(TypeError):
        ms.Tensor("text")
    with pytest.raises(ValueError, match="shape"):
        ms.Tensor([1, 2, 3], shape=(2,))
    with pytest.raises(TypeError, match="dtype"):
        ms.Tensor([1, 2], "float31")


# ---- properties -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,np_dtype", [((2, 2), np.float32), ((2, 3, 4), np.int16), ((), np.float64),
                                            ((5,), np.bool_), ((3, 0), np.float32), ((1, 2, 1), np.complex128)])
def test_shape_properties(backend, shape, np_dtype):
    arr = np.zeros(shape, np_dtype)
    t = ms.Tensor(arr)
    assert t.shape == shape and isinstance(t.shape, tuple)
    assert t.ndim == arr.ndim
    assert t.size == arr.size
    assert t.itemsize == arr.itemsize
    assert t.nbytes == arr.nbytes
    expected = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) * arr.itemsize for i in range(len(shape)))
    assert t.strides == expected  # C-contiguous byte strides
    if arr.size:
        assert t.strides == arr.strides


def test_strides_example_from_the_facts():
    assert ms.Tensor(np.ones((2, 2), np.float32)).strides == (8, 4)


def test_bfloat16_properties(backend):
    t = ms.Tensor(np.array([1.5, -2.0], np.float32), ms.bfloat16)
    assert t.itemsize == 2 and t.nbytes == 4
    assert t.asnumpy().dtype == ml_dtypes.bfloat16
    assert t.tolist() == [1.5, -2.0]
    assert ms.Tensor(np.array([2.5], np.float32), ms.bfloat16).item() == 2.5


# ---- conversion -----------------------------------------------------------------------------------------
def test_asnumpy_numpy_item_tolist(backend):
    t = ms.Tensor(np.array([[1, 2], [3, 4]], np.int32))
    assert isinstance(t.asnumpy(), np.ndarray)
    np.testing.assert_array_equal(t.numpy(), t.asnumpy())
    assert t.tolist() == [[1, 2], [3, 4]]
    assert t.item(3) == 4
    assert ms.Tensor([7.5]).item() == 7.5
    assert isinstance(ms.Tensor(3).item(), int)
    with pytest.raises(ValueError):
        t.item()


def test_numpy_array_protocol(backend):
    t = ms.Tensor(np.array([[1.0, 2.0]], np.float32))
    arr = np.array(t)
    assert isinstance(arr, np.ndarray) and arr.dtype == np.float32
    np.testing.assert_array_equal(arr, [[1.0, 2.0]])
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


@pytest.mark.parametrize("value", [ms.Tensor([3.7]), ms.Tensor([[3.7]]), ms.Tensor(3.7)])
def test_scalar_conversions_of_one_element(value):
    assert float(value) == pytest.approx(3.7)
    assert int(value) == 3
    assert bool(value) is True


def test_scalar_conversion_needs_exactly_one_element():
    t = ms.Tensor([1.0, 2.0])
    for convert in (bool, int, float):
        with pytest.raises(ValueError, match="Only one element tensors can be converted to Python scalars"):
            convert(t)
    assert bool(ms.Tensor([0])) is False


def test_index_protocol():
    assert [10, 20, 30][ms.Tensor(1)] == 20
    assert list(range(10))[ms.Tensor(np.int32(2)):ms.Tensor(4)] == [2, 3]
    # MindSpore 2.10: a ValueError for float and for multi-element tensors alike
    with pytest.raises(ValueError, match="Only integer tensors of a single element"):
        [10, 20][ms.Tensor(1.0)]
    with pytest.raises(ValueError, match="Only integer tensors of a single element"):
        [10, 20][ms.Tensor([0, 1])]


def test_len():
    assert len(ms.Tensor(np.zeros((4, 2)))) == 4
    with pytest.raises(TypeError):
        len(ms.Tensor(1.0))


@pytest.mark.skipif(not hasattr(ms.Tensor, "__getitem__"), reason="Tensor indexing is installed by the array family")
def test_iteration_yields_sub_tensors():
    rows = list(ms.Tensor(np.array([[1, 2], [3, 4], [5, 6]], np.int32)))
    assert len(rows) == 3 and all(type(r) is ms.Tensor for r in rows)
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4], [5, 6]]
    assert rows[0].dtype is ms.int32


def test_zero_dim_tensor_is_not_iterable():
    with pytest.raises(TypeError):
        iter(ms.Tensor(1.0)).__next__()


def test_hash_is_identity():
    a, b = ms.Tensor([1.0]), ms.Tensor([1.0])
    assert hash(a) == id(a) and hash(a) != hash(b)
    table = {a: "a", b: "b"}
    assert table[a] == "a" and table[b] == "b" and len({a, b, a}) == 2


# ---- printing --------------------------------------------------------------------------------------------
def test_repr_matches_mindspore(backend):
    t = ms.Tensor(np.array([[1, 2], [3, 4]], np.float32))
    assert repr(t) == ("Tensor(shape=[2, 2], dtype=Float32, value=\n"
                       "[[ 1.00000000e+00,  2.00000000e+00],\n"
                       " [ 3.00000000e+00,  4.00000000e+00]])")
    assert str(t) == "[[1. 2.]\n [3. 4.]]"


@pytest.mark.parametrize("value,text", [(np.float32(28), "Tensor(shape=[], dtype=Float32, value= 28)"),
                                        (np.float32(2.5), "Tensor(shape=[], dtype=Float32, value= 2.5)"),
                                        (np.float32(3.1415927), "Tensor(shape=[], dtype=Float32, value= 3.14159)"),
                                        (np.int64(5), "Tensor(shape=[], dtype=Int64, value= 5)"),
                                        (np.bool_(True), "Tensor(shape=[], dtype=Bool, value= True)")])
def test_scalar_repr(value, text):
    assert repr(ms.Tensor(value)) == text


def test_integer_and_bool_reprs():
    assert repr(ms.Tensor([1, 2])) == "Tensor(shape=[2], dtype=Int64, value= [1, 2])"  # vectors stay on one line
    assert repr(ms.Tensor([True, False])) == "Tensor(shape=[2], dtype=Bool, value= [ True, False])"
    assert str(ms.Tensor([1, 2])) == "[1 2]"
    assert f"{ms.Tensor(2.5):.2f}" == "2.50"


# ---- pickling and copying ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [ms.float32, ms.int8, ms.bfloat16, ms.bool_, ms.float64])
def test_pickle_round_trip(backend, dtype):
    t = ms.Tensor(np.array([[1, 0], [2, 3]]), dtype)
    u = pickle.loads(pickle.dumps(t))
    assert type(u) is ms.Tensor and u.dtype is dtype and u.shape == (2, 2)
    np.testing.assert_array_equal(u.asnumpy().astype(np.float64), t.asnumpy().astype(np.float64))


def test_deepcopy_and_copy_are_independent(backend):
    t = ms.Tensor([1.0, 2.0])
    for dup in (copy.deepcopy(t), copy.copy(t)):
        assert dup is not t and dup.tolist() == [1.0, 2.0]
        ms.ops.assign(dup, ms.Tensor([5.0, 6.0]))
        assert t.tolist() == [1.0, 2.0]


# ---- lazy initialisation -----------------------------------------------------------------------------------
def test_initializer_is_lazy(backend):
    t = initializer("ones", (2, 3), ms.float16)
    assert t.has_init and isinstance(t.init, One)
    assert t.shape == (2, 3) and t.dtype is ms.float16
    assert repr(t) == "Tensor(shape=[2, 3], dtype=Float16, value=\n<uninitialized>)"
    assert t.init_data() is t
    assert not t.has_init
    assert t.asnumpy().dtype == np.float16 and t.asnumpy().tolist() == [[1.0] * 3] * 2


def test_lazy_tensor_materialises_on_first_use(backend):
    t = initializer(Constant(0.5), [3], ms.float32)
    out = t + 1
    assert_close(out, [1.5, 1.5, 1.5])
    z = ms.Tensor(dtype=ms.int32, shape=(2,), init=Zero())
    assert z.has_init and z.asnumpy().tolist() == [0, 0] and not z.has_init


def test_init_requires_shape_and_dtype():
    with pytest.raises(TypeError, match="shape"):
        ms.Tensor(init=One(), dtype=ms.float32)
    with pytest.raises(ValueError):
        initializer("bogus", (2,))
