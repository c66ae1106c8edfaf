"""ops.composite augassign_* and hyper_add: values as MindSpore 2.10 gives them (where it gives one: its
tensor true/floor division overloads fail in PyNative; openspore divides element-wise)."""
import numpy as np
import pytest

from openspore import Tensor
from openspore.ops import composite as C

X = Tensor(np.array([1.0, 2.0], np.float32))
Y = Tensor(np.array([3.0, 4.0], np.float32))


@pytest.mark.parametrize("name, tensors, ints, floats", [
    ("augassign_add", [4.0, 6.0], 9, 9.5),
    ("augassign_sub", [-2.0, -2.0], 5, 5.5),
    ("augassign_mul", [3.0, 8.0], 14, 15.0),
    ("augassign_div", None, 3.5, 3.75),
    ("augassign_floordiv", None, 3, 3.0),
    ("augassign_mod", [1.0, 2.0], 1, 1.5),
])
def test_augassign_values_match_mindspore(name, tensors, ints, floats):
    fn = getattr(C, name)
    assert type(fn).__name__ == "MultitypeFuncGraph"
    if tensors is not None:
        assert fn(X, Y).asnumpy().tolist() == tensors
    assert fn(7, 2) == ints and type(fn(7, 2)) is type(ints)
    assert fn(7.5, 2.0) == floats


def test_augassign_sequences_and_hyper_add():
    assert C.augassign_add([1], [2]) == [1, 2]
    with pytest.raises(TypeError):
        C.augassign_sub([1], [2])
    assert C.augassign_div(X, Y).asnumpy().tolist() == pytest.approx([1 / 3, 0.5])
    out = C.hyper_add((X, Y), (Y, X))
    assert isinstance(out, tuple) and [o.asnumpy().tolist() for o in out] == [[4.0, 6.0], [4.0, 6.0]]
    assert C.hyper_add(X, Y).asnumpy().tolist() == [4.0, 6.0]
