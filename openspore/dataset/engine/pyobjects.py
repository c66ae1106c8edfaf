"""Python `dict` columns: a dict travels through the pipeline by reference (it is never made an array); `batch`
groups the values key by key, and the iterators convert what the dicts hold (recursively, into lists and tuples too)
into Tensors or numpy arrays, leaving what cannot be converted (class instances, say) as it is.

>>> batched = batch_dicts([{"a": 1, "b": {"c": [1, 2]}}, {"a": 2, "b": {"c": [3, 4]}}], "col")
>>> batched["a"], batched["b"]["c"].tolist()
(array([1, 2]), [[1, 2], [3, 4]])
>>> to_output({"x": [1, (2.5,)]}, output_numpy=True)
{'x': [array(1), (array(2.5),)]}
"""
import numpy as np


def batch_dicts(values, column):
    """One batch of dict values as one dict: each key's values batched together (all dicts need the same keys)."""
    keys = list(values[0])
    for v in values:
        if not isinstance(v, dict) or list(v) != keys:
            got = list(v) if isinstance(v, dict) else type(v).__name__
            raise RuntimeError(f"For 'batch', the dicts of column '{column}' must all have the same keys to be "
                               f"batched together, but got keys {keys} and {got}.")
    return {k: _batch_values([v[k] for v in values], f"{column}.{k}") for k in keys}


def _batch_values(values, where):
    if isinstance(values[0], dict):
        return batch_dicts(values, where)
    arrays = [np.asarray(v) for v in values]
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise RuntimeError(f"For 'batch', the values under '{where}' must have one shape to be batched, but got "
                           f"shapes {sorted(shapes)}.")
    batched = np.array(arrays)
    if batched.dtype == object:
        raise RuntimeError(f"For 'batch', the values under '{where}' batch into an array of Python objects, which "
                           f"cannot reach a network; return numbers, strings or numpy arrays there.")
    return batched


def to_output(value, output_numpy, do_copy=True):
    """A value held in a dict column as the iterator gives it: dicts, lists and tuples rebuilt around converted
    leaves (numpy arrays, or Tensors unless `output_numpy`); a leaf that is no number or string stays as it is."""
    if isinstance(value, dict):
        return {k: to_output(v, output_numpy, do_copy) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_output(v, output_numpy, do_copy) for v in value)
    if hasattr(value, "asnumpy"):  # already a Tensor
        return value.asnumpy() if output_numpy else value
    if not isinstance(value, (np.ndarray, np.generic, int, float, bool, complex, str, bytes)):
        return value
    array = np.array(value) if do_copy or not isinstance(value, np.ndarray) else value
    if output_numpy or array.dtype.kind in "USO":
        return array
    from ...core.tensor import Tensor  # late: the dataset package itself needs neither torch nor the core
    return Tensor(array)
