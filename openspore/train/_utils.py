"""`mindspore.train._utils`: which ranks of a sharded job hold the same slice of each parameter, and which rank
should save which parameter so that every slice is written `keep_redundancy` times and no more.

A layout is MindSpore's `(device_matrix, tensor_map, slice_shape, field, uniform_split, opt_shard_group)` tuple
(the values of `Cell.parameter_layout_dict`, or a strategy file). Ranks are laid out row-major over the device
matrix; `tensor_map[d]` names the device-matrix axis, counted from the right, that cuts tensor dimension d (-1:
not cut). Ranks that differ only along axes no dimension uses hold the same slice. The optimizer-shard group is
not taken into account (MindSpore 2.10 gives the same groups with or without it).

>>> groups = get_parameter_redundancy({"w": ([2, 2], [0, -1], [2, 4], 0, True, ""), "b": ([2, 2], [-1], [4], 0,
...                                     True, "")})
>>> groups
{'b': ((0, 1, 2, 3),), 'w': ((0, 2), (1, 3))}
>>> {rank: sorted(names) for rank, names in remove_param_redundancy(groups).items()}
{0: ['b', 'w'], 1: ['w']}
"""
import itertools


def _layouts(api, layout_obj):
    if isinstance(layout_obj, str):
        from ..parallel._strategy_file import layouts_from_file
        return {name: (dm, tmap) for name, (dm, tmap, _) in layouts_from_file(api, layout_obj).items()}
    if not isinstance(layout_obj, dict):
        raise TypeError(f"For '{api}', 'layout_obj' must be the path of a strategy file or a dict of parameter "
                        f"layouts (Cell.parameter_layout_dict), but got {type(layout_obj).__name__}.")
    out = {}
    for name, layout in layout_obj.items():
        if not isinstance(layout, (tuple, list)) or len(layout) < 2:
            raise ValueError(f"For '{api}', the layout of {name!r} must start with (device_matrix, tensor_map), "
                             f"but got {layout!r}.")
        out[name] = (tuple(int(d) for d in layout[0]), tuple(int(t) for t in layout[1]))
    return out


def _same_slice_groups(device_matrix, tensor_map, first_rank):
    """Groups of ranks holding the same slice, ordered by the slice's coordinates on the cutting axes (the
    rightmost cutting axis slowest), each group in rank order."""
    used = sorted({len(device_matrix) - 1 - t for t in tensor_map if t >= 0}, reverse=True)
    groups = {}
    for rank, coords in enumerate(itertools.product(*(range(d) for d in device_matrix))):
        groups.setdefault(tuple(coords[axis] for axis in used), []).append(first_rank + rank)
    return tuple(tuple(groups[key]) for key in sorted(groups))


def get_parameter_redundancy(layout_obj, initial_rank=None):
    """{parameter name: groups of ranks that hold the same slice}, by parameter name; `layout_obj` is a
    strategy file's path or `Cell.parameter_layout_dict`; `initial_rank` (default 0) is the first rank's id."""
    first = 0 if initial_rank is None else int(initial_rank)
    layouts = _layouts("get_parameter_redundancy", layout_obj)
    return {name: _same_slice_groups(*layouts[name], first) for name in sorted(layouts)}


def remove_param_redundancy(param_redundancy_dict, keep_redundancy=1):
    """{rank: set of parameter names that rank saves}: from each group of ranks holding a slice, `keep_redundancy`
    ranks save it; parameters sharing one group structure take turns, so the saving is spread over the ranks."""
    if isinstance(keep_redundancy, bool) or not isinstance(keep_redundancy, int) or keep_redundancy < 1:
        raise ValueError(f"For 'remove_param_redundancy', 'keep_redundancy' must be a positive int, but got "
                         f"{keep_redundancy!r}.")
    turns, starts = {}, {}
    for name, groups in param_redundancy_dict.items():
        starts[name] = turns.get(groups, 0)
        turns[groups] = starts[name] + 1
    out = {}
    for k in range(keep_redundancy):  # every parameter's first copy, then every second copy (MindSpore's order)
        for name, groups in param_redundancy_dict.items():
            for group in groups:
                out.setdefault(group[(starts[name] + k) % len(group)], set()).add(name)
    return out
