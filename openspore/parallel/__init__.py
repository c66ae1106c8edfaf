"""`mindspore.parallel`: distributed training above the collectives — the `msrun` launcher
(`python -m openspore.parallel.msrun`), the parallel modes set with `set_auto_parallel_context` (data parallel
inserts the gradient AllReduce in `TrainOneStepCell`), operator-level sharding (`Primitive.shard`, `shard`,
`Layout`) with parameters stored sliced, and tensor-parallel cells (`openspore.parallel.nn`). See
docs/distributed.md.

>>> from openspore.parallel import ParallelMode
>>> ParallelMode.DATA_PARALLEL
'data_parallel'
"""
from ..context import ParallelMode  # noqa: F401
from ._param_shard import ShardLayout, gather_full, parameter_memory, slice_parameter, sliced_parameters  # noqa: F401
from . import _sharding  # noqa: F401  (installs Primitive.shard's sharded call)
from ._sharding import to_full  # noqa: F401
from ._tensor_layout import layout_of  # noqa: F401
from ._shard_report import (clear_sharding_report, print_sharding_report, save_sharding_report,  # noqa: F401
                            sharding_report)
from ._shard_api import Layout, shard  # noqa: F401
from ._strategy_file import build_searched_strategy, merge_pipeline_strategys  # noqa: F401
from ._ckpt_transform import (convert_checkpoint_by_rank, convert_checkpoints, get_ckpt_path_with_strategy,  # noqa: F401
                              load_distributed_checkpoint, load_segmented_checkpoints, rank_list_for_convert,
                              rank_list_for_transform, transform_checkpoint_by_rank, transform_checkpoints)
from ._parallel_misc import (get_algo_parameters, parameter_broadcast, reset_algo_parameters,  # noqa: F401
                             restore_group_info_list, set_algo_parameters, sync_pipeline_shared_parameters)

__all__ = ["ParallelMode", "ShardLayout", "gather_full", "parameter_memory", "slice_parameter", "sliced_parameters",
           "Layout", "shard", "build_searched_strategy", "merge_pipeline_strategys", "load_distributed_checkpoint",
           "transform_checkpoints", "transform_checkpoint_by_rank", "rank_list_for_transform", "convert_checkpoints",
           "convert_checkpoint_by_rank", "rank_list_for_convert", "get_ckpt_path_with_strategy",
           "load_segmented_checkpoints", "parameter_broadcast", "sync_pipeline_shared_parameters",
           "restore_group_info_list", "set_algo_parameters", "get_algo_parameters", "reset_algo_parameters",
           "to_full", "layout_of", "sharding_report", "print_sharding_report", "save_sharding_report",
           "clear_sharding_report"]


def __getattr__(name):
    # `mindspore.parallel.merge_sliced_parameter` is the checkpoint helper of openspore.train (which imports this
    # package): looked up on first use.
    if name == "merge_sliced_parameter":
        from ..train import merge_sliced_parameter
        return merge_sliced_parameter
    raise AttributeError(f"module 'openspore.parallel' has no attribute {name!r}")
