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
    addrs, ids, dropping, iteration_hint, threads, offset = args
    rng = np.random.default_rng(ids[0] if ids else 0)
    fmap = _feature_map(rng)
    counts = {"requests": 0, "uploads": 0, "refused": 0, "first_upload": float("inf"), "last_upload": 0.0}
    lock = threading.Lock()
    chunks = [ids[k::threads] for k in range(threads)]

    def run(k, chunk):
        conn = Conn(*addrs[(offset + k) % len(addrs)])     # devices spread over the job's servers
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

    ts = [threading.Thread(target=run, args=(k, c)) for k, c in enumerate(chunks)]
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


def _spawn(args, env, tmp, name):
    ready = os.path.join(tmp, name + ".url")
    proc = subprocess.Popen([sys.executable, "-m", *args, "--ready-file", ready], env=env, cwd=REPO,
                            stdout=subprocess.DEVNULL)
    while not os.path.exists(ready):
        if proc.poll() is not None:
            raise SystemExit(f"{name} did not start")
        time.sleep(0.1)
    host, port = open(ready).read().split("//")[1].split(":")
    return proc, (host, int(port))


def scale_run(registered, participants, iterations, drop, procs, threads, window_ms, servers=0):
    """`servers` 0: one standalone server process; n ≥ 1: a scheduler and n server processes (the devices
    spread over them). Memory is that of the process owning the job (server or scheduler)."""
    tmp = tempfile.mkdtemp(prefix="fl_bench_")
    np.savez(os.path.join(tmp, "w.npz"), **{k: np.zeros(s, np.float32) for k, s in LENET.items()})
    cfg = os.path.join(tmp, "fl.yaml")
    with open(cfg, "w") as f:
        f.write(f"fl_name: bench\nfl_server_port: 0\nstart_fl_job_threshold: {participants}\n"
                f"start_fl_job_time_window: 600000\nupdate_model_ratio: {1 - drop}\n"
                f"update_model_time_window: {window_ms}\nfl_iteration_num: {iterations}\n"
                f"server_num: {servers}\nscheduler_ip: 127.0.0.1\nscheduler_port: 0\n")
    env = dict(os.environ, PYTHONPATH=REPO, OPENBLAS_NUM_THREADS="1")
    weights = ["--weights", os.path.join(tmp, "w.npz")]
    procs_up = []
    try:
        if servers == 0:
            owner, state_addr = _spawn(["openspore.federated.server", "--config", cfg, *weights], env, tmp, "server")
            procs_up.append(owner)
            addrs = [state_addr]
        else:
            owner, state_addr = _spawn(["openspore.federated.scheduler", "--config", cfg, *weights], env, tmp, "sched")
            procs_up.append(owner)
            addrs = []
            for k in range(servers):
                p, addr = _spawn(["openspore.federated.server", "--config", cfg, "--set",
                                  f"scheduler_port={state_addr[1]}", "--node-id", str(k)], env, tmp, f"server{k}")
                procs_up.append(p)
                addrs.append(addr)
        rng = np.random.default_rng(registered)
        mem_idle = _proc_mem(owner.pid)
        times, reqs, upload_rates = [], 0, []
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(procs) as pool:
            t_all = time.perf_counter()
            for it in range(iterations):
                ids = rng.choice(registered, size=participants, replace=False).tolist()
                dropping = set(ids[: int(round(drop * participants))])
                t0 = time.perf_counter()
                parts = pool.map(_device_worker, [(addrs, ids[k::procs], dropping, it, threads, k * threads)
                                                  for k in range(procs)])
                while owner.poll() is None:     # the iteration ends (on its window when devices vanished)
                    now = _state(*state_addr)["iteration"]
                    if now is None or now > it + 1:
                        break
                    time.sleep(0.02)
                times.append(time.perf_counter() - t0)
                reqs += sum(p["requests"] for p in parts)
                uploads = sum(p["uploads"] for p in parts)
                span = max(p["last_upload"] for p in parts) - min(p["first_upload"] for p in parts)
                upload_rates.append(uploads / span if span > 0 else float("nan"))
                print(f"  registered {registered:>9,}, {servers or 'standalone'} server(s): iteration {it + 1}: "
                      f"{participants} joined, {uploads} uploads ({len(dropping)} vanished), {times[-1]:.2f} s",
                      flush=True)
            total = time.perf_counter() - t_all
        state = _state(*state_addr)
        mem = _proc_mem(owner.pid)
        ok = sum(r["status"] == "succeeded" for r in state["iterations"])
        return {"registered": registered, "servers": servers, "time_per_iteration_s": statistics.median(times),
                "requests_per_s": reqs / total, "update_model_per_s": statistics.median(upload_rates),
                "rss_mib": mem["VmRSS"], "peak_mib": mem["VmHWM"], "idle_rss_mib": mem_idle["VmRSS"], "succeeded": ok}
    finally:
        for p in procs_up:
            p.terminate()
        for p in procs_up:
            p.wait(timeout=30)


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


# ---- FedAvg side by side with Flower's simulation -------------------------------------------------------------
def prepare_digits_job(work, clients, batch, lr, alpha=0.5):
    """The shared experiment: LeNet5 exported as a .ms training model, digits split Dirichlet(alpha) over
    `clients`; written to `work` (data.npz, lenet_train.ms, w0.npz, names.json) for both engines."""
    import openspore as ms
    from examples.digits_lenet import LeNet5
    from examples.federated.simulate import digits
    from openspore.federated.export import export_client_model
    from openspore.federated.simulator import dirichlet_split
    x, y, xt, yt = digits()
    ms.set_seed(1)
    path, w0 = export_client_model(LeNet5(), x[:batch], y[:batch], os.path.join(work, "lenet_train.ms"), lr=lr,
                                   momentum=0.9)
    parts = dirichlet_split(y, clients, alpha, np.random.default_rng(0), min_size=2)
    bounds = np.cumsum([0] + [len(p) for p in parts])
    np.savez(os.path.join(work, "data.npz"), x=x, y=y, xt=xt, yt=yt, order=np.concatenate(parts), bounds=bounds)
    np.savez(os.path.join(work, "w0.npz"), **w0)
    with open(os.path.join(work, "names.json"), "w") as f:
        json.dump(sorted(w0), f)
    return path, w0, (x, y, xt, yt), parts


def openspore_fedavg(work, data, parts, rounds, participants, epochs, lr, batch):
    """The experiment on openspore: a real FLServer on loopback, LiteTrainer devices in threads (simulator.py)."""
    from openspore.federated import FLContext, FLServer
    from openspore.federated.simulator import simulate
    from openspore.federated.trainer import LiteTrainer
    x, y, xt, yt = data
    path = os.path.join(work, "lenet_train.ms")
    with np.load(os.path.join(work, "w0.npz")) as z:
        w0 = {k: z[k] for k in z.files}
    ctx = FLContext(fl_name="bench_fedavg", fl_server_port=0, start_fl_job_threshold=participants,
                    start_fl_job_time_window=600000, update_model_time_window=600000, fl_iteration_num=rounds,
                    client_epoch_num=epochs, client_batch_size=batch, client_learning_rate=lr)
    devices = [(f"device-{k:04d}", x[p], y[p]) for k, p in enumerate(parts)]
    evaluator = LiteTrainer(path, xt, yt)
    round_s, accs = [], []

    def report(record, statuses, elapsed):
        round_s.append(elapsed)
        evaluator.set_weights(server.job.weights)
        accs.append(evaluator.evaluate(xt, yt))

    with FLServer(ctx, w0) as server:
        simulate(server, devices, lambda xs, ys: LiteTrainer(path, xs, ys), rounds, participants, on_iteration=report)
    return {"round_s": round_s, "accuracy": accs}


def flower_python(explicit):
    """A Python with flwr[simulation] importable: --flower-python, $FLWR_PYTHON, or this one."""
    for cand in (explicit, os.environ.get("FLWR_PYTHON"), sys.executable):
        if cand and subprocess.run([cand, "-c", "import flwr.simulation"], capture_output=True).returncode == 0:
            return cand
    return None


def flower_compare(args):
    work = tempfile.mkdtemp(prefix="fl_flower_")
    _, _, data, parts = prepare_digits_job(work, args.fedavg_clients, 16, args.fedavg_lr)
    print(f"FedAvg side by side: LeNet5 .ms on openspore.lite, {args.fedavg_clients} clients (digits, Dirichlet 0.5), "
          f"{args.fedavg_participants} per round, {args.fedavg_rounds} rounds, {args.fedavg_epochs} local epochs, "
          f"lr {args.fedavg_lr}, batch 16", flush=True)
    ours = openspore_fedavg(work, data, parts, args.fedavg_rounds, args.fedavg_participants, args.fedavg_epochs,
                            args.fedavg_lr, 16)
    py = flower_python(args.flower_python)
    theirs = None
    if py is None:
        print("  Flower: no Python with flwr[simulation] found (--flower-python or $FLWR_PYTHON); see docs/federated.md")
    else:
        out = subprocess.run([py, os.path.join(REPO, "bench", "fl_flower.py"), "--work", work, "--rounds",
                              str(args.fedavg_rounds), "--participants", str(args.fedavg_participants), "--epochs",
                              str(args.fedavg_epochs), "--lr", str(args.fedavg_lr), "--cpus",
                              str(args.flower_cpus)], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=REPO, RAY_DEDUP_LOGS="0"))
        lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
        if out.returncode != 0 or not lines:
            print(f"  Flower run failed (rc {out.returncode}):\n{out.stderr[-3000:]}")
        else:
            theirs = json.loads(lines[-1][7:])
    print(f"{'round':>6} {'openspore s':>12} {'openspore acc':>14} {'Flower s':>9} {'Flower acc':>11}")
    for r in range(args.fedavg_rounds):
        f_s = f"{theirs['round_s'][r]:>9.2f}" if theirs and r < len(theirs["round_s"]) else f"{'-':>9}"
        f_a = f"{theirs['accuracy'][r + 1]:>11.4f}" if theirs and r + 1 < len(theirs["accuracy"]) else f"{'-':>11}"
        print(f"{r + 1:>6} {ours['round_s'][r]:>12.2f} {ours['accuracy'][r]:>14.4f} {f_s} {f_a}")
    med = statistics.median(ours["round_s"])
    line = f"median s/round: openspore {med:.2f}"
    if theirs:
        fm = statistics.median(theirs["round_s"])
        line += (f", Flower {fm:.2f} (ratio Flower/openspore {fm / med:.2f}; Flower's engine start-up "
                 f"{theirs['startup_s']:.1f} s not included), flwr {theirs['flwr']}")
    print(line, flush=True)
    return ours, theirs


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
    ap.add_argument("--servers", type=int, nargs="+", help="throughput only: 0 = one standalone server, n = a "
                    "scheduler and n server processes (e.g. --servers 0 1 2)")
    ap.add_argument("--flower-only", action="store_true", help="only the FedAvg comparison with Flower")
    ap.add_argument("--no-flower", action="store_true")
    ap.add_argument("--flower-python", help="a Python with flwr[simulation] (default: $FLWR_PYTHON or this one)")
    ap.add_argument("--flower-cpus", type=int, default=2, help="CPUs Flower's Ray backend may use")
    ap.add_argument("--fedavg-clients", type=int, default=20)
    ap.add_argument("--fedavg-participants", type=int, default=10)
    ap.add_argument("--fedavg-rounds", type=int, default=5)
    ap.add_argument("--fedavg-epochs", type=int, default=2)
    ap.add_argument("--fedavg-lr", type=float, default=0.05)
    args = ap.parse_args(argv)
    if args.flower_only:
        flower_compare(args)
        return 0
    if args.servers:
        print(f"throughput: {args.participants} participants per iteration, {args.iterations} iterations, "
              f"load generators {args.procs} processes x {args.threads} threads spread over the servers")
        rows = [scale_run(args.registered[0], args.participants, args.iterations, args.drop, args.procs,
                          args.threads, args.window_ms, servers=n) for n in args.servers]
        print(f"{'server processes':>18} {'s/iteration':>12} {'requests/s':>11} {'updateModel/s':>14} {'ok':>3}")
        for r in rows:
            print(f"{r['servers'] or '1 (standalone)':>18} {r['time_per_iteration_s']:>12.2f} "
                  f"{r['requests_per_s']:>11.1f} {r['update_model_per_s']:>14.1f} {r['succeeded']:>3}")
        return 0
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
    if not (args.scale_only or args.rounds_only or args.no_flower):
        flower_compare(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
