"""`mindspore.parallel`: distributed training above the collectives — the `msrun` launcher
(`python -m openspore.parallel.msrun`), and the parallel modes set with `set_auto_parallel_context`
(data parallel inserts the gradient AllReduce in `TrainOneStepCell`; see docs/distributed.md).

>>> from openspore.parallel import ParallelMode
>>> ParallelMode.DATA_PARALLEL
'data_parallel'
"""
from ..context import ParallelMode  # noqa: F401

__all__ = ["ParallelMode"]
