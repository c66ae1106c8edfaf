"""`MapParameter`: a parameter that is a hash map from integer keys to value rows (embedding tables whose ids
are not known in advance, as in recommendation models).

`get(keys)` returns one row per key and inserts the default row for a key not yet present; `put(keys, values)`
sets rows; `erase(keys)` removes them; `m[keys]` / `m[keys] = values` are get / put. The default row is
'zeros', 'ones', 'normal' (standard normal, drawn per new key) or a number. `export_data()` gives (keys, values,
status) as numpy arrays; `export_data(incremental=True)` only the rows put or inserted since the last export.
openspore keeps the map on the host, on every backend (MindSpore 2.10 builds it on CPU but runs its get / put /
erase kernels only on GPU and Ascend). As a Parameter, its tensor value is one row of zeros (as in MindSpore).

>>> import numpy as np, openspore as ms
>>> from openspore.experimental import MapParameter
>>> m = MapParameter(key_dtype=ms.int32, value_dtype=ms.float32, value_shape=(2,), default_value="ones", name="m")
>>> m.get(ms.Tensor([3, 1], ms.int32)).asnumpy().tolist()
[[1.0, 1.0], [1.0, 1.0]]
>>> m[ms.Tensor([3], ms.int32)] = ms.Tensor([[5.0, 6.0]], ms.float32)
>>> m.get_keys().asnumpy().tolist(), m[ms.Tensor([3], ms.int32)].asnumpy().tolist()
([3, 1], [[5.0, 6.0]])
"""
import numpy as np

from ..common import dtype as mstype
from ..core.parameter import Parameter
from ..core.tensor import Tensor

_INITS = ("zeros", "ones", "normal")
_KEY_TYPES = (mstype.int32, mstype.int64)


def _as_shape(value_shape):
    shape = (value_shape,) if isinstance(value_shape, int) else tuple(value_shape)
    if not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape):
        raise ValueError(f"For 'MapParameter', 'value_shape' must be positive ints, but got {value_shape!r}.")
    return shape


def _keys(keys):
    return np.asarray(keys.asnumpy() if isinstance(keys, Tensor) else keys).reshape(-1)


class MapParameter(Parameter):
    """`MapParameter(name=None, requires_grad=True, key_dtype=int32, value_dtype=float32, value_shape=1,
    default_value='normal', permit_filter_value=1, evict_filter_value=2**63 - 1)`."""

    def __init__(self, name=None, requires_grad=True, **kwargs):
        key_dtype = kwargs.pop("key_dtype", mstype.int32)
        value_dtype = kwargs.pop("value_dtype", mstype.float32)
        value_shape = _as_shape(kwargs.pop("value_shape", 1))
        default_value = kwargs.pop("default_value", "normal")
        self.permit_filter_value = kwargs.pop("permit_filter_value", 1)
        self.evict_filter_value = kwargs.pop("evict_filter_value", 2 ** 63 - 1)
        if kwargs:
            raise TypeError(f"For 'MapParameter', unexpected arguments {sorted(kwargs)}.")
        if key_dtype not in _KEY_TYPES:
            raise TypeError(f"For 'MapParameter', 'key_dtype' must be int32 or int64, but got {key_dtype}.")
        if isinstance(default_value, str) and default_value not in _INITS:
            raise ValueError(f"Unsupported init name for map parameter: {default_value}")
        if not isinstance(default_value, (str, int, float)) or isinstance(default_value, bool):
            raise TypeError(f"For 'MapParameter', 'default_value' must be one of {list(_INITS)} or a number, but "
                            f"got {default_value!r}.")
        self._np_value = mstype.dtype_to_nptype(value_dtype)
        super().__init__(Tensor(np.zeros(value_shape, self._np_value), dtype=value_dtype), name=name,
                         requires_grad=requires_grad)
        self.key_dtype, self.value_dtype, self.value_shape = key_dtype, value_dtype, value_shape
        self.default_value = default_value
        self._rows = {}          # key (int) -> value row (numpy)
        self._changed = set()    # keys put or inserted since the last export

    def _default_row(self):
        if self.default_value == "zeros":
            return np.zeros(self.value_shape, self._np_value)
        if self.default_value == "ones":
            return np.ones(self.value_shape, self._np_value)
        if self.default_value == "normal":
            return np.random.standard_normal(self.value_shape).astype(self._np_value)
        return np.full(self.value_shape, self.default_value, self._np_value)

    def get(self, key_tensor, default_value=None):
        """The rows of `key_tensor`'s keys, shape keys.shape + value_shape; missing keys get the default row
        (`default_value` overrides the map's own for this call) and are inserted."""
        keys = _keys(key_tensor)
        rows = []
        for key in keys.tolist():
            if key not in self._rows:
                row = self._default_row() if default_value is None else np.full(self.value_shape, default_value,
                                                                                  self._np_value)
                self._rows[key] = row
                self._changed.add(key)
            rows.append(self._rows[key])
        shape = tuple(np.shape(key_tensor.asnumpy() if isinstance(key_tensor, Tensor) else key_tensor))
        out = np.stack(rows) if rows else np.zeros((0,) + self.value_shape, self._np_value)
        return Tensor(out.reshape(shape + self.value_shape), dtype=self.value_dtype)

    def put(self, key_tensor, value_tensor):
        """Set the rows of `key_tensor`'s keys to `value_tensor` (keys.shape + value_shape); returns self."""
        keys = _keys(key_tensor)
        values = np.asarray(value_tensor.asnumpy() if isinstance(value_tensor, Tensor) else value_tensor,
                            self._np_value)
        if values.size != keys.size * int(np.prod(self.value_shape)):
            raise ValueError(f"For 'MapParameter.put', the values must have shape {(keys.size,) + self.value_shape}"
                             f" for {keys.size} keys, but got {values.shape}.")
        for key, row in zip(keys.tolist(), values.reshape((keys.size,) + self.value_shape)):
            self._rows[key] = row.copy()
            self._changed.add(key)
        return self

    def erase(self, key_tensor):
        """Remove `key_tensor`'s keys (absent keys are ignored); returns self."""
        for key in _keys(key_tensor).tolist():
            self._rows.pop(key, None)
            self._changed.discard(key)
        return self

    __getitem__ = get

    def __setitem__(self, key_tensor, value_tensor):
        self.put(key_tensor, value_tensor)

    def get_keys(self):
        """All keys, in insertion order."""
        return Tensor(np.array(list(self._rows), mstype.dtype_to_nptype(self.key_dtype)), dtype=self.key_dtype)

    def get_values(self):
        """All rows, in key order of `get_keys`."""
        return self.get(self.get_keys())

    def get_data(self):
        """(keys, values) as Tensors."""
        keys = self.get_keys()
        return keys, self.get(keys)

    def export_data(self, incremental=False):
        """(keys, values, status) numpy arrays of every row, or with `incremental` of the rows put or inserted
        since the last export (status 0 for each)."""
        keys = [k for k in self._rows if not incremental or k in self._changed]
        self._changed = set()
        key_arr = np.array(keys, mstype.dtype_to_nptype(self.key_dtype))
        values = (np.stack([self._rows[k] for k in keys]) if keys
                  else np.zeros((0,) + self.value_shape, self._np_value))
        return key_arr, values, np.zeros(len(keys), np.int32)

    def import_data(self, data):
        """Load (keys, values[, status]) as `export_data` gives them (numpy arrays or Tensors)."""
        if not isinstance(data, (tuple, list)) or len(data) not in (2, 3):
            raise TypeError(f"For 'MapParameter.import_data', the data must be a tuple (keys, values, status), but "
                            f"got {type(data).__name__}.")
        self.put(data[0], data[1])
        return self

    def clone(self, init="same"):
        """A map of the same types; `init='same'` also copies the rows, otherwise `init` is the new default."""
        twin = MapParameter(name=self.name, requires_grad=self.requires_grad, key_dtype=self.key_dtype,
                            value_dtype=self.value_dtype, value_shape=self.value_shape,
                            default_value=self.default_value if init == "same" else init,
                            permit_filter_value=self.permit_filter_value,
                            evict_filter_value=self.evict_filter_value)
        if init == "same":
            twin._rows = {k: v.copy() for k, v in self._rows.items()}
        return twin

    def __repr__(self):
        return (f"MapParameter(MapTensor(key_dtype={self.key_dtype}, value_dtype={self.value_dtype}, value_shape="
                f"{list(self.value_shape)}, default_value={self.default_value}, permit_filter="
                f"{self.permit_filter_value}, evict_filter={self.evict_filter_value}))")

    __str__ = __repr__
