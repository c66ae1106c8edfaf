"""Tensor-parallel cells (Megatron-style): each rank stores its slice of the weights and computes its share;
one AllReduce per sub-block in the forward pass and one in the backward pass.

>>> from openspore.parallel.nn import ColumnParallelDense
>>> ColumnParallelDense(4, 6).weight.shape      # one process: the whole weight
(6, 4)
"""
from ._tensor_parallel import (ColumnParallelDense, ParallelMLP, ParallelSelfAttention,  # noqa: F401
                               ParallelTransformerBlock, RowParallelDense)

__all__ = ["ColumnParallelDense", "RowParallelDense", "ParallelMLP", "ParallelSelfAttention",
           "ParallelTransformerBlock"]
