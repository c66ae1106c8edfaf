"""mint.distributed in a job of one process (no launcher): the world is this process and collectives write their
result into the tensors given; the same functions across 2 processes are tests/communication/."""
import numpy as np
import pytest

import openspore as ms
from openspore.communication import distributed as impl
from openspore.mint import distributed as dist


def f32(*values):
    return ms.Tensor(np.array(values, np.float32))


def test_names_are_the_communication_functions():
    assert all(getattr(dist, n) is getattr(impl, n) for n in dist.__all__)


def test_one_process_world():
    assert dist.is_available() and not dist.is_initialized()
    with pytest.raises(RuntimeError, match="not initialized"):
        dist.all_reduce(f32(1.0))
    dist.init_process_group()
    try:
        assert dist.is_initialized() and (dist.get_rank(), dist.get_world_size()) == (0, 1)
        assert dist.get_process_group_ranks() == [0]
        t = f32(1.0, 2.0)
        assert dist.all_reduce(t, op="sum") is None and t.asnumpy().tolist() == [1.0, 2.0]
        parts = [f32(0.0, 0.0)]
        dist.all_gather(parts, f32(3.0, 4.0))
        assert parts[0].asnumpy().tolist() == [3.0, 4.0]
        out = f32(0.0, 0.0)
        dist.all_gather_into_tensor(out, f32(5.0, 6.0))
        assert out.asnumpy().tolist() == [5.0, 6.0]
        b = f32(7.0)
        assert dist.broadcast(b, src=0) is None and b.asnumpy().tolist() == [7.0]
        assert dist.barrier() is None
        dist.send(f32(8.0, 9.0), dst=0)
        box = f32(0.0, 0.0)
        assert dist.recv(box, src=0) == 0 and box.asnumpy().tolist() == [8.0, 9.0]
        objects = [None]
        dist.all_gather_object(objects, {"k": 1})
        assert objects == [{"k": 1}]
        with pytest.raises(ValueError, match="world rank"):
            dist.send(t, dst=2)
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()
