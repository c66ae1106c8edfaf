"""Strategy files: how each sharded parameter is cut, in MindSpore's protobuf format (node_strategy.proto,
ParallelStrategyMap with one ParallelLayoutItem per parameter: device matrix, tensor map, slice shape).

A semi-auto run writes its file when `set_auto_parallel_context(strategy_ckpt_config={"save_file": path})`
(or `strategy_ckpt_save_file=path`) is set: after every parameter slicing and when the process exits (the
names are final by then). Besides the parameters' layouts it holds each sharded operator's strategy
(ParallelStrategyItem), named `<Primitive>-<attribute name>(<parameters it takes>)`, e.g.
`MatMul-mm1(w1)`. A run with `strategy_ckpt_config={"load_file": path}` (or `strategy_ckpt_load_file=path`)
uses the file's strategy for every operator of that name, whether or not its own `shard` gave one (so
parameters are sliced as in the saved run). `build_searched_strategy` reads a file back;
`merge_pipeline_strategys` joins the files of several pipeline stages.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "strategy.ckpt")
>>> write_strategy_file(path, {"w": ShardLayout((4, 2), (1, 2), (0, -1), (0, 0))})
>>> build_searched_strategy(path)["w"].param_split_shape[0].dim[:]
[2, 2]
"""
import atexit
import os

from .. import context
from ..common.files import write_atomic
from ..core.parameter import Parameter
from . import node_strategy_pb2 as pb
from ._param_shard import ON_SLICE, ShardLayout, sliced_parameters


def _check_file(api, path):
    if not isinstance(path, str):
        raise TypeError(f"For '{api}', the strategy file name must be a str, but got {type(path).__name__}.")
    if not os.path.isfile(path):
        raise ValueError(f"For '{api}', the strategy file '{path}' does not exist.")


_OP_STRATEGIES = {}  # operator name (op_key) -> in_strategy used by this process
_LOADED = {}  # path -> (mtime, {operator name: in_strategy})
_LAST_LAYOUTS = {}  # path -> the parameter layouts written there last


def op_key(prim, args):
    """The name an operator's strategy is saved and loaded under: primitive, attribute name, parameters."""
    params = ",".join(a.name for a in args if isinstance(a, Parameter))
    return f"{prim.name}-{prim.instance_name or 'op'}({params})"


def record_op_strategy(name, strategy):
    if strategy is not None:
        _OP_STRATEGIES[name] = tuple(tuple(s) for s in strategy)


def _load_target():
    config = context.get_auto_parallel_context("strategy_ckpt_config") or {}
    return config.get("load_file") or context.get_auto_parallel_context("strategy_ckpt_load_file") or None


def loaded_strategy(prim, args):
    """The strategy the configured load file gives this operator, or None."""
    path = _load_target()
    if not path:
        return None
    mtime = os.path.getmtime(path) if os.path.isfile(path) else None
    cached = _LOADED.get(path)
    if cached is None or cached[0] != mtime:
        message = _read("strategy_ckpt_config load_file", path)
        table = {item.node_name: tuple(tuple(s.dim) for s in item.parallel_strategys.parallel_strategy)
                 for item in message.parallel_strategy_item}
        cached = _LOADED[path] = (mtime, table)
    return cached[1].get(op_key(prim, args))


def write_strategy_file(path, layouts, stage=0, op_strategies=None):
    """Write {name: ShardLayout} (and {operator name: in_strategy}) as a ParallelStrategyMap."""
    message = pb.ParallelStrategyMap(current_stage=stage)
    for name in sorted(op_strategies or {}):
        item = message.parallel_strategy_item.add(node_name=name)
        item.parallel_strategys.stage = stage
        for dims in op_strategies[name]:
            item.parallel_strategys.parallel_strategy.add().dim.extend(dims)
    for name in sorted(layouts):
        layout = layouts[name]
        item = message.parallel_layout_item.add(param_name=name)
        item.parallel_layouts.field = 0
        item.parallel_layouts.dev_matrix.add().dim.extend(layout.device_matrix)
        item.parallel_layouts.tensor_map.add().dim.extend(layout.tensor_map)
        item.parallel_layouts.param_split_shape.add().dim.extend(layout.slice_shape)
        item.parallel_layouts.indices_offset.add()
    _write(path, message)


def _write(path, message):
    # every rank may write the same file: each writes its own temporary, then renames it over the file
    mine = f"{path}.{os.getpid()}"
    write_atomic(mine, [message.SerializeToString()], read_only=False)
    os.replace(mine, path)


def _read(api, path):
    _check_file(api, path)
    message = pb.ParallelStrategyMap()
    try:
        with open(path, "rb") as f:
            message.ParseFromString(f.read())
    except Exception as exc:  # noqa: BLE001 - protobuf raises its DecodeError or others; say which file
        raise ValueError(f"For '{api}', '{path}' is not a strategy file (ParallelStrategyMap protobuf): {exc}") \
            from exc
    return message


def build_searched_strategy(strategy_filename):
    """`build_searched_strategy(strategy_filename)`: {parameter name: ParallelLayouts} from a strategy file."""
    message = _read("build_searched_strategy", strategy_filename)
    return {item.param_name: item.parallel_layouts for item in message.parallel_layout_item}


def layouts_from_file(api, path):
    """{name: (device_matrix, tensor_map, full_shape)} of a strategy file (None: no file = nothing is cut)."""
    if path is None:
        return {}
    out = {}
    for item in _read(api, path).parallel_layout_item:
        lay = item.parallel_layouts
        dm, tmap = tuple(lay.dev_matrix[0].dim), tuple(lay.tensor_map[0].dim)
        splits = [1 if t < 0 else dm[len(dm) - 1 - t] for t in tmap]
        out[item.param_name] = (dm, tmap, tuple(s * k for s, k in zip(lay.param_split_shape[0].dim, splits)))
    return out


def merge_pipeline_strategys(src_strategy_dirs, dst_strategy_file):
    """`merge_pipeline_strategys(src_strategy_dirs, dst_strategy_file)`: join the strategy files found in
    `src_strategy_dirs` (one per pipeline stage) into one file."""
    if not isinstance(src_strategy_dirs, str) or not os.path.isdir(src_strategy_dirs):
        raise NotADirectoryError(f"For 'merge_pipeline_strategys', 'src_strategy_dirs' must be a directory, got "
                                 f"{src_strategy_dirs!r}.")
    merged = pb.ParallelStrategyMap(current_stage=0)
    names = set()
    files = sorted(f for f in os.listdir(src_strategy_dirs) if f.endswith(".ckpt"))
    if not files:
        raise ValueError(f"For 'merge_pipeline_strategys', no strategy file (*.ckpt) in '{src_strategy_dirs}'.")
    for fname in files:
        message = _read("merge_pipeline_strategys", os.path.join(src_strategy_dirs, fname))
        for item in message.parallel_strategy_item:
            merged.parallel_strategy_item.add().CopyFrom(item)
        for item in message.parallel_layout_item:
            if item.param_name not in names:
                names.add(item.param_name)
                merged.parallel_layout_item.add().CopyFrom(item)
    _write(dst_strategy_file, merged)


def _save_target():
    config = context.get_auto_parallel_context("strategy_ckpt_config") or {}
    path = config.get("save_file") or context.get_auto_parallel_context("strategy_ckpt_save_file")
    return path or None, bool(config.get("only_trainable_params", True))


def save_current_strategy():
    """Write this process's sliced parameters to the configured strategy file (no-op when none is set)."""
    path, only_trainable = _save_target()
    if not path:
        return
    params = sliced_parameters()
    layouts = {name: p.shard_layout for name, p in params.items()
               if not only_trainable or (p.requires_grad and not p.__dict__.get("_optimizer_state"))}
    if not layouts:  # at exit the parameters may be gone: keep the layouts written last
        layouts = _LAST_LAYOUTS.get(path, {})
    if layouts or _OP_STRATEGIES:
        _LAST_LAYOUTS[path] = layouts
        write_strategy_file(path, layouts, op_strategies=_OP_STRATEGIES)


atexit.register(save_current_strategy)
ON_SLICE.append(save_current_strategy)

__all__ = ["ShardLayout", "write_strategy_file", "build_searched_strategy", "merge_pipeline_strategys",
           "save_current_strategy", "layouts_from_file", "op_key", "record_op_strategy", "loaded_strategy"]
