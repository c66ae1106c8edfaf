"""Federated-learning server benchmark: a fleet of registered devices, rounds of participants, requests/s,
time per iteration, server memory vs fleet size; and time per round vs participants, plain and PW_ENCRYPT.

    python bench/fl.py                                   # 1,000 and 1,000,000 registered, 1,000 per iteration, 5 its
    python bench/fl.py --registered 1000 --participants 200 --iterations 2 --rounds-only

Scale part: the server runs as its own process (`python -m openspore.federated.server`), so its memory (VmRSS,
VmHWM from /proc) is its alone. Devices are stateless ids drawn each iteration from the registered fleet (ids
0..R-1, so 1,000,000 registered devices cost the server nothing until they call); `--drop` of each iteration's
participants vanish after startFLJob; update_model_ratio = 1 - drop, so a round completes with the survivors' uploads
(a round that falls short ends on its update_model_time_window). Devices upload a LeNet5-sized model (61,706 float32) and are load-generator
processes speaking the HTTP protocol directly (no training: this measures the server). Rounds part: real
FLClients (PW_ENCRYPT: keys, Shamir shares, masks) with a no-op trainer, in threads against an in-process
server. The machine is shared with other work: figures are medians of the iterations, wall-clock.
"""
import argparse
import base64
import http.client
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
LENET = {"conv1.weight": (6, 1, 5, 5), "conv2.weight": (16, 6, 5, 5), "fc1.weight": (120, 400), "fc1.bias": (120,),
         "fc2.weight": (84, 120), "fc2.bias": (84,), "fc3.weight": (10, 84), "fc3.bias": (10,)}


def _feature_map(rng):
    return [{"weight_fullname": k, "data": {"dtype": "float32", "shape": list(s), "data": base64.b64encode(
        rng.standard_normal(s).astype(np.float32).tobytes()).decode()}} for k, s in LENET.items()]


class Conn:
    def __init__(self, host, port):
        self.c = http.client.HTTPConnection(host, port, timeout=120)

    def post(self, path, msg):
        body = json.dumps(msg).encode()
        for attempt in range(3):
            try:
                self.c.request("POST", path, body, {"Content-Type": "application/json"})
                return json.loads(self.c.getresponse().read())
            except (ConnectionError, http.client.HTTPException, OSError):
                self.c.close()
                if attempt == 2:
                    raise
                time.sleep(0.1)


def _device_worker(args):
    """One load-generator process: its share of this iteration's participants, in threads."""
    host, port, ids, dropping, iteration_hint, threads = args
    rng = np.random.default_rng(ids[0] if ids else 0)
    fmap = _feature_map(rng)
    counts = {"requests": 0, "uploads": 0, "refused": 0, "first_upload": float("inf"), "last_upload": 0.0}
    lock = threading.Lock()
    chunks = [ids[k::threads] for k in range(threads)]

    def run(chunk):
        conn = Conn(host, port)
        local = {"requests": 0, "uploads": 0, "refused": 0}
        joined = []
        for fl_id in chunk:
            while True:
                r = conn.post("/startFLJob", {"fl_name": "bench", "fl_id": f"d{fl_id}", "data_size": 10})
                local["requests"] += 1
                if r["retcode"] == 200:
                    joined.append((fl_id, r["iteration"], r["token"]))
                    break
                if r.get("job_finished"):
                    break
                time.sleep(0.05)   # OutOfTime while the previous iteration ends
        first, last = float("inf"), 0.0
        for fl_id, it, token in joined:
            if fl_id in dropping:
                continue
            first = min(first, time.time())
            while True:   # SucNotReady: startFLJob is still filling up with other processes' devices
                r = conn.post("/updateModel", {"fl_name": "bench", "fl_id": f"d{fl_id}", "iteration": it,
                                               "token": token, "feature_map": fmap})
                local["requests"] += 1
                if r["retcode"] != 201:
                    break
                time.sleep(0.05)
            local["uploads" if r["retcode"] == 200 else "refused"] += 1
            last = time.time()
        with lock:
            for k in local:
                counts[k] += local[k]
            counts["first_upload"] = min(counts["first_upload"], first)
            counts["last_upload"] = max(counts["last_upload"], last)

    ts = [threading.Thread(target=run, args=(c,)) for c in chunks]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return counts


def _proc_mem(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                out[line.split(":")[0]] = int(line.split()[1]) / 1024
    return out


def _state(host, port):
    c = http.client.HTTPConnection(host, port, timeout=30)
    c.request("GET", "/state")
    return json.loads(c.getresponse().read())


def scale_run(registered, participants, iterations, drop, procs, threads, window_ms):
    tmp = tempfile.mkdtemp(prefix="fl_bench_")
    np.savez(os.path.join(tmp, "w.npz"), **{k: np.zeros(s, np.float32) for k, s in LENET.items()})
    cfg = os.path.join(tmp, "fl.yaml")
    with open(cfg, "w") as f:
        f.write(f"fl_name: bench\nfl_server_port: 0\nstart_fl_job_threshold: {participants}\n"
                f"start_fl_job_time_window: 600000\nupdate_model_ratio: {1 - drop}\n"
                f"update_model_time_window: {window_ms}\nfl_iteration_num: {iterations}\n")
    ready = os.path.join(tmp, "url")
    env = dict(os.environ, PYTHONPATH=REPO, OPENBLAS_NUM_THREADS="1")
    server = subprocess.Popen([sys.executable, "-m", "openspore.federated.server", "--config", cfg, "--weights",
                               os.path.join(tmp, "w.npz"), "--ready-file", ready], env=env, cwd=REPO,
                              stdout=subprocess.DEVNULL)
    try:
        while not os.path.exists(ready):
            if server.poll() is not None:
                raise SystemExit("the FL server did not start")
            time.sleep(0.1)
        url = open(ready).read()
        host, port = url.split("//")[1].split(":")
        port = int(port)
        rng = np.random.default_rng(registered)
        mem_idle = _proc_mem(server.pid)
        times, reqs, upload_rates = [], 0, []
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(procs) as pool:
            t_all = time.perf_counter()
            for it in range(iterations):
                ids = rng.choice(registered, size=participants, replace=False).tolist()
                dropping = set(ids[: int(round(drop * participants))])
                t0 = time.perf_counter()
                parts = pool.map(_device_worker, [(host, port, ids[k::procs], dropping, it, threads)
                                                  for k in range(procs)])
                while server.poll() is None:     # the iteration ends (on its window when devices vanished)
                    now = _state(host, port)["iteration"]
                    if now is None or now > it + 1:
                        break
                    time.sleep(0.02)
                times.append(time.perf_counter() - t0)
                reqs += sum(p["requests"] for p in parts)
                uploads = sum(p["uploads"] for p in parts)
                span = max(p["last_upload"] for p in parts) - min(p["first_upload"] for p in parts)
                upload_rates.append(uploads / span if span > 0 else float("nan"))
                print(f"  registered {registered:>9,}: iteration {it + 1}: {participants} joined, {uploads} uploads "
                      f"({len(dropping)} vanished), {times[-1]:.2f} s", flush=True)
            total = time.perf_counter() - t_all
        state = _state(host, port)
        mem = _proc_mem(server.pid)
        ok = sum(r["status"] == "succeeded" for r in state["iterations"])
        return {"registered": registered, "time_per_iteration_s": statistics.median(times),
                "requests_per_s": reqs / total, "update_model_per_s": statistics.median(upload_rates), "rss_mib": mem["VmRSS"], "peak_mib": mem["VmHWM"],
                "idle_rss_mib": mem_idle["VmRSS"], "succeeded": ok}
    finally:
        server.terminate()
        server.wait(timeout=30)


class _NoTrain:
    """A device that 'trains' by nudging the weights (the rounds benchmark measures protocol cost only)."""

    def __init__(self, k):
        self.k, self.w, self.data_size = k, None, 10 + k

    def get_weights(self):
        return self.w

    def set_weights(self, w):
        self.w = {n: np.asarray(v, np.float32) for n, v in w.items()}

    def train(self, epochs, lr, prox=0.0, g=None):
        self.w = {n: v + np.float32(0.001 * self.k) for n, v in self.w.items()}
        return 0.0


def rounds_run(encrypt, participants, iterations=2):
    from openspore.federated import FLContext, FLServer
    from openspore.federated.client import FLClient
    ctx = FLContext(fl_name="rounds", fl_server_port=0, start_fl_job_threshold=participants,
                    start_fl_job_time_window=600000, update_model_time_window=600000, cipher_time_window=600000,
                    fl_iteration_num=iterations, encrypt_type=encrypt)
    w0 = {k: np.zeros(s, np.float32) for k, s in LENET.items()}
    times = []
    with FLServer(ctx, w0) as srv:
        for _ in range(iterations):
            clients = [FLClient(srv.url, "rounds", f"c{k}", _NoTrain(k), download_compress=False)
                       for k in range(participants)]
            for c in clients:
                c.trainer.set_weights(w0)
            t0 = time.perf_counter()
            ts = [threading.Thread(target=c.run_iteration) for c in clients]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--registered", type=int, nargs="+", default=[1000, 1000000])
    ap.add_argument("--participants", type=int, default=1000)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--drop", type=float, default=0.3)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--window-ms", type=int, default=300000)
    ap.add_argument("--round-sizes", type=int, nargs="+", default=[10, 30, 100])
    ap.add_argument("--scale-only", action="store_true")
    ap.add_argument("--rounds-only", action="store_true")
    args = ap.parse_args(argv)
    if not args.rounds_only:
        print(f"scale: {args.participants} participants per iteration, {args.iterations} iterations, "
              f"{args.drop:.0%} vanish after startFLJob, LeNet5-size uploads")
        rows = [scale_run(r, args.participants, args.iterations, args.drop, args.procs, args.threads,
                          args.window_ms) for r in args.registered]
        print(f"{'registered':>12} {'s/iteration':>12} {'requests/s':>11} {'updateModel/s':>14} {'RSS MiB':>8} "
              f"{'peak MiB':>9} {'idle MiB':>9} {'ok':>3}")
        for r in rows:
            print(f"{r['registered']:>12,} {r['time_per_iteration_s']:>12.2f} {r['requests_per_s']:>11.1f} "
                  f"{r['update_model_per_s']:>14.1f} "
                  f"{r['rss_mib']:>8.1f} {r['peak_mib']:>9.1f} {r['idle_rss_mib']:>9.1f} {r['succeeded']:>3}")
        if len(rows) > 1:
            print(f"peak memory with {rows[-1]['registered']:,} registered / with {rows[0]['registered']:,}: "
                  f"{rows[-1]['peak_mib'] / rows[0]['peak_mib']:.3f}")
    if not args.scale_only:
        print("rounds: time per iteration (s) vs participants, real FLClients without training, LeNet5-size model")
        print(f"{'participants':>12} {'NOT_ENCRYPT':>12} {'PW_ENCRYPT':>11}")
        for n in args.round_sizes:
            print(f"{n:>12} {rounds_run('NOT_ENCRYPT', n):>12.2f} {rounds_run('PW_ENCRYPT', n):>11.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
