"""experimental.MapParameter: construction, properties and repr as MindSpore 2.10 gives them (its get / put /
erase kernels exist only on GPU/Ascend there; openspore's host map is checked for the documented behaviour)."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor
from openspore.experimental import MapParameter


def test_properties_and_repr_match_mindspore():
    m = MapParameter(key_dtype=ms.int32, value_dtype=ms.float32, value_shape=(3,), default_value="zeros", name="m")
    assert repr(m) == ("MapParameter(MapTensor(key_dtype=Int32, value_dtype=Float32, value_shape=[3], "
                       "default_value=zeros, permit_filter=1, evict_filter=9223372036854775807))")
    assert (m.name, m.key_dtype, m.value_dtype, m.value_shape, m.default_value) == ("m", ms.int32, ms.float32, (3,),
                                                                                   "zeros")
    assert isinstance(m, ms.Parameter)
    assert m.shape == (3,) and m.asnumpy().tolist() == [0.0, 0.0, 0.0]
    assert repr(m.clone(init="zeros")) == repr(m)
    with pytest.raises(ValueError, match="^Unsupported init name for map parameter: bad$"):
        MapParameter(key_dtype=ms.int32, value_dtype=ms.float32, value_shape=(2,), default_value="bad")


def test_get_put_erase_and_export():
    m = MapParameter(key_dtype=ms.int64, value_dtype=ms.float32, value_shape=(2,), default_value=5.0)
    assert m.get(Tensor([[1, 2]], ms.int64)).shape == (1, 2, 2)
    assert m.get(Tensor([1], ms.int64)).asnumpy().tolist() == [[5.0, 5.0]]
    m.put(Tensor([2, 7], ms.int64), Tensor(np.arange(4, dtype=np.float32).reshape(2, 2)))
    m[Tensor([9], ms.int64)] = Tensor([[9.0, 9.0]])
    assert m[Tensor([7, 2, 9], ms.int64)].asnumpy().tolist() == [[2.0, 3.0], [0.0, 1.0], [9.0, 9.0]]
    keys, values, status = m.export_data()
    assert keys.tolist() == [1, 2, 7, 9] and keys.dtype == np.int64 and values.shape == (4, 2)
    assert status.tolist() == [0, 0, 0, 0]
    m.erase(Tensor([1, 7], ms.int64))
    assert m.get_keys().asnumpy().tolist() == [2, 9]
    m.put(Tensor([2], ms.int64), Tensor([[4.0, 4.0]]))
    keys, values, _ = m.export_data(incremental=True)
    assert keys.tolist() == [2] and values.tolist() == [[4.0, 4.0]]
    twin = MapParameter(key_dtype=ms.int64, value_dtype=ms.float32, value_shape=2, default_value="ones")
    twin.import_data(m.export_data())
    assert twin.get_values().asnumpy().tolist() == [[4.0, 4.0], [9.0, 9.0]]
    assert twin.get(Tensor([100], ms.int64)).asnumpy().tolist() == [[1.0, 1.0]]
    with pytest.raises(ValueError, match="values must have shape"):
        m.put(Tensor([1], ms.int64), Tensor([1.0, 2.0, 3.0]))


def test_normal_default_draws_once_per_key():
    m = MapParameter(key_dtype=ms.int32, value_dtype=ms.float32, value_shape=(4,))
    first = m.get(Tensor([3], ms.int32)).asnumpy()
    assert np.array_equal(first, m.get(Tensor([3], ms.int32)).asnumpy()) and np.std(first) > 0
