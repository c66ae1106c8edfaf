"""One rank of the tensor-parallel test: loads its slice of the checkpoint; rank 0 runs `generate`, one prefill and
the continuous-batching scheduler over the TensorParallelEngine while the other ranks follow; each rank writes
<out_dir>/worker_<rank>.json.  argv: out_dir ckpt config prompts.json max_tokens"""
import json
import os
import sys

import numpy as np

from openspore import communication as comm
from openspore.llm import SamplingParams, generate
from openspore.llm.scheduler import ContinuousBatchingScheduler
from openspore.llm.tensor_parallel import GroupChannel, TensorParallelEngine


def main():
    out_dir, ckpt, config, prompts_file, max_tokens = sys.argv[1:6]
    with open(prompts_file) as f:
        prompts = json.load(f)
    comm.init()
    rank, size = comm.get_rank(), comm.get_group_size()
    engine = TensorParallelEngine.from_checkpoint(ckpt, config, rank=rank, size=size, channel=GroupChannel(),
                                                  block_size=4, max_batch_size=4, max_model_len=48)
    result = {"rank": rank, "size": size, "pool_bytes": engine.pool_stats()["capacity_bytes"]}
    if rank == 0:
        greedy = SamplingParams(max_tokens=int(max_tokens), temperature=0)
        result["tokens"] = generate(engine, prompts, greedy)
        result["logits"] = engine.prefill(["probe"], [prompts[1]]).tolist()
        engine.free("probe")
        scheduler = ContinuousBatchingScheduler(engine, max_queue=16, max_running=3)
        handles = [scheduler.submit(p, greedy, ignore_eos=True) for p in prompts]
        result["scheduled"] = [list(h.result()) for h in handles]
        scheduler.stop()
        result["free_after"] = engine.num_free_blocks() == engine.num_blocks
        engine.stop_followers()
    else:
        result["calls"] = engine.follow()
        result["free_after"] = engine.num_free_blocks() == engine.num_blocks
    with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
        json.dump(result, f)
    comm.release()


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
