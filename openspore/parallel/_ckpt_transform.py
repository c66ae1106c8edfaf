"""Distributed checkpoints: per-rank checkpoints of a sharded run, re-cut for another layout or rank count.

Every rank of a semi-auto run saves its own slices (`save_checkpoint(net, "rank_<r>/net.ckpt")`) and the run
writes a strategy file (`strategy_ckpt_config={"save_file": ...}`). A strategy file says, per parameter, the
device matrix, the tensor map and the slice shape; from those, the block any rank holds follows (ranks laid
out row-major on the device matrix). So the full tensors can be put together from the ranks' checkpoints
(`_merge`) and cut again for any destination strategy (`_cut_for_rank`); a missing strategy file means
"nothing is cut" (one rank holds everything).

>>> import numpy as np
>>> layouts = {"w": ((1, 2), (0, -1), (4, 3))}            # rows of w split over 2 ranks
>>> [block.shape for block in (_block(np.zeros((4, 3)), layouts["w"], r) for r in (0, 1))]
[(2, 3), (2, 3)]
>>> rank_list_for_transform(0, None, None)
[0]
"""
import os
import re

import numpy as np

from ..core.tensor import Tensor
from ..train.serialization import load_checkpoint, load_param_into_net, save_checkpoint
from ._layout import block_slices
from ._param_shard import ShardLayout, slice_parameter
from ._strategy_file import layouts_from_file


def _coords(layout, rank):
    """Block coordinates (one per tensor dimension) of `rank` under (device_matrix, tensor_map, full_shape)."""
    dm, tmap, _ = layout
    dev = []
    r = rank
    for size in reversed(dm):
        dev.append(r % size)
        r //= size
    dev.reverse()
    return tuple(0 if t < 0 else dev[len(dm) - 1 - t] for t in tmap)


def _splits(layout):
    dm, tmap, _ = layout
    return tuple(1 if t < 0 else dm[len(dm) - 1 - t] for t in tmap)


def _block(full, layout, rank):
    return full[block_slices(layout[2], _splits(layout), _coords(layout, rank))]


def _rank_count(layouts):
    counts = [int(np.prod(dm)) for dm, _, _ in layouts.values()]
    return max(counts) if counts else 1


def _merge(rank_params, layouts):
    """{name: full numpy array} from {rank: {name: numpy array}} cut as `layouts` says."""
    full = {}
    for rank in sorted(rank_params):
        for name, value in rank_params[rank].items():
            layout = layouts.get(name)
            if layout is None:
                full.setdefault(name, value)
                continue
            if name not in full:
                full[name] = np.zeros(layout[2], value.dtype)
            full[name][block_slices(layout[2], _splits(layout), _coords(layout, rank))] = value
    missing = {name for name in layouts if name in full}
    for name in missing:  # every block must have come from some rank
        needed = {_coords(layouts[name], r) for r in range(_rank_count({name: layouts[name]}))}
        have = {_coords(layouts[name], r) for r in rank_params if name in rank_params[r]}
        if not needed <= have:
            raise ValueError(f"The checkpoints given do not hold every slice of parameter '{name}': blocks "
                             f"{sorted(needed - have)} are missing (pass the checkpoints of more ranks).")
    return full


def _cut_for_rank(full, layouts, rank):
    return {name: (_block(value, layouts[name], rank) if name in layouts else value) for name, value in full.items()}


def _load_arrays(path):
    return {name: p.asnumpy() for name, p in load_checkpoint(path).items() if hasattr(p, "asnumpy")}


def _save_arrays(arrays, path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    save_checkpoint([{"name": n, "data": Tensor(v)} for n, v in arrays.items()], path)


def _rank_dirs(api, src_checkpoints_dir):
    if not isinstance(src_checkpoints_dir, str) or not os.path.isdir(src_checkpoints_dir):
        raise NotADirectoryError(f"For '{api}', '{src_checkpoints_dir}' is not a directory.")
    files = {}
    for entry in os.listdir(src_checkpoints_dir):
        match = re.fullmatch(r"rank_(\d+)", entry)
        folder = os.path.join(src_checkpoints_dir, entry)
        if match and os.path.isdir(folder):
            ckpts = sorted(f for f in os.listdir(folder) if f.endswith(".ckpt"))
            if ckpts:  # MindSpore's rule: the name that sorts last
                files[int(match.group(1))] = os.path.join(folder, ckpts[-1])
    if not files:
        raise ValueError(f"For '{api}', no checkpoint in '{src_checkpoints_dir}' (expected "
                         f"rank_<id>/<name>.ckpt).")
    return files


def transform_checkpoints(src_checkpoints_dir, dst_checkpoints_dir, ckpt_prefix, src_strategy_file=None,
                          dst_strategy_file=None, process_num=1, output_format="ckpt"):
    """Re-cut the checkpoints under `src_checkpoints_dir/rank_<r>/` from the source strategy to the destination
    one, writing `dst_checkpoints_dir/rank_<r>/<ckpt_prefix><r>.ckpt` for every destination rank."""
    for name, value in (("src_strategy_file", src_strategy_file), ("dst_strategy_file", dst_strategy_file)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"For 'transform_checkpoints', '{name}' must be a str or None.")
    if output_format != "ckpt":
        raise ValueError("For 'transform_checkpoints', openspore writes output_format='ckpt' only.")
    src_layouts = layouts_from_file("transform_checkpoints", src_strategy_file)
    dst_layouts = layouts_from_file("transform_checkpoints", dst_strategy_file)
    files = _rank_dirs("transform_checkpoints", src_checkpoints_dir)
    full = _merge({r: _load_arrays(path) for r, path in files.items()}, src_layouts)
    os.makedirs(dst_checkpoints_dir, exist_ok=True)
    for rank in range(_rank_count(dst_layouts)):
        _save_arrays(_cut_for_rank(full, dst_layouts, rank),
                     os.path.join(dst_checkpoints_dir, f"rank_{rank}", f"{ckpt_prefix}{rank}.ckpt"))


def rank_list_for_transform(rank_id, src_strategy_file=None, dst_strategy_file=None):
    """The source ranks whose checkpoints destination rank `rank_id` needs (one rank per distinct block)."""
    src = layouts_from_file("rank_list_for_transform", src_strategy_file)
    dst = layouts_from_file("rank_list_for_transform", dst_strategy_file)
    needed = {0}
    for name, layout in src.items():
        full_shape = layout[2]
        want = block_slices(full_shape, _splits(dst[name]), _coords(dst[name], rank_id)) if name in dst else \
            tuple(slice(0, s) for s in full_shape)
        seen = set()
        for rank in range(_rank_count({name: layout})):
            coords = _coords(layout, rank)
            have = block_slices(full_shape, _splits(layout), coords)
            overlaps = all(a.start < b.stop and b.start < a.stop for a, b in zip(have, want))
            if overlaps and coords not in seen:
                seen.add(coords)
                needed.add(rank)
    return sorted(needed)


def transform_checkpoint_by_rank(rank_id, checkpoint_files_map, save_checkpoint_file_name, src_strategy_file=None,
                                 dst_strategy_file=None):
    """Write destination rank `rank_id`'s checkpoint from {source rank: checkpoint file}."""
    if not isinstance(checkpoint_files_map, dict):
        raise TypeError("For 'transform_checkpoint_by_rank', 'checkpoint_files_map' must be a dict "
                        "{source rank: checkpoint file}.")
    src = layouts_from_file("transform_checkpoint_by_rank", src_strategy_file)
    dst = layouts_from_file("transform_checkpoint_by_rank", dst_strategy_file)
    full = _merge({int(r): _load_arrays(p) for r, p in checkpoint_files_map.items()}, src)
    _save_arrays(_cut_for_rank(full, dst, rank_id), save_checkpoint_file_name)


def _predict_layouts(network, predict_strategy):
    if predict_strategy is None:
        return {}
    if isinstance(predict_strategy, str):
        return layouts_from_file("load_distributed_checkpoint", predict_strategy)
    if not isinstance(predict_strategy, dict):
        raise TypeError("For 'load_distributed_checkpoint', 'predict_strategy' must be a dict {name: [dev_matrix, "
                        "tensor_map, param_split_shape, ...]} or a strategy file name.")
    shapes = {p.name: p.shape for p in network.get_parameters()}
    out = {}
    for name, entry in predict_strategy.items():
        dm, tmap = tuple(entry[0]), tuple(entry[1])
        out[name] = (dm, tmap, tuple(shapes.get(name, entry[2] if len(entry) > 2 else ())))
    return out


def load_distributed_checkpoint(network, checkpoint_filenames, predict_strategy=None, train_strategy_filename=None,
                                strict_load=False, dec_key=None, dec_mode="AES-GCM", format="ckpt", **kwargs):
    """Load the per-rank checkpoints of a sharded run (`checkpoint_filenames` in rank order) into `network`:
    the full tensors are put together with the training strategy, then every parameter takes this rank's
    block — of the layout it is already sliced with, or of `predict_strategy`, or the whole tensor."""
    from ..ops.defs import _comm_world as world
    if not isinstance(checkpoint_filenames, (list, tuple)) or not checkpoint_filenames:
        raise TypeError("For 'load_distributed_checkpoint', 'checkpoint_filenames' must be a non-empty list of "
                        "checkpoint files in rank order.")
    train = layouts_from_file("load_distributed_checkpoint", train_strategy_filename)
    full = _merge({r: _load_arrays(p) for r, p in enumerate(checkpoint_filenames)}, train)
    predict = _predict_layouts(network, predict_strategy)
    rank = world.state()["rank"]
    values = {}
    for p in network.get_parameters():
        if p.name not in full:
            continue
        layout = getattr(p, "shard_layout", None)
        if layout is None and p.name in predict:
            dm, tmap, full_shape = predict[p.name]
            slice_parameter(p, ShardLayout(full_shape, dm, tmap, _coords(predict[p.name], rank)))
            layout = p.shard_layout
        value = full[p.name]
        if layout is not None:
            value = value[block_slices(layout.full_shape, layout.splits, layout.coords)]
        values[p.name] = Tensor(np.ascontiguousarray(value))
    return load_param_into_net(network, values, strict_load=strict_load)


def get_ckpt_path_with_strategy(cur_ckpt_path, cur_strategy_path):
    """A checkpoint holding the same slices as `cur_ckpt_path` (`.../rank_<r>/<file>`): itself when it exists,
    else the same file of another rank whose blocks are identical under the strategy; None if there is none."""
    if os.path.isfile(cur_ckpt_path):
        return cur_ckpt_path
    folder, fname = os.path.split(os.path.abspath(cur_ckpt_path))
    match = re.fullmatch(r"rank_(\d+)", os.path.basename(folder))
    if not match:
        raise ValueError(f"For 'get_ckpt_path_with_strategy', '{cur_ckpt_path}' must lie in a 'rank_<id>' folder.")
    rank = int(match.group(1))
    layouts = layouts_from_file("get_ckpt_path_with_strategy", cur_strategy_path)
    for other in range(_rank_count(layouts)):
        if other != rank and all(_coords(lay, other) == _coords(lay, rank) for lay in layouts.values()):
            candidate = os.path.join(os.path.dirname(folder), f"rank_{other}", fname)
            if os.path.isfile(candidate):
                return candidate
    return None


def load_segmented_checkpoints(ckpt_file_dir, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                               dec_mode="AES-GCM", specify_prefix=None, choice_func=None):
    """All checkpoints in `ckpt_file_dir` (segments of one model) as one dict name -> Parameter; with `net`,
    loaded into it."""
    if not isinstance(ckpt_file_dir, str) or not os.path.isdir(ckpt_file_dir):
        raise NotADirectoryError(f"For 'load_segmented_checkpoints', '{ckpt_file_dir}' is not a directory.")
    merged = {}
    for fname in sorted(f for f in os.listdir(ckpt_file_dir) if f.endswith(".ckpt")):
        merged.update(load_checkpoint(os.path.join(ckpt_file_dir, fname), filter_prefix=filter_prefix,
                                      dec_key=dec_key, dec_mode=dec_mode, specify_prefix=specify_prefix,
                                      choice_func=choice_func))
    if not merged:
        raise ValueError(f"For 'load_segmented_checkpoints', no checkpoint (*.ckpt) in '{ckpt_file_dir}'.")
    if net is not None:
        load_param_into_net(net, merged, strict_load=strict_load)
    return merged


# MindSpore 2.5's names for the same conversion
convert_checkpoints = transform_checkpoints
convert_checkpoint_by_rank = transform_checkpoint_by_rank
rank_list_for_convert = rank_list_for_transform
