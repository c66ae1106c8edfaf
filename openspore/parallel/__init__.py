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
from ._shard_api import Layout, shard  # noqa: F401

__all__ = ["ParallelMode", "ShardLayout", "gather_full", "parameter_memory", "slice_parameter", "sliced_parameters",
           "Layout", "shard"]
