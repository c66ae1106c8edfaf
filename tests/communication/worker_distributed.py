"""One rank of the torch-style collectives test (ops.all_reduce, ops.all_gather, ...): every call writes into
the tensors it is given; writes what it saw to <out_dir>/worker_<rank>.json."""
import json
import os
import sys

import numpy as np

import openspore as ms
from openspore import ops


def f32(*values):
    return ms.Tensor(np.array(values, np.float32))


def main():
    out_dir = sys.argv[1]
    ops.init_process_group()
    rank, size = ops.get_rank(), ops.get_world_size()
    got = {"rank": rank, "size": size, "backend": ops.get_backend(), "inited": ops.is_initialized()}
    x = f32(rank + 1.0, 10.0 * (rank + 1))
    t = f32(rank + 1.0, 10.0 * (rank + 1))
    got["all_reduce_ret"] = ops.all_reduce(t) is None
    got["all_reduce"] = t.asnumpy().tolist()
    t = f32(rank + 1.0, 2.0)
    ops.all_reduce(t, op=ops.ReduceOp.MAX, async_op=True).wait()
    got["all_reduce_max"] = t.asnumpy().tolist()
    parts = [f32(0, 0), f32(0, 0)]
    ops.all_gather(parts, x)
    got["all_gather"] = [p.asnumpy().tolist() for p in parts]
    uneven = ms.Tensor(np.full((rank + 1, 2), rank, np.float32))
    out = ms.Tensor(np.zeros((3, 2), np.float32))
    ops.all_gather_into_tensor_uneven(out, uneven, [1, 2])
    got["uneven"] = out.asnumpy().tolist()
    out = ms.Tensor(np.zeros((1,), np.float32))
    ops.reduce_scatter_tensor(out, f32(1.0 + rank, 5.0))
    got["reduce_scatter"] = out.asnumpy().tolist()
    t = f32(rank + 1.0)
    ops.reduce(t, dst=1)
    got["reduce"] = t.asnumpy().tolist()
    t = f32(rank * 7.0)
    ops.broadcast(t, src=1)
    got["broadcast"] = t.asnumpy().tolist()
    outs = [f32(0), f32(0)]
    ops.all_to_all(outs, [f32(10.0 * rank + 0), f32(10.0 * rank + 1)])
    got["all_to_all"] = [o.asnumpy().tolist() for o in outs]
    out = ms.Tensor(np.zeros((2 + rank,), np.float32))
    ops.all_to_all_single(out, f32(*([rank] * (2 + rank))), [1, 1] if rank == 0 else [1, 2],
                          [1, 1] if rank == 0 else [1, 2])
    got["a2a_single"] = out.asnumpy().tolist()
    peer = 1 - rank
    box = f32(0, 0)
    if rank == 0:
        ops.send(x * 3, dst=1, tag=4)
    else:
        got["recv_from"] = ops.recv(box, src=0, tag=4)
    got["recv"] = box.asnumpy().tolist()
    box = f32(0, 0)
    handles = ops.batch_isend_irecv([ops.P2POp(ops.isend, x, peer, tag=6), ops.P2POp(ops.irecv, box, peer, tag=6)])
    for h in handles:
        h.wait()
    got["p2p"] = box.asnumpy().tolist()
    objs = [None, None]
    ops.all_gather_object(objs, {"rank": rank, "name": f"w{rank}"})
    got["objects"] = objs
    lst = [f"from{rank}", rank]
    ops.broadcast_object_list(lst, src=1)
    got["bcast_objects"] = lst
    picked = [None]
    ops.scatter_object_list(picked, ["a", "b"] if rank == 0 else None, src=0)
    got["scatter_object"] = picked[0]
    received = [None]
    if rank == 0:
        ops.send_object_list([{"k": [1, 2]}], dst=1)
    else:
        ops.recv_object_list(received, src=0)
    got["recv_object"] = received[0]
    got["gather_into_tensor"] = ops.gather_into_tensor(x, dst=0).asnumpy().tolist()
    got["scatter_tensor"] = ops.scatter_tensor(f32(1, 2, 3, 4) * (rank + 1), src=1).asnumpy().tolist()
    group = ops.new_group([0, 1])
    got["group"] = [group, ops.get_world_size(group), ops.get_group_rank(group, rank), ops.get_global_rank(group, 1)]
    ops.barrier()
    ops.destroy_process_group()
    got["inited_after"] = ops.is_initialized()
    with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
        json.dump(got, f)


if __name__ == "__main__":
    main()
