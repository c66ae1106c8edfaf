"""Device matrices for operator-level sharding: which block of each tensor this rank holds, and which ranks
share a block (the groups the redistribution collectives run over).

A sharded operator's dimensions get labels (MatMul ((a, b), (b, c)): rows i split a, contraction j split b,
columns k split c). The device matrix is `[repeat] + [split of each label]`, ranks laid out row-major (the last
label varies fastest), as MindSpore arranges its device matrix; `repeat` = devices / product of the splits copies
the whole computation (MindSpore's "repeated calculation"). A rank's coordinate on a label says which block of
that label's dimensions it holds.

>>> dm = DeviceMatrix([2, 2, 1], world_size=4)
>>> dm.shape, dm.coords(3)
((1, 2, 2, 1), (0, 1, 1, 0))
>>> dm.ranks_varying([1], rank=3)      # ranks that differ from rank 3 only in label 0 (rows)
[1, 3]
"""


class DeviceMatrix:
    """`[repeat] + splits` over `world_size` ranks; axis 0 is the repeat axis, axis 1 + t is label t."""

    def __init__(self, splits, world_size):
        splits = [int(s) for s in splits]
        used = 1
        for s in splits:
            used *= s
        if used < 1 or world_size % used:
            raise ValueError(f"The strategy splits the tensors into {splits} blocks ({used} devices), which must "
                             f"divide the {world_size} devices of the job.")
        self.splits = splits
        self.world_size = world_size
        self.shape = tuple([world_size // used] + splits)

    def coords(self, rank):
        out = []
        for size in reversed(self.shape):
            out.append(rank % size)
            rank //= size
        return tuple(reversed(out))

    def rank_of(self, coords):
        rank = 0
        for size, c in zip(self.shape, coords):
            rank = rank * size + c
        return rank

    def ranks_varying(self, axes, rank):
        """World ranks equal to `rank` on every device-matrix axis except `axes` (sorted: group-rank order)."""
        base = list(self.coords(rank))
        out = [[]]
        for axis, size in enumerate(self.shape):
            out = [r + [c] for r in out for c in (range(size) if axis in axes else [base[axis]])]
        return sorted(self.rank_of(c) for c in out)

    def partition(self, axes):
        """All groups of ranks varying along `axes` (each rank in exactly one), in a fixed order."""
        seen, groups = set(), []
        for rank in range(self.world_size):
            if rank not in seen:
                group = self.ranks_varying(axes, rank)
                seen.update(group)
                groups.append(group)
        return groups


def block_slices(full_shape, splits, coords):
    """Python slices of the block at `coords` (one per dimension) when dimension d is cut into splits[d]."""
    out = []
    for size, s, c in zip(full_shape, splits, coords):
        if size % s:
            raise ValueError(f"A dimension of size {size} cannot be split into {s} equal slices "
                             f"(shape {tuple(full_shape)}, strategy {tuple(splits)}).")
        step = size // s
        out.append(slice(c * step, (c + 1) * step))
    return tuple(out)
