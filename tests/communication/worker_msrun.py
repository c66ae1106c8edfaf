"""A task script for the msrun tests: `worker_msrun.py <out_dir> <mode>`; mode 'ok' all-reduces the ranks,
'fail' makes rank 1 raise while rank 0 waits in a collective for a peer that never comes; 'sleep' waits a minute
after joining (to be interrupted)."""
import json
import os
import sys
import time

import numpy as np

import openspore as ms
from openspore import communication as comm, ops

out_dir, mode = sys.argv[1], sys.argv[2]
comm.init()
rank = comm.get_rank()
with open(os.path.join(out_dir, f"pid_{rank}"), "w") as f:
    f.write(str(os.getpid()))
if mode == "sleep":
    time.sleep(60)
if mode == "fail" and rank == 1:
    raise ValueError("worker one broke on purpose")
total = ops.AllReduce()(ms.Tensor(np.array([rank + 1.0], np.float32))).asnumpy().tolist()
print(f"rank {rank} of {comm.get_group_size()} sees {total}", flush=True)
env = {k: os.environ.get(k) for k in ("MS_ROLE", "MS_SCHED_HOST", "MS_WORKER_NUM", "RANK_ID", "RANK_SIZE",
                                      "DEVICE_ID", "MS_TOPO_TIMEOUT")}
with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
    json.dump({"total": total, "env": env, "local": comm.get_local_rank()}, f)
comm.release()
