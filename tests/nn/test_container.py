"""SequentialCell, CellList, CellDict: construction, list/dict semantics, parameter naming."""
from collections import OrderedDict

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from tests.conftest import assert_close


class Scale(nn.Cell):
    def __init__(self, value):
        super().__init__()
        self.value = value
        self.w = ms.Parameter(ms.Tensor(np.full((1,), value, np.float32)))

    def construct(self, x):
        return ops.mul(x, self.w)

    def extend_repr(self):
        return f"value={self.value}"


class Holder(nn.Cell):
    def __init__(self, container):
        super().__init__()
        self.layers = container


def names(cell):
    return [p.name for p in cell.get_parameters()]


def test_sequential_forms_and_forward():
    x = ms.Tensor(np.ones(2, np.float32))
    for seq in (nn.SequentialCell([Scale(2.0), Scale(3.0)]), nn.SequentialCell(Scale(2.0), Scale(3.0)),
                nn.SequentialCell(OrderedDict(a=Scale(2.0), b=Scale(3.0)))):
        assert_close(seq(x), [6.0, 6.0])
        assert len(seq) == 2
    assert names(nn.SequentialCell([Scale(1.0), Scale(1.0)])) == ["0.w", "1.w"]
    assert names(nn.SequentialCell(OrderedDict(a=Scale(1.0)))) == ["a.w"]
    assert_close(nn.SequentialCell()(x), [1.0, 1.0])
    with pytest.raises(TypeError, match="subclass of Cell"):
        nn.SequentialCell([Scale(1.0), 3])


def test_sequential_indexing_slicing_iteration():
    cells = [Scale(float(i)) for i in range(4)]
    seq = nn.SequentialCell(cells)
    assert seq[0] is cells[0] and seq[-1] is cells[3]
    with pytest.raises(IndexError):
        seq[4]
    sub = seq[1:3]
    assert isinstance(sub, nn.SequentialCell) and list(sub) == cells[1:3]
    assert names(seq) == ["0.w", "1.w", "2.w", "3.w"]  # slicing leaves the names alone
    assert_close(sub(ms.Tensor(np.ones(1, np.float32))), [2.0])
    assert list(seq) == cells


def test_append_insert_delete_keep_full_path_names():
    h = Holder(nn.SequentialCell([Scale(1.0), Scale(2.0)]))
    assert names(h) == ["layers.0.w", "layers.1.w"]
    h.layers.append(Scale(3.0))
    assert names(h) == ["layers.0.w", "layers.1.w", "layers.2.w"]
    h.layers.insert(0, Scale(0.5))
    assert names(h) == ["layers.0.w", "layers.1.w", "layers.2.w", "layers.3.w"]
    assert [c.value for c in h.layers] == [0.5, 1.0, 2.0, 3.0]
    del h.layers[1]
    assert [c.value for c in h.layers] == [0.5, 2.0, 3.0]
    assert names(h) == ["layers.0.w", "layers.1.w", "layers.2.w"]
    assert list(h.layers.name_cells()) == ["0", "1", "2"]
    h.layers[2] = Scale(9.0)
    assert h.layers[2].w.name == "layers.2.w"
    del h.layers[0:2]
    assert len(h.layers) == 1 and h.layers[0].value == 9.0
    assert_close(h.layers(ms.Tensor(np.ones(1, np.float32))), [9.0])


def test_celllist_semantics():
    cl = nn.CellList([Scale(1.0)])
    cl.append(Scale(2.0))
    cl.extend([Scale(3.0), Scale(4.0)])
    cl += [Scale(5.0)]
    cl.insert(-1, Scale(4.5))
    assert [c.value for c in cl] == [1.0, 2.0, 3.0, 4.0, 4.5, 5.0]
    assert len(cl) == 6 and cl[-2].value == 4.5
    assert isinstance(cl[1:3], nn.CellList) and [c.value for c in cl[1:3]] == [2.0, 3.0]
    assert names(cl) == [f"{i}.w" for i in range(6)]
    with pytest.raises(TypeError):
        cl.append(1)
    with pytest.raises(TypeError):
        cl.extend(Scale(1.0))
    with pytest.raises(AttributeError, match="'construct' is not defined"):
        cl(1)
    assert not nn.CellList() and nn.CellList(auto_prefix=False)._auto_prefix is False


def test_celldict_semantics():
    cd = nn.CellDict({"a": Scale(1.0), "b": Scale(2.0)})
    cd["c"] = Scale(3.0)
    assert list(cd) == ["a", "b", "c"] and "b" in cd and len(cd) == 3
    assert [k for k, _ in cd.items()] == ["a", "b", "c"]
    assert cd.pop("b").value == 2.0 and list(cd.keys()) == ["a", "c"]
    del cd["a"]
    assert [c.value for c in cd.values()] == [3.0]
    cd.update([("d", Scale(4.0))])
    h = Holder(cd)
    assert names(h) == ["layers.c.w", "layers.d.w"]
    with pytest.raises(KeyError):
        cd["x.y"] = Scale(1.0)
    with pytest.raises(KeyError):
        cd["training"] = Scale(1.0)
    with pytest.raises(TypeError):
        cd[1] = Scale(1.0)
    with pytest.raises(TypeError):
        cd["z"] = 1
    cd.clear()
    assert len(cd) == 0


def test_container_repr():
    h = Holder(nn.SequentialCell([Scale(1.0)]))
    assert repr(h) == "Holder(\n  (layers): SequentialCell(\n    (0): Scale(value=1.0)\n  )\n)"
