"""Element-wise functions of sparse tensors (`ops.coo_relu`, `ops.csr_sqrt`, ...: the dense function applied to
the stored values, the structure kept), and the 1.x-style accessors and makers (`coo_tensor_get_values`,
`make_csr_tensor`, `row_tensor_add`, ...).

Applying f to the stored values only is what MindSpore's sparse functions do, whether or not f(0) is 0.

>>> import openspore as ms
>>> x = ms.COOTensor(ms.Tensor([[0, 1], [1, 2]], ms.int32), ms.Tensor([-1., 4.]), (3, 4))
>>> ms.ops.coo_relu(x).values.asnumpy().tolist(), ms.ops.coo_sqrt(x).indices.shape
([0.0, 4.0], (2, 2))
"""
from ..sparse_tensor import COOTensor, CSRTensor, RowTensor, SparseTensor

UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1", "floor",
         "inv", "isfinite", "isinf", "isnan", "log", "log1p", "neg", "relu", "relu6", "round", "sigmoid", "sin",
         "sinh", "softsign", "sqrt", "square", "tan", "tanh")

__all__ = ([f"coo_{name}" for name in UNARY] + [f"csr_{name}" for name in UNARY] +
           ["make_coo_tensor", "make_csr_tensor", "make_row_tensor", "make_row_tensor_inner", "make_sparse_tensor",
            "row_tensor_add"])


def _dense(name):
    from .. import function  # the dense functions: the package that imports this module
    return getattr(function, name)


def _check(op, value, kind):
    if not isinstance(value, kind):
        raise TypeError(f"For '{op}', the input must be a {kind.__name__}, but got {type(value).__name__}.")
    return value


def _coo_unary(name):
    def fn(x):
        _check(f"coo_{name}", x, COOTensor)
        return COOTensor(x.indices, _dense(name)(x.values), x.shape)
    fn.__name__ = fn.__qualname__ = f"coo_{name}"
    fn.__doc__ = f"`{name}` of the stored values of a COOTensor: a COOTensor of the same structure."
    return fn


def _csr_unary(name):
    def fn(x):
        _check(f"csr_{name}", x, CSRTensor)
        return CSRTensor(x.indptr, x.indices, _dense(name)(x.values), x.shape)
    fn.__name__ = fn.__qualname__ = f"csr_{name}"
    fn.__doc__ = f"`{name}` of the stored values of a CSRTensor: a CSRTensor of the same structure."
    return fn


for _name in UNARY:
    globals()[f"coo_{_name}"] = _coo_unary(_name)
    globals()[f"csr_{_name}"] = _csr_unary(_name)


# ---- makers and accessors (MindSpore's functional forms of the constructors and properties) ------------
def make_coo_tensor(indices, values, dense_shape):
    return COOTensor(indices, values, dense_shape)


def make_csr_tensor(indptr, indices, values, dense_shape):
    return CSRTensor(indptr, indices, values, dense_shape)


def make_row_tensor(indices, values, dense_shape):
    return RowTensor(indices, values, dense_shape)


make_row_tensor_inner = make_row_tensor


def make_sparse_tensor(indices, values, dense_shape):
    return SparseTensor(indices, values, dense_shape)


def _accessor(name, cls, attribute):
    def get(x):
        return getattr(_check(name, x, cls), attribute)
    get.__name__ = get.__qualname__ = name
    get.__doc__ = f"`{name}(x)`: the `{attribute}` of a {cls.__name__} (TypeError for anything else)."
    return get


# The 1.x-style accessors: (function name, class, attribute) — one getter each, named as MindSpore names them.
_ACCESSORS = (
    ("coo_tensor_get_indices", COOTensor, "indices"), ("coo_tensor_get_values", COOTensor, "values"),
    ("coo_tensor_get_dense_shape", COOTensor, "shape"), ("csr_tensor_get_indptr", CSRTensor, "indptr"),
    ("csr_tensor_get_indices", CSRTensor, "indices"), ("csr_tensor_get_values", CSRTensor, "values"),
    ("csr_tensor_get_dense_shape", CSRTensor, "shape"), ("row_tensor_get_indices", RowTensor, "indices"),
    ("row_tensor_get_values", RowTensor, "values"), ("row_tensor_get_dense_shape", RowTensor, "dense_shape"))
for _name, _cls, _attribute in _ACCESSORS:
    globals()[_name] = _accessor(_name, _cls, _attribute)
__all__ += [name for name, _, _ in _ACCESSORS]


def row_tensor_add(x, y):
    """Two RowTensors of one dense shape as one RowTensor holding both sets of rows (their dense sum)."""
    _check("row_tensor_add", x, RowTensor)
    _check("row_tensor_add", y, RowTensor)
    if x.dense_shape != y.dense_shape:
        raise ValueError(f"For 'row_tensor_add', the dense shapes differ: {x.dense_shape} and {y.dense_shape}.")
    concat = _dense("concat")
    return RowTensor(concat((x.indices, _dense("cast")(y.indices, x.indices.dtype)), 0),
                     concat((x.values, y.values), 0), x.dense_shape)
