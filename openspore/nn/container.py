"""Cell containers: SequentialCell, CellList, CellDict (facts §1.6).

Children of SequentialCell and CellList are keyed '0', '1', …; their parameters are named by the full path
(`layers.0.weight`), and stay so when cells are appended, inserted or deleted later (re-keyed cells are renamed
under the container's own prefix).

>>> from openspore import nn
>>> seq = nn.SequentialCell([nn.Cell(), nn.Cell()])
>>> len(seq), list(seq.name_cells())
(2, ['0', '1'])
"""
from collections import OrderedDict
from collections.abc import Mapping

from .cell import Cell


def _check_cell(cell, owner):
    if not isinstance(cell, Cell):
        raise TypeError(f"For '{owner}', each cell must be subclass of Cell, but got {type(cell).__name__}.")
    return cell


def _check_index(index, length, owner, insert=False):
    """Normalise a list index; for insert, `length` itself (append) is allowed and -1 means before the last."""
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"For '{owner}', the index should be an int, but got {type(index).__name__}.")
    upper = length + 1 if insert else length
    if not -length <= index < upper:
        raise IndexError(f"For '{owner}', the index should be in range [{-length}, {upper}), but got {index}.")
    return index + length if index < 0 else index


class _IndexedContainer(Cell):
    """Shared list behaviour: children in `_cells` in order, with dynamic names '0'..'n-1' where generated."""

    def _name_child(self, key, cell):
        if self._auto_prefix:
            cell.update_parameters_name(self._param_prefix + key + ".")

    def _refresh(self):
        self.__dict__["cell_list"] = list(self._cells.values())

    def _rekey(self, items):
        """Rebuild `_cells` from (key or None, cell) pairs; None keys become their position (renamed)."""
        self._cells.clear()
        for position, (key, cell) in enumerate(items):
            if key is None:
                key = str(position)
                self._name_child(key, cell)
            self._cells[key] = cell
        self._refresh()

    def _items(self):
        """(key if the key is user-given else None, cell) pairs."""
        return [(None if key.isdigit() else key, cell) for key, cell in self._cells.items()]

    def __len__(self):
        return len(self._cells)

    def __bool__(self):
        return len(self._cells) != 0

    def __iter__(self):
        return iter(list(self._cells.values()))

    def __delitem__(self, index):
        items = self._items()
        if isinstance(index, slice):
            drop = set(range(len(items))[index])
        else:
            drop = {_check_index(index, len(items), self.cls_name)}
        self._rekey([(key, cell) for i, (key, cell) in enumerate(items) if i not in drop])

    def _insert_at(self, index, cell):
        items = self._items()
        index = _check_index(index, len(items), self.cls_name, insert=True)
        items.insert(index, (None, _check_cell(cell, self.cls_name)))
        self._rekey(items)

    def append(self, cell):
        """Add `cell` at the end."""
        key = str(len(self._cells))
        self._name_child(key, _check_cell(cell, self.cls_name))
        self._cells[key] = cell
        self._refresh()
        return self

    def extend(self, cells):
        """Append every cell of an iterable."""
        if isinstance(cells, Cell) or not hasattr(cells, "__iter__"):
            raise TypeError(f"For '{self.cls_name}.extend', the argument should be an iterable of Cells, "
                            f"but got {type(cells).__name__}.")
        for cell in cells:
            self.append(cell)
        return self

    def insert(self, index, cell):
        """Insert `cell` before position `index`."""
        self._insert_at(index, cell)

    def _slice(self, index):
        """A new container holding the selected cells; parameter names are left as they are."""
        new = type(self).__new__(type(self))
        Cell.__init__(new, self._auto_prefix)
        for i, (key, cell) in enumerate(list(self._cells.items())[index]):
            new._cells[key if not key.isdigit() else str(i)] = cell
        new._refresh()
        return new

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self._slice(index)
        keys = list(self._cells)
        return self._cells[keys[_check_index(index, len(keys), self.cls_name)]]

    def __setitem__(self, index, cell):
        keys = list(self._cells)
        key = keys[_check_index(index, len(keys), self.cls_name)]
        self._name_child(key, _check_cell(cell, self.cls_name))
        self._cells[key] = cell
        self._refresh()


class SequentialCell(_IndexedContainer):
    """`SequentialCell(*args)`: runs its cells in order. Accepts cells as varargs, a list, or an OrderedDict
    (its keys become the child names)."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            items = [(None, c) for c in args[0]]
        elif len(args) == 1 and isinstance(args[0], OrderedDict):
            items = list(args[0].items())
        elif len(args) == 1 and not isinstance(args[0], Cell):  # a plain dict has no order to MindSpore
            raise TypeError(f"For 'SequentialCell', the 'args[0]' must be Cell, list or orderedDict, but got "
                            f"{type(args[0]).__name__}")
        else:
            items = [(None, c) for c in args]
        for position, (key, cell) in enumerate(items):
            _check_cell(cell, "SequentialCell")
            if key is None:
                key = str(position)
            self.insert_child_to_cell(key, cell)
            self._name_child(key, cell)
        self._refresh()

    def construct(self, input_data):
        for cell in self.cell_list:
            input_data = cell(input_data)
        return input_data


class CellList(_IndexedContainer):
    """`CellList(*args, **kwargs)`: a list of cells (not callable itself); `CellList([a, b])`, `auto_prefix=` kwarg."""

    def __init__(self, *args, **kwargs):
        auto_prefix = kwargs.pop("auto_prefix", True)
        if kwargs:
            raise TypeError(f"For 'CellList', unexpected keyword arguments {sorted(kwargs)}.")
        super().__init__(auto_prefix)
        self._refresh()
        if len(args) == 1:
            self.extend(args[0])
        elif args:
            raise TypeError(f"For 'CellList', expected at most one iterable of Cells, but got {len(args)} arguments.")

    def __iadd__(self, cells):
        return self.extend(cells)


class CellDict(Cell):
    """`CellDict(*args, **kwargs)`: cells keyed by string, in insertion order (not callable itself)."""

    def __init__(self, *args, **kwargs):
        auto_prefix = kwargs.pop("auto_prefix", True)
        if kwargs:
            raise TypeError(f"For 'CellDict', unexpected keyword arguments {sorted(kwargs)}.")
        super().__init__(auto_prefix)
        if len(args) == 1:
            self.update(args[0])
        elif args:
            raise TypeError(f"For 'CellDict', expected at most one mapping of Cells, but got {len(args)} arguments.")

    def _check_key(self, key):
        if not isinstance(key, str):
            raise TypeError(f"For 'CellDict', the key should be a str, but got {type(key).__name__}.")
        if not key or "." in key:
            raise KeyError(f"For 'CellDict', the key should be a non-empty str without '.', but got {key!r}.")
        if key not in self._cells and (hasattr(type(self), key) or key in self.__dict__ or key in self._params):
            raise KeyError(f"For 'CellDict', the key {key!r} is already an attribute of the cell.")

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        self._check_key(key)
        _check_cell(cell, "CellDict")
        if self._auto_prefix:
            cell.update_parameters_name(self._param_prefix + key + ".")
        self._cells[key] = cell

    def __delitem__(self, key):
        del self._cells[key]

    def __len__(self):
        return len(self._cells)

    def __bool__(self):
        return len(self._cells) != 0

    def __iter__(self):
        return iter(list(self._cells))

    def __contains__(self, key):
        return key in self._cells

    def clear(self):
        self._cells.clear()

    def pop(self, key):
        """Remove `key` and return its cell."""
        return self._cells.pop(key)

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def update(self, cells):
        """Add cells from a mapping, a CellDict or an iterable of (key, cell) pairs."""
        if isinstance(cells, (Mapping, CellDict)):
            pairs = list(cells.items())
        else:
            pairs = []
            for i, pair in enumerate(cells):
                if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                    raise TypeError(f"For 'CellDict.update', element {i} should be a (key, cell) pair, but got {pair!r}.")
                pairs.append(tuple(pair))
        for key, cell in pairs:
            self[key] = cell


__all__ = ["SequentialCell", "CellList", "CellDict"]
