"""Parameter and ParameterTuple (facts §1.5)."""
import copy
import pickle
import re

import numpy as np
import pytest

import openspore as ms
from openspore import ops
from openspore.common.initializer import One, initializer

from ..conftest import assert_close


def P(values, name=None, **kw):
    return ms.Parameter(ms.Tensor(np.array(values, np.float32)), name=name, **kw)


def test_parameter_is_a_tensor_with_a_name():
    w = P([[1.0, 2.0], [3.0, 4.0]], name="w")
    assert isinstance(w, ms.Tensor) and isinstance(w, ms.Parameter)
    assert w.name == "w" and w.requires_grad is True
    assert w.shape == (2, 2) and w.dtype is ms.float32


def test_repr_and_str():
    w = ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name="w")
    assert repr(w) == "Parameter (name=w, shape=(2, 2), dtype=Float32, requires_grad=True)"
    assert str(w) == repr(w)
    v = ms.Parameter(ms.Tensor(np.ones(3, np.int32)), name="v", requires_grad=False)
    assert repr(v) == "Parameter (name=v, shape=(3,), dtype=Int32, requires_grad=False)"


def test_auto_names_count_up():
    a, b = P([1.0]), P([2.0])
    ma, mb = re.fullmatch(r"Parameter#(\d+)", a.name), re.fullmatch(r"Parameter#(\d+)", b.name)
    assert ma and mb
    assert int(mb.group(1)) == int(ma.group(1)) + 1


def test_name_and_requires_grad_are_settable():
    w = P([1.0], name="w")
    w.name = "renamed"
    w.requires_grad = False
    assert repr(w) == "Parameter (name=renamed, shape=(1,), dtype=Float32, requires_grad=False)"


def test_name_must_be_a_string():
    with pytest.raises(TypeError, match="name"):
        P([1.0], name=3)


@pytest.mark.parametrize("default,dtype,shape", [(np.zeros((2, 3), np.float16), ms.float16, (2, 3)),
                                                 ([1, 2, 3], ms.int64, (3,)), (2.5, ms.float32, ()),
                                                 (initializer("ones", (2, 2), ms.float64), ms.float64, (2, 2))])
def test_construction_sources(default, dtype, shape):
    p = ms.Parameter(default, name="p")
    assert p.dtype is dtype and p.shape == shape
    assert not p.has_init


def test_construction_from_an_initializer_object_needs_a_shape():
    with pytest.raises(ValueError, match="shape"):
        ms.Parameter(One(), name="p")
    with pytest.raises(TypeError, match="default_input"):
        ms.Parameter({"a": 1}, name="p")


def test_parameter_owns_a_copy_of_its_source(backend):
    src = ms.Tensor(np.array([1.0, 2.0], np.float32))
    p = ms.Parameter(src, name="p")
    ops.assign(src, ms.Tensor(np.array([9.0, 9.0], np.float32)))
    assert p.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("expr", [lambda w: w + 1, lambda w: -w, lambda w: w * w, lambda w: w - w,
                                  lambda w: ops.matmul(w, w), lambda w: ops.reshape(w, (4,)), lambda w: w.sum(),
                                  lambda w: ops.stop_gradient(w), lambda w: ops.cast(w, ms.float64)],
                         ids=["add", "neg", "mul", "sub", "matmul", "reshape", "sum", "stop_gradient", "cast"])
def test_arithmetic_on_a_parameter_returns_a_plain_tensor(backend, expr):
    w = P([[1.0, 2.0], [3.0, 4.0]], name="w")
    out = expr(w)
    assert type(out) is ms.Tensor


def test_set_data(backend):
    w = P([1.0, 2.0], name="w")
    same = w.set_data(ms.Tensor(np.array([5.0, 6.0], np.float32)))
    assert same is w and w.tolist() == [5.0, 6.0]
    w.set_data(ms.Tensor(np.array([7.0, 8.0], np.float64)))  # converted to the parameter's dtype
    assert w.dtype is ms.float32 and w.tolist() == [7.0, 8.0]
    w.set_data(3.0)  # a scalar fills
    assert w.tolist() == [3.0, 3.0]
    with pytest.raises(ValueError, match="shape"):
        w.set_data(ms.Tensor(np.zeros(3, np.float32)))
    assert w.name == "w" and isinstance(w, ms.Parameter)


def test_set_data_does_not_alias_the_source(backend):
    w = P([1.0, 2.0], name="w")
    src = ms.Tensor(np.array([5.0, 6.0], np.float32))
    w.set_data(src)
    ops.assign(src, ms.Tensor(np.array([0.0, 0.0], np.float32)))
    assert w.tolist() == [5.0, 6.0]


def test_clone(backend):
    w = P([1.0, 2.0], name="w", requires_grad=False)
    c = w.clone()
    assert c is not w and type(c) is ms.Parameter
    assert c.name == "w" and c.requires_grad is False and c.tolist() == [1.0, 2.0]
    ops.assign(c, ms.Tensor(np.array([0.0, 0.0], np.float32)))
    assert w.tolist() == [1.0, 2.0]
    z = w.clone(init="zeros")
    assert z.tolist() == [0.0, 0.0] and z.dtype is ms.float32


def test_in_place_update_keeps_the_parameter(backend):
    w = P([1.0, 2.0], name="w")
    ops.assign_sub(w, ms.Tensor(np.array([0.5, 0.5], np.float32)))
    assert isinstance(w, ms.Parameter) and w.name == "w"
    assert_close(w, [0.5, 1.5])


def test_pickle_and_deepcopy_keep_type_name_and_flag():
    w = P([[1.0, 2.0]], name="layer.weight", requires_grad=False)
    for dup in (pickle.loads(pickle.dumps(w)), copy.deepcopy(w)):
        assert type(dup) is ms.Parameter and dup is not w
        assert dup.name == "layer.weight" and dup.requires_grad is False
        assert dup.tolist() == [[1.0, 2.0]] and dup.dtype is ms.float32


def test_parameter_hashes_by_identity():
    a, b = P([1.0], name="same"), P([1.0], name="same")
    assert len({a, b}) == 2


# ---- ParameterTuple -----------------------------------------------------------------------------------------
def test_parameter_tuple():
    a, b = P([1.0], name="a"), P([2.0], name="b")
    pt = ms.ParameterTuple([a, b])
    assert isinstance(pt, tuple) and len(pt) == 2 and pt[0] is a and pt[1] is b
    assert ms.ParameterTuple(p for p in (a, b)) == pt


def test_parameter_tuple_rejects_other_types():
    with pytest.raises(TypeError, match="Parameter"):
        ms.ParameterTuple([P([1.0], name="a"), ms.Tensor([1.0])])
    with pytest.raises(TypeError):
        ms.ParameterTuple([1.0])


def test_parameter_tuple_clone_prefixes_names():
    pt = ms.ParameterTuple([P([1.0], name="w"), P([2.0], name="b")])
    moments = pt.clone("moments", init="zeros")
    assert [p.name for p in moments] == ["moments.w", "moments.b"]
    assert all(p.tolist() == [0.0] for p in moments)
    assert [p.name for p in pt] == ["w", "b"]
