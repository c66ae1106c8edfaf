"""Functional array ops: reshape, transpose, concat, gather, … (MindSpore 2.x signatures)."""
from .. import operations as P

__all__ = ["reshape", "broadcast_to"]


def reshape(input, shape):
    return P.Reshape()(input, tuple(shape))


def broadcast_to(input, shape):
    return P.BroadcastTo(shape=tuple(shape))(input)
