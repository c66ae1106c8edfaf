"""Tensor-parallel inference, 1 vs N processes: prefill and decode tokens/s of `TensorParallelEngine` (the GPT's
heads and MLP split over N processes on 127.0.0.1, one AllReduce after each row-parallel projection, Gloo on CPU)
on the same weights and batch.

    python bench/llm_tp.py                                    # a random GPT of examples/llm's default shape
    python bench/llm_tp.py --model-dir examples/llm/gpt/1 --sizes 1 2 4 --rounds 5 --threads 1

`tensor_parallel_rows(ckpt, config, ...)` returns the rows and `print_rows(rows)` prints them, so bench/llm.py
can add its "tensor-parallel 1 vs 2 processes" table with two calls. Each size runs in processes of its own
(size 1 too, so all rows pay the same start-up), each process with --threads torch threads; figures are
medians over --rounds (each round: one prefill of the batch, then --steps decode steps). On a machine with fewer
free cores than processes the ranks share cores and the N-process rows fall: compare on an idle machine.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from common import free_port  # noqa: E402  (bench/ is on sys.path when a bench runs)


def _worker(out_path, ckpt, config, batch, prompt_len, steps, rounds):
    import numpy as np
    from openspore import communication as comm
    from openspore.llm.tensor_parallel import GroupChannel, TensorParallelEngine
    comm.init()
    rank, size = comm.get_rank(), comm.get_group_size()
    engine = TensorParallelEngine.from_checkpoint(ckpt, config, rank=rank, size=size, channel=GroupChannel(),
                                                  max_batch_size=batch, max_model_len=prompt_len + steps + 1)
    if rank:
        engine.follow()
        comm.release()
        return
    rng = np.random.default_rng(0)
    vocab = engine.config.vocab_size
    prefill, decode = [], []
    for r in range(rounds + 1):  # round 0 compiles the two graphs
        ids = [("bench", r, i) for i in range(batch)]
        prompts = [rng.integers(0, vocab, prompt_len).tolist() for _ in range(batch)]
        t0 = time.perf_counter()
        logits = engine.prefill(ids, prompts)
        t1 = time.perf_counter()
        for _ in range(steps):
            logits = engine.decode(ids, [int(t) for t in logits.argmax(-1)])
        t2 = time.perf_counter()
        for s in ids:
            engine.free(s)
        if r:
            prefill.append(batch * prompt_len / (t1 - t0))
            decode.append(batch * steps / (t2 - t1))
    engine.stop_followers()
    with open(out_path, "w") as f:
        json.dump({"size": size, "prefill_tok_s": statistics.median(prefill),
                   "decode_tok_s": statistics.median(decode), "kv_bytes_per_rank": engine.pool_stats()["capacity_bytes"]},
                  f)
    comm.release()



def run_size(size, ckpt, config, batch=8, prompt_len=32, steps=32, rounds=3, threads=1, timeout=900):
    """One row: `size` processes on 127.0.0.1 (torchrun-style environment), rank 0 timing; the row's dict."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "row.json")
        port = free_port()
        procs = []
        try:
            for rank in range(size):
                env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(size),
                           RANK=str(rank), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(size),
                           OMP_NUM_THREADS=str(threads), PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
                procs.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", out, ckpt, config,
                                               str(batch), str(prompt_len), str(steps), str(rounds), str(threads)],
                                              env=env))
            for p in procs:
                p.wait(timeout=timeout)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
        if any(p.returncode for p in procs):
            raise RuntimeError(f"llm_tp: a rank of the {size}-process run failed (exit codes "
                               f"{[p.returncode for p in procs]})")
        with open(out) as f:
            return json.load(f)


def tensor_parallel_rows(ckpt, config, sizes=(1, 2), **kw):
    """One row per size (see `run_size` for the keywords); the speed-ups are relative to the first size."""
    rows = [run_size(size, ckpt, config, **kw) for size in sizes]
    for row in rows:
        row["decode_speedup"] = row["decode_tok_s"] / rows[0]["decode_tok_s"]
        row["prefill_speedup"] = row["prefill_tok_s"] / rows[0]["prefill_tok_s"]
    return rows


def print_rows(rows):
    print("\ntensor-parallel inference (TensorParallelEngine, Gloo on 127.0.0.1; medians)")
    print(f"{'processes':>9} | {'prefill tok/s':>13} | {'decode tok/s':>12} | {'decode ×':>8} | {'KV bytes/rank':>13}")
    for r in rows:
        print(f"{r['size']:>9} | {r['prefill_tok_s']:>13.0f} | {r['decode_tok_s']:>12.1f} | "
              f"{r['decode_speedup']:>8.2f} | {r['kv_bytes_per_rank']:>13}")


def _random_model(workdir):
    import openspore as ms
    from openspore.llm import GPT, GPTConfig
    cfg = GPTConfig(vocab_size=512, n_positions=256, n_embd=256, n_layer=4, n_head=8)
    ckpt, config = os.path.join(workdir, "gpt.ckpt"), os.path.join(workdir, "config.json")
    ms.save_checkpoint(GPT(cfg), ckpt)
    cfg.save(config)
    return ckpt, config


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        out, ckpt, config, batch, prompt_len, steps, rounds, threads = sys.argv[2:10]
        import torch
        torch.set_num_threads(int(threads))
        _worker(out, ckpt, config, int(batch), int(prompt_len), int(steps), int(rounds))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model-dir", help="a folder holding gpt.ckpt and config.json (default: a random GPT)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--prompt-len", type=int, default=32)
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.model_dir:
            ckpt, config = os.path.join(args.model_dir, "gpt.ckpt"), os.path.join(args.model_dir, "config.json")
        else:
            ckpt, config = _random_model(tmp)
        rows = tensor_parallel_rows(ckpt, config, sizes=args.sizes, batch=args.batch, prompt_len=args.prompt_len,
                                    steps=args.steps, rounds=args.rounds, threads=args.threads)
    print_rows(rows)


if __name__ == "__main__":
    main()
