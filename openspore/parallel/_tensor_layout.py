"""The layout of a tensor that stays sharded between operators: which block of it each rank holds.

A sharded operator's result keeps the layout its strategy gives it (rows split, columns split, ...) instead of
being gathered back; the next operator takes it from there and the redistribution (`_redistribute`) moves data
only where the two layouts differ. A layout is a device matrix (`_layout.DeviceMatrix`, ranks row-major) and,
per tensor dimension, the device-matrix axis that splits it (None: not split). The value a rank holds is its
block, a plain local tensor; the layout rides along on the tensor object (`tag` / `layout_of`), in PyNative and
while tracing a graph alike. An untagged tensor is replicated (every rank holds all of it).

>>> from openspore.parallel._layout import DeviceMatrix
>>> rows = TensorLayout(DeviceMatrix([2, 2], 4), (1, None))      # rows split along axis 1 of a (1, 2, 2) matrix
>>> rows.splits, [rows.block(r)[0] for r in range(4)]
((2, 1), [0, 0, 1, 1])
>>> rows.describe()
'dev_matrix=(1, 2, 2) tensor_map=(1, -1)'
>>> rows.same_cut(TensorLayout(DeviceMatrix([2], 4), (1, None)))   # (2, 2): the rows go to ranks 0, 2 | 1, 3
False
"""
from ._layout import DeviceMatrix

_KEY = "_dist_layout"


class TensorLayout:
    """`TensorLayout(dm, tmap)`: dimension d of the tensor is split along device-matrix axis tmap[d] (or not)."""

    def __init__(self, dm, tmap):
        self.dm = dm
        self.tmap = tuple(tmap)
        used = [a for a in self.tmap if a is not None]
        if len(set(used)) != len(used):
            raise ValueError(f"A device-matrix axis splits more than one dimension in tensor map {self.tmap}.")

    @property
    def ndim(self):
        return len(self.tmap)

    @property
    def splits(self):
        return tuple(1 if a is None else self.dm.shape[a] for a in self.tmap)

    def block(self, rank):
        """Per dimension, the index of the block `rank` holds."""
        coords = self.dm.coords(rank)
        return tuple(0 if a is None else coords[a] for a in self.tmap)

    def same_dim_cut(self, other, d):
        """Whether dimension d is cut the same way, every rank holding the same block of it, in both layouts."""
        if self.splits[d] != other.splits[d]:
            return False
        if self.splits[d] == 1:
            return True
        return all(self.block(r)[d] == other.block(r)[d] for r in range(self.dm.world_size))

    def same_cut(self, other):
        return self.ndim == other.ndim and all(self.same_dim_cut(other, d) for d in range(self.ndim))

    @property
    def is_replicated(self):
        return all(a is None for a in self.tmap)

    def describe(self):
        """MindSpore's notation: the device matrix and the tensor map (axes counted from the right, -1 = none)."""
        size = len(self.dm.shape)
        tmap = tuple(-1 if a is None else size - 1 - a for a in self.tmap)
        return f"dev_matrix={self.dm.shape} tensor_map={tmap}"

    def __repr__(self):
        return f"TensorLayout({self.describe()})"


def replicated(ndim, world_size):
    return TensorLayout(DeviceMatrix([], world_size), (None,) * ndim)


def tag(t, layout):
    """Attach `layout` to the local block `t` (None or a replicated layout: untagged); returns t."""
    if layout is None or layout.is_replicated:
        t.__dict__.pop(_KEY, None)
    else:
        t.__dict__[_KEY] = layout
    return t


def layout_of(t):
    """The layout a tensor carries, or None (replicated / not a tensor)."""
    d = getattr(t, "__dict__", None)
    return None if d is None else d.get(_KEY)
