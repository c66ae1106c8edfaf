"""MindSpore 2.10 behaviour found by a fifth sample of its CPU tests (st/ops/cpu, st/syntax, st/tensor,
ut/python/nn, ut/python/ops, ut/python/pipeline/parse): `& | ^` on tensors are bitwise with promotion, Cummin/Cummax
keep a NaN once met, the padding layers' argument checks, `mindspore._checkparam`, graph-mode `list.count` over
tensors and `dict.fromkeys`, and Cell's registration errors. Every expected value and error type here was read off
MindSpore 2.10 run as a black box."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, nn, ops
from openspore import _checkparam as validator

_INT = Tensor(np.array([1, 2, 3], np.int32))
_BOOL = Tensor(np.array([True, False, True]))


# ---- & | ^ -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("expr, dtype, values", [
    (lambda: _INT & 3, ms.int32, [1, 2, 3]),
    (lambda: _INT ^ _INT, ms.int32, [0, 0, 0]),
    (lambda: Tensor(np.array([1, 3], np.int64)) | 4, ms.int64, [5, 7]),
    (lambda: _BOOL & True, ms.bool_, [True, False, True]),
    (lambda: _BOOL & 1, ms.int64, [1, 0, 1]),            # a bool tensor with a Python int promotes to int64
    (lambda: _BOOL & _INT, ms.int32, [1, 0, 1]),
    (lambda: Tensor(np.array([1, 2, 3], np.int8)) & _INT, ms.int32, [1, 2, 3]),
    (lambda: _INT & True, ms.int32, [1, 0, 1]),
    (lambda: Tensor(np.array([1, 3], np.uint16)) & Tensor(np.array([2, 3], np.uint16)), ms.uint16, [0, 3]),
])
def test_tensor_bitwise_operators_promote_like_mindspore(expr, dtype, values):
    out = expr()
    assert out.dtype == dtype
    assert out.asnumpy().tolist() == values


def test_tensor_bitwise_in_place_forms_rebind_to_the_bitwise_result():
    x = Tensor(np.array([1, 2, 3], np.int32))
    x &= 2
    assert x.asnumpy().tolist() == [0, 2, 2]
    y = Tensor(np.array([1, 2, 3], np.int32))
    y |= Tensor(np.array([4, 4, 4], np.int32))
    assert y.asnumpy().tolist() == [5, 6, 7]


@pytest.mark.parametrize("expr", [lambda: Tensor([1.0]) & Tensor([2.0]), lambda: _INT & 1.5,
                                  lambda: _INT & [1, 1, 1], lambda: _INT | None])
def test_tensor_bitwise_refuses_floats_and_non_numbers(expr):
    with pytest.raises(TypeError):
        expr()


def test_bitwise_functions_promote_mixed_integer_dtypes():
    assert ops.bitwise_and(_BOOL, _INT).dtype == ms.int32
    assert ops.bitwise_xor(Tensor(np.array([1, 2], np.int8)), Tensor(np.array([3, 3], np.int32))).dtype == ms.int32
    assert _INT.bitwise_or(Tensor(np.array([4, 4, 4], np.int8))).asnumpy().tolist() == [5, 6, 7]


def test_graph_bitwise_with_a_number_on_either_side(graph_mode):
    class Net(nn.Cell):
        def construct(self, x):
            return 3 & x, x | 1, x ^ x

    a, b, c = Net()(Tensor(np.array([1, 2, -4])))
    assert a.asnumpy().tolist() == [1, 2, 0]
    assert b.asnumpy().tolist() == [1, 3, -3]
    assert c.asnumpy().tolist() == [0, 0, 0]


# ---- Cummin / Cummax -----------------------------------------------------------------------------------------------
def test_cummin_cummax_keep_the_first_nan_and_its_index():
    x = Tensor(np.array([4, np.inf, 1.5, -np.inf, 0, np.nan, 1], np.float32))
    values, indices = ops.cummin(x, 0)
    np.testing.assert_equal(values.asnumpy(), [4, 4, 1.5, -np.inf, -np.inf, np.nan, np.nan])
    assert indices.asnumpy().tolist() == [0, 0, 2, 3, 3, 5, 5]
    values, indices = ops.cummax(x, 0)
    np.testing.assert_equal(values.asnumpy(), [4, np.inf, np.inf, np.inf, np.inf, np.nan, np.nan])
    assert indices.asnumpy().tolist() == [0, 1, 1, 1, 1, 5, 5]


def test_cummin_argument_errors_and_empty_input():
    x = Tensor(np.array([3, 1, 2], np.float32))
    with pytest.raises(ValueError, match=r"axis must be in \[-1, 1\], but got 2"):
        ops.cummin(x, 2)
    with pytest.raises(TypeError, match="must be Int, but got 0.5"):
        ops.cummin(x, 0.5)
    with pytest.raises(ValueError, match="rank of 'x' must be greater than 0"):
        ops.cummin(Tensor(3.0), 0)
    values, indices = ops.cummin(Tensor(np.zeros((0,), np.float32)), 0)
    assert values.shape == (0,) and indices.shape == (0,) and indices.dtype == ms.int32


# ---- padding layers -----------------------------------------------------------------------------------------------
_X4 = Tensor(np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4))
_X2 = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))


def test_constant_pads_take_short_tuples_and_negative_widths():
    assert nn.ConstantPad3d((1, 1), 0.5)(_X4).shape == (1, 2, 3, 6)      # only the last axis
    assert nn.ZeroPad2d((1, 2, 1, 0))(_X2).shape == (3, 6)
    out = nn.ConstantPad1d((-1, 1), 0.5)(_X2)                             # a negative width crops
    assert out.asnumpy().tolist() == [[1.0, 2.0, 0.5], [4.0, 5.0, 0.5]]
    assert nn.ConstantPad1d(1, True)(_X2).asnumpy()[0].tolist() == [1.0, 0.0, 1.0, 2.0, 1.0]


@pytest.mark.parametrize("make, error", [
    (lambda: nn.ConstantPad1d([1, 2], 0.5), TypeError),
    (lambda: nn.ConstantPad1d(1.5, 0.5), TypeError),
    (lambda: nn.ConstantPad1d((1, 2, 3), 0.5), ValueError),
    (lambda: nn.ConstantPad1d((1, 2, 1, 0), 0.5), ValueError),
    (lambda: nn.ConstantPad2d((1,) * 6, 0.5), ValueError),
    (lambda: nn.ConstantPad1d(1, "a"), TypeError),
    (lambda: nn.ZeroPad2d(None), TypeError),
    (lambda: nn.ReflectionPad1d("-1"), TypeError),
    (lambda: nn.ReflectionPad2d((1, 2, 2)), ValueError),
    (lambda: nn.ReflectionPad2d(("2", 2)), TypeError),
    (lambda: nn.ReflectionPad1d((-1, 2)), ValueError),
    (lambda: nn.ReplicationPad3d((1.0, 2)), TypeError),
    (lambda: nn.Pad([[1, 1], [1, 1]]), TypeError),
    (lambda: nn.Pad(((1, 1), (1, 1)), mode="constant"), ValueError),   # mode is case-sensitive
    (lambda: nn.Pad(((1,), (1,))), ValueError),
])
def test_padding_layer_argument_errors(make, error):
    with pytest.raises(error):
        make()


def test_padding_layers_check_the_input_when_called():
    with pytest.raises(TypeError):                      # elements are checked at the call
        nn.ConstantPad1d(("2", 2), 0.5)(_X2)
    with pytest.raises(ValueError):                     # more padded axes than the input has
        nn.ConstantPad3d(1, 0.5)(_X2)
    with pytest.raises(ValueError):
        nn.ReflectionPad1d((1,) * 8)(_X2)
    with pytest.raises(ValueError):                     # reflection widths must stay below the axis size
        nn.ReflectionPad2d(3)(_X4)
    with pytest.raises(ValueError):                     # replication needs (N, C, ...) or (C, ...) inputs
        nn.ReplicationPad2d(1)(_X2)
    with pytest.raises(ValueError):
        nn.Pad(((1, 1),))(_X2)
    with pytest.raises(ValueError):
        nn.Pad(((-1, 1), (0, 0)))(_X2)


def test_replication_pad_accepts_batchless_input_and_crops_negative_widths():
    assert nn.ReplicationPad1d(1)(_X2).asnumpy().tolist() == [[0, 0, 1, 2, 2], [3, 3, 4, 5, 5]]
    assert nn.ReplicationPad1d((-1, 1))(_X2).asnumpy().tolist() == [[1, 2, 2], [4, 5, 5]]
    out = nn.ReplicationPad2d((-1, 2, 1, -2))(_X4)
    assert out.asnumpy()[0, 0].tolist() == [[1, 2, 3, 3, 3], [1, 2, 3, 3, 3]]
    assert nn.ReflectionPad1d(1)(Tensor(np.arange(4, dtype=np.float32))).asnumpy().tolist() == [1, 0, 1, 2, 3, 2]


# ---- mindspore._checkparam ------------------------------------------------------------------------------------------
def test_checkparam_values_pass_through():
    assert validator.check_int(3, 2, validator.GE, "a", "P") == 3
    assert validator.check_positive_int_sequence((1, 2), "a", "P") == (1, 2)
    assert validator.check_float_range(0.5, 0, 1, validator.INC_NEITHER, "a", "P") == 0.5
    assert validator.check_string("a", ["a", "b"], "a", "P") == "a"
    assert validator.check_axis_in_range(-1, 2) == 1
    assert validator.twice(3) == (3, 3) and validator.triple((1, 2, 3)) == (1, 2, 3)
    assert validator.check_input_format("NCHW") == "NCHW"
    assert (validator.EQ, validator.GE, validator.INC_BOTH) == (1, 6, 10)


@pytest.mark.parametrize("call, error, words", [
    (lambda: validator.check_int(1, 2, validator.GE, "a", "P"), ValueError,
     "For 'P', the 'a' must be int and must >= 2, but got '1' with type 'int'."),
    (lambda: validator.check_int(1.0, 2, validator.GE, "a", "P"), TypeError, "For 'P', the 'a' must be int, but got 'float'"),
    (lambda: validator.check_positive_int(-1), ValueError, "The input value must be int and must > 0"),
    (lambda: validator.check_bool(1, "a", "P"), TypeError, "For 'P', the 'a' must be a bool, but got int."),
    (lambda: validator.check_int_range(5, 0, 3, validator.INC_BOTH, "a", "P"), ValueError,
     "For 'P', the 'a' must be in range of [0, 3], but got 5 with type 'int'."),
    (lambda: validator.check_value_type("a", True, [int], "P"), TypeError,
     "For 'P', the type of 'a' should be 'int', but got type 'bool'."),
    (lambda: validator.check_number("a", 3, 2, validator.LE, "P"), ValueError, "the argument 'a' must <= 2, but got 3."),
    (lambda: validator.twice((1, 2, 3)), TypeError, "input tuple dimension must be 2"),
    (lambda: validator.check_positive_float_sequence((1.0, 0.0), "a", "P"), ValueError, "the 'a[1]' must be float"),
    (lambda: validator.check_type_name("a", ms.float32, [ms.int32], "P"), TypeError, "For 'P', the 'a' should be Int32"),
    (lambda: validator.check_input_format("x"), ValueError, "The data format must be NCHW, but got x."),
])
def test_checkparam_errors_are_mindsporess(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


# ---- graph-mode builtins ------------------------------------------------------------------------------------------
def test_graph_list_count_compares_tensors_by_value(graph_mode):
    @ms.jit
    def count_constants():
        one = Tensor(1)
        items = ["a", ("b", "2"), 20, 4, one, [1, 2], Tensor(1)]
        return Tensor(items.count(one))

    @ms.jit
    def count_inputs(a, b):
        items = [30, {"k": 1}, a + b, b]
        return Tensor(items.count(30))

    assert int(count_constants().asnumpy()) == 2
    assert int(count_inputs(Tensor(20), Tensor(10)).asnumpy()) == 2


def test_graph_dict_fromkeys_of_a_non_iterable_is_a_runtime_error(graph_mode):
    @ms.jit
    def keys_of(n):
        return str({"a": 1}.fromkeys(n, 111))

    @ms.jit
    def keys_ok():
        return str({"a": 1}.fromkeys("ab"))

    with pytest.raises(RuntimeError, match="object is not iterable"):
        keys_of(123)
    assert keys_ok() == "{'a': None, 'b': None}"


def test_graph_index_out_of_range_is_an_index_error(graph_mode):
    @ms.jit
    def pick(x):
        return x[5]

    with pytest.raises(IndexError):
        pick(Tensor(np.arange(3)))


# ---- Cell registration errors -------------------------------------------------------------------------------------
def test_cell_insert_errors_match_mindspore():
    cell = nn.Cell()
    weight = ms.Parameter(Tensor(np.ones(2, np.float32)), name="weight")
    with pytest.raises(TypeError):
        cell.insert_param_to_cell(1, weight)
    with pytest.raises(TypeError):
        cell.insert_child_to_cell(1, nn.ReLU())
    with pytest.raises(KeyError):
        cell.insert_param_to_cell("training", weight)        # an existing attribute's name
    with pytest.raises(KeyError, match="should not be None"):
        cell.insert_param_to_cell("", weight)
    with pytest.raises(TypeError, match="must be 'Cell' if not None"):
        cell.insert_child_to_cell("p", weight)


def test_cell_parameter_name_does_not_take_a_cell():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.weight = ms.Parameter(Tensor(np.ones(2, np.float32)), name="weight")
            self.weight = None
            self.weight = nn.ReLU()

    with pytest.raises(KeyError, match="already exists"):
        Net()


def test_sequential_cell_refuses_a_plain_dict():
    with pytest.raises(TypeError, match="must be Cell, list or orderedDict"):
        nn.SequentialCell({"a": nn.ReLU()})
    with pytest.raises(AttributeError, match="The 'Cell' object has no attribute 'missing'"):
        nn.Cell().missing  # noqa: B018 - the attribute lookup is the test


# ---- bitwise and shift operators between Python scalars in graph code -----------------------------------------------
@ms.jit
def _shift_left(x, y):
    return x << y


@ms.jit
def _xor(x, y):
    return x ^ y


@ms.jit
def _bit_or(x, y):
    return x | y


def test_graph_scalar_bitwise_operators_compute_on_int64(graph_mode):
    assert _shift_left(3, 5) == 96
    assert _shift_left(-1, 63) == -2 ** 63
    assert _xor(12, 3) == 15
    assert _bit_or(True, 2) == 3

    @ms.jit
    def augmented():
        a = -16
        a <<= 5
        b = 7
        b &= 3
        return a, b

    assert augmented() == (-512, 3)


@pytest.mark.parametrize("call, error, words", [
    (lambda: _shift_left(1, 63), RuntimeError, "int64 integer overflow"),
    (lambda: _shift_left(16, -2), ValueError, "shift count must be a non-negative integer"),
    (lambda: _xor(2 ** 63, 2), RuntimeError, "Unable to cast Python instance"),
    (lambda: _xor(1.5, 2.0), TypeError, "For BitXor, only integer types are supported"),
    (lambda: _shift_left(True, 3), TypeError, "For BitLeftShift, only integer types are supported"),
    (lambda: _bit_or(3, 2.0), TypeError, "For primitive[bit_or], the input argument[y_dtype]"),
    (lambda: _bit_or([1], [2]), TypeError, "unsupported operand type"),
])
def test_graph_scalar_bitwise_operator_errors(graph_mode, call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


# ---- tensors as indices ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("index", [Tensor(1.0), Tensor([1, 2])])
def test_tensor_as_python_index_needs_one_integer_element(index):
    with pytest.raises(ValueError, match="Only integer tensors of a single element can be converted to an index"):
        [1, 2, 3][index]


def test_graph_list_of_tensors_indexed_by_an_input_tensor(graph_mode):
    class Pick(nn.Cell):
        def construct(self, items, i):
            return items[i], items[-i]

    items = [Tensor(np.full([2], k, np.int32)) for k in range(4)]
    first, last = Pick()(items, Tensor(1))
    assert first.asnumpy().tolist() == [1, 1]
    assert last.asnumpy().tolist() == [3, 3]


# ---- constexpr ------------------------------------------------------------------------------------------------------
def _plain_function():
    return 0


def test_constexpr_sees_a_function_argument_as_none_in_a_graph():
    from openspore.ops.primitive import constexpr

    @constexpr(check=False)
    def is_none(value):
        return value is None

    @ms.jit
    def in_graph():
        return is_none(_plain_function), is_none(nn.ReLU), is_none(len)

    assert is_none(_plain_function) is False          # PyNative: the function itself
    assert in_graph() == (True, False, True)          # a graph: functions have no constant value, classes do


def test_bincount_counts_are_float32():
    counts = ops.bincount(Tensor(np.array([1, 1, 3], np.int32)), minlength=5)
    assert counts.dtype == ms.float32
    assert counts.asnumpy().tolist() == [0.0, 2.0, 0.0, 1.0, 0.0]
    weighted = ops.bincount(Tensor(np.array([1, 1, 3], np.int32)), Tensor(np.array([1, 2, 3], np.int32)))
    assert weighted.dtype == ms.float32 and weighted.asnumpy().tolist() == [0.0, 3.0, 0.0, 3.0]


@pytest.mark.parametrize("args, dtype, values", [((1, 8, 2), ms.int32, [1, 3, 5, 7]), ((5,), ms.int32, [0, 1, 2, 3, 4]),
                                                 ((0, 3, 0.5), ms.float32, [0.0, 0.5, 1.0, 1.5, 2.0, 2.5])])
def test_nn_range_dtype(args, dtype, values):
    out = nn.Range(*args)()
    assert out.dtype == dtype and out.asnumpy().tolist() == values


# ---- reduction and index dtypes, Tensor.add/sub alpha, Tensor.resize -----------------------------------------------
_X = Tensor(np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.bool_])
def test_integer_sums_are_int64(dtype):
    values = Tensor(np.ones((2, 3), dtype))
    assert values.sum(1).dtype == ms.int64 and values.sum().dtype == ms.int64
    assert ops.sum(values, 1).dtype == ms.int64
    assert values.sum(1).asnumpy().tolist() == [3, 3]


def test_argmin_is_int32_and_median_indices_int64():
    assert _X.argmin().dtype == ms.int32 and _X.argmin(1, True).shape == (2, 1)
    assert ops.argmin(_X, 1).dtype == ms.int32 and ops.argmin(_X, 1).asnumpy().tolist() == [1, 2]
    assert _X.median(1)[1].dtype == ms.int64


def test_tensor_add_sub_take_alpha():
    assert _X.sub(_X, alpha=2).asnumpy().tolist() == (-_X).asnumpy().tolist()
    assert _X.add(1, alpha=3).asnumpy()[0].tolist() == [4.5, 1.0, 6.0]


def test_tensor_resize_pads_with_zeros_or_cuts():
    assert _X.resize(3, 3).asnumpy().ravel().tolist() == [1.5, -2.0, 3.0, 0.5, 4.0, -1.0, 0.0, 0.0, 0.0]
    assert _X.resize((1, 2)).asnumpy().tolist() == [[1.5, -2.0]]
