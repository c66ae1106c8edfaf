"""Serving throughput and latency: N concurrent gRPC clients against LeNet5 and ResNet20 servables, with the
master's dynamic batching on and off.

    python bench/serving.py                               # 16 clients, 5 s per run, lenet and resnet
    python bench/serving.py --models lenet --clients 32 --duration 10 --max-queue-delay 0.004

Everything runs on 127.0.0.1 with ephemeral ports; each run is bounded by --duration seconds and
--max-requests requests per client, and stops by itself. "batching off" sends every instance to the worker alone
(max_batch_size=1); "batching on" lets the master merge concurrent requests up to the model batch size
(--batch-size), waiting at most --max-queue-delay seconds for a batch to fill. Clients run in separate
processes (--client-procs) so their Python work does not compete with the master for one interpreter.
"""
import argparse
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

MODELS = {"lenet": ("LeNet5", (1, 32, 32)), "resnet": ("ResNet20", (3, 32, 32))}

CONFIG = """
import numpy as np
from openspore.serving.server import register
from bench.ms_models import {cls}

model = register.declare_model("model.ckpt", "Checkpoint", network={cls},
                               inputs=[(({batch},) + {shape}, np.float32)])


@register.register_method(output_names=["y"])
def predict(x):
    return register.add_stage(model, x, outputs_count=1)
"""


def write_servables(root, models, batch):
    import openspore as ms
    from bench import ms_models
    for name in models:
        cls, shape = MODELS[name]
        folder = os.path.join(root, name)
        os.makedirs(os.path.join(folder, "1"))
        with open(os.path.join(folder, "servable_config.py"), "w") as f:
            f.write(CONFIG.format(cls=cls, batch=batch, shape=shape))
        ms.set_seed(0)
        ms.save_checkpoint(getattr(ms_models, cls)(), os.path.join(folder, "1", "model.ckpt"))


def client_process(address, servable, shape, threads, duration, max_requests, start_at, out):
    """One client process: `threads` clients, each sending one-instance requests back to back."""
    from openspore.serving.client import Client
    latencies, errors = [], []
    lock = threading.Lock()
    rng = np.random.default_rng(os.getpid())
    x = rng.standard_normal(shape).astype(np.float32)

    def run():
        client = Client(address, servable, "predict")
        mine, bad = [], 0
        while time.time() < start_at:
            time.sleep(0.001)
        stop = start_at + duration
        for _ in range(max_requests):
            if time.time() >= stop:
                break
            t0 = time.perf_counter()
            result = client.infer({"x": x})
            mine.append(time.perf_counter() - t0)
            if not isinstance(result, list):
                bad += 1
        with lock:
            latencies.extend(mine)
            errors.append(bad)

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    out.put((latencies, sum(errors)))


def batch_sizes(metrics_text, servable):
    count = total = 0.0
    for line in metrics_text.splitlines():
        if f'servable="{servable}"' not in line:
            continue
        if line.startswith("openspore_serving_batch_size_count"):
            count = float(line.rsplit(" ", 1)[1])
        elif line.startswith("openspore_serving_batch_size_sum"):
            total = float(line.rsplit(" ", 1)[1])
    return total / count if count else 0.0


def run_one(args, root, name, batching):
    from openspore.serving import server
    from openspore.serving.server import _server
    from openspore.serving.server.master import context
    context.set_worker_log_dir(os.path.join(root, "logs"))
    max_batch = args.batch_size if batching else 1
    server.start_servables(server.ServableStartConfig(root, name, device_ids=tuple(range(args.workers)),
                                                      max_batch_size=max_batch,
                                                      max_queue_delay=args.max_queue_delay if batching else 0.0))
    try:
        address = server.start_grpc_server("127.0.0.1:0")
        ctx = multiprocessing.get_context("spawn")
        out = ctx.Queue()
        per_proc = [args.clients // args.client_procs + (i < args.clients % args.client_procs)
                    for i in range(args.client_procs)]
        start_at = time.time() + 3.0 + 0.5 * args.client_procs     # every client process is up by then
        procs = [ctx.Process(target=client_process, args=(address, name, MODELS[name][1], n, args.duration,
                                                          args.max_requests, start_at, out))
                 for n in per_proc if n]
        for p in procs:
            p.start()
        results = [out.get(timeout=args.duration + 120) for _ in procs]
        for p in procs:
            p.join(timeout=30)
        latencies = [x for lat, _ in results for x in lat]
        errors = sum(e for _, e in results)
        mean_batch = batch_sizes(_server.metrics_text(), name)
    finally:
        server.stop()
    latencies.sort()
    span = args.duration
    return {"model": name, "batching": "on" if batching else "off", "requests": len(latencies), "errors": errors,
            "throughput": len(latencies) / span,
            "p50": 1000 * statistics.median(latencies) if latencies else float("nan"),
            "p99": 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] if latencies
            else float("nan"),
            "mean_batch": mean_batch}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    ap.add_argument("--clients", type=int, default=16, help="concurrent clients (threads over --client-procs)")
    ap.add_argument("--client-procs", type=int, default=2)
    ap.add_argument("--duration", type=float, default=5.0, help="seconds of load per run (bounded)")
    ap.add_argument("--max-requests", type=int, default=100000, help="at most this many requests per client")
    ap.add_argument("--batch-size", type=int, default=32, help="model batch size (and max_batch_size when on)")
    ap.add_argument("--max-queue-delay", type=float, default=0.002, help="seconds a batch may wait to fill")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (device ids 0..N-1)")
    args = ap.parse_args(argv)
    if not 1 <= args.clients <= 256 or args.duration > 120:
        raise SystemExit("keep the load bounded: 1..256 clients and at most 120 s per run")
    root = tempfile.mkdtemp(prefix="openspore_bench_serving_")
    rows = []
    try:
        write_servables(root, args.models, args.batch_size)
        for name in args.models:
            for batching in (False, True):
                row = run_one(args, root, name, batching)
                rows.append(row)
                print(f"{row['model']:7s} batching {row['batching']:3s}: {row['throughput']:8.1f} req/s  "
                      f"p50 {row['p50']:7.2f} ms  p99 {row['p99']:7.2f} ms  mean batch {row['mean_batch']:5.2f}  "
                      f"({row['requests']} requests, {row['errors']} errors)", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print()
    print(f"{args.clients} clients, {args.duration:g} s per run, model batch size {args.batch_size}, "
          f"max_queue_delay {args.max_queue_delay * 1000:g} ms, {args.workers} worker(s)")
    print(f"{'model':8s}{'batching':>9s}{'req/s':>10s}{'p50 ms':>9s}{'p99 ms':>9s}{'batch':>7s}{'gain':>7s}")
    for name in args.models:
        off = next(r for r in rows if r["model"] == name and r["batching"] == "off")
        for r in (r for r in rows if r["model"] == name):
            gain = f"{r['throughput'] / off['throughput']:.2f}x" if off["throughput"] else "-"
            print(f"{r['model']:8s}{r['batching']:>9s}{r['throughput']:10.1f}{r['p50']:9.2f}{r['p99']:9.2f}"
                  f"{r['mean_batch']:7.2f}{gain if r['batching'] == 'on' else '':>7s}")


if __name__ == "__main__":
    main()
