"""`mindspore.parallel.nn`: the pipeline wrappers under their 2.5+ names (`Pipeline` = nn.PipelineCell,
`GradAccumulation` = nn.GradAccumulationCell, `MicroBatchInterleaved`), and openspore's tensor-parallel cells
(Megatron-style): each rank stores its slice of the weights and computes its share;
one AllReduce per sub-block in the forward pass and one in the backward pass.

>>> from openspore.parallel.nn import ColumnParallelDense
>>> ColumnParallelDense(4, 6).weight.shape      # one process: the whole weight
(6, 4)
"""
from ...nn import GradAccumulationCell as GradAccumulation, MicroBatchInterleaved  # noqa: F401
from ...nn import PipelineCell as Pipeline  # noqa: F401
from ._tensor_parallel import (ColumnParallelDense, ParallelMLP, ParallelSelfAttention,  # noqa: F401
                               ParallelTransformerBlock, RowParallelDense)

__all__ = ["Pipeline", "GradAccumulation", "MicroBatchInterleaved", "ColumnParallelDense", "RowParallelDense", "ParallelMLP", "ParallelSelfAttention",
           "ParallelTransformerBlock"]
