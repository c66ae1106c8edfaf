"""openspore.lite side by side: batch-1 inference latency against onnxruntime on the same ONNX model, peak RSS
against openspore on torch for the same inference, `.ms` load time. One command:

    python bench/lite.py [--models lenet resnet] [--threads 1] [--repeats 7] [--rounds 3] [--clock wall|cpu]

Set-up (this process): the bench networks of bench/ms_models.py (LeNet5, ResNet20; eval mode, batch 1) are
exported by openspore to ONNX and MindIR; `converter_lite --fmk=ONNX` turns the ONNX file into the `.ms` that
lite runs, so lite and onnxruntime run the very same model. Each measurement then runs in a fresh process (so
its peak RSS is its own): `lite` (loads the .ms, never imports torch), `onnxruntime` (the ONNX file,
intra-op threads = --threads), `openspore-torch` (the MindIR through `ms.load` + `nn.GraphCell` on the torch
backend). BLAS/intra-op threads are capped to --threads in every worker; lite's `Context.cpu.thread_num` is
--threads (2+: each call runs the fastest of serial, lite's own work sharing over convolution rows, or BLAS
threads in large GEMMs; openspore/lite/workshare.py).

Latency ratio: on a shared, loaded machine the load changes between processes, so lite and onnxruntime are also
timed in one `pair` process, alternating blocks of calls (lite, ort, lite, ort, …); its "lite ms", "ort ms" and
"lite / ort" (the median of the per-block-pair ratios) are the latency columns, medians over rounds. The separate
processes give peak RSS, `.ms` load time and openspore+torch's latency. `--clock cpu` times the pair's blocks in
this process's CPU time (time.process_time) instead of wall time: on a machine with more runnable processes than
cores, wall time mostly measures waiting for a core, which lands on either side of the ratio by chance.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, REPO)

MODELS = {"lenet": ("lenet", (1, 1, 32, 32)), "resnet": ("infer_resnet", (1, 3, 32, 32))}
CALLS = {"lenet": 200, "resnet": 30}


# ---- workers (fresh processes) ------------------------------------------------------------------------------
def worker(args):
    import numpy as np

    from common import measure
    x = np.load(args.input)
    out = {"framework": args.worker, "model": args.model}
    if args.worker == "lite":
        import time
        from openspore import lite as mslite
        ctx = mslite.Context()
        ctx.cpu.thread_num = args.threads  # 2+: the fastest way of workshare.py per call
        t0 = time.perf_counter()
        model = mslite.Model()
        model.build_from_file(args.path, mslite.ModelType.MINDIR_LITE, ctx)
        out["load_ms"] = (time.perf_counter() - t0) * 1e3
        inputs = model.get_inputs()
        inputs[0].set_data_from_numpy(x)
        step = lambda: model.predict(inputs)  # noqa: E731
        out["torch_imported"] = "torch" in sys.modules
    elif args.worker == "pair":
        step = None
    elif args.worker == "onnxruntime":
        import onnxruntime as ort
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = args.threads
        opts.inter_op_num_threads = 1
        sess = ort.InferenceSession(args.path, opts, providers=["CPUExecutionProvider"])
        name = sess.get_inputs()[0].name
        step = lambda: sess.run(None, {name: x})  # noqa: E731
    else:
        import torch
        torch.set_num_threads(args.threads)
        import openspore as ms
        from openspore import nn
        net = nn.GraphCell(ms.load(args.path))
        tx = ms.Tensor(x)
        step = lambda: net(tx).asnumpy()  # noqa: E731
    if args.worker == "pair":
        return pair(args, x, out)
    seconds, _ = measure(step, warmup=10, steps=args.calls, repeats=args.repeats)
    out["ms"] = seconds * 1e3
    out["rss_mb"] = _peak_rss_mb()
    print(json.dumps(out))


def pair(args, x, out):
    """lite and onnxruntime in one process, timed in alternating blocks (see the module docstring)."""
    import time

    import onnxruntime as ort

    from openspore import lite as mslite
    ctx = mslite.Context()
    ctx.cpu.thread_num = args.threads
    model = mslite.Model()
    model.build_from_file(args.path, mslite.ModelType.MINDIR_LITE, ctx)
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(x)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = args.threads
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(args.path[:-3] + ".onnx", opts, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    steps = {"lite": lambda: model.predict(inputs), "onnxruntime": lambda: sess.run(None, {name: x})}
    got = model.predict(inputs)[0].get_data_to_numpy()
    out["max_abs_diff"] = float(abs(got - sess.run(None, {name: x})[0]).max())
    times = {k: [] for k in steps}
    for f in steps.values():
        for _ in range(10):
            f()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    for _ in range(args.repeats * 2):
        for k, f in steps.items():
            t0 = clock()
            for _ in range(args.calls):
                f()
            times[k].append((clock() - t0) / args.calls * 1e3)
    out["lite_ms"] = statistics.median(times["lite"])
    out["ort_ms"] = statistics.median(times["onnxruntime"])
    out["ratio"] = statistics.median(a / b for a, b in zip(times["lite"], times["onnxruntime"]))
    print(json.dumps(out))


def _peak_rss_mb():
    """This process's peak resident set (VmHWM): unlike getrusage's ru_maxrss it does not carry the parent's
    peak across fork + exec, which made every worker report the set-up process's size."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    from common import peak_rss_mb
    return peak_rss_mb()


def run_worker(kind, model, path, x_path, args):
    cmd = [sys.executable, __file__, "--worker", kind, "--model", model, "--path", path, "--input", x_path,
           "--threads", str(args.threads), "--repeats", str(args.repeats), "--calls", str(CALLS[model]),
           "--clock", args.clock]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OPENBLAS_NUM_THREADS=str(args.threads),
               MKL_NUM_THREADS=str(args.threads), PYTHONPATH=REPO)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if proc.returncode != 0:
        return {"framework": kind, "model": model, "error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---- set-up and table ---------------------------------------------------------------------------------------
def prepare(workdir, name):
    import numpy as np

    import ms_models
    import openspore as ms
    from openspore.lite.converter import main as converter_main
    workload, shape = MODELS[name]
    net, _, _ = ms_models.build(workload)
    net.set_train(False)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    base = os.path.join(workdir, name)
    ms.export(net, ms.Tensor(x), file_name=base, file_format="ONNX")
    ms.export(net, ms.Tensor(x), file_name=base, file_format="MINDIR")
    np.save(base + "_x.npy", x)
    code = converter_main(["--fmk=ONNX", f"--modelFile={base}.onnx", f"--outputFile={base}"])
    if code != 0:
        raise SystemExit(f"converter_lite failed for {name}")
    return {"lite": base + ".ms", "onnxruntime": base + ".onnx", "openspore-torch": base + ".mindir",
            "pair": base + ".ms", "x": base + "_x.npy"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3, help="fresh processes per (framework, model), round-robin")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="the paired lite/onnxruntime blocks in wall time or in this process's CPU time")
    ap.add_argument("--worker", default=None)
    ap.add_argument("--model", default=None)
    ap.add_argument("--path", default=None)
    ap.add_argument("--input", default=None)
    ap.add_argument("--calls", type=int, default=100)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name in args.models:
            files = prepare(work, name)
            runs = {k: [] for k in ("lite", "onnxruntime", "openspore-torch", "pair")}
            for _ in range(args.rounds):
                for kind in runs:
                    runs[kind].append(run_worker(kind, name, files[kind], files["x"], args))
            rows.append((name, runs, os.path.getsize(files["lite"]), os.path.getsize(files["onnxruntime"])))
    print(f"\nbatch-1 inference, {args.threads} thread(s), median of {args.rounds} fresh processes "
          f"(each: median of {args.repeats} blocks; paired columns in {args.clock} time)\n")
    print("| model | lite ms | onnxruntime ms | lite / ort | max abs diff | openspore+torch ms | lite RSS MB | "
          "ort RSS MB | openspore+torch RSS MB | lite / openspore+torch RSS | .ms load ms | .ms KB | .onnx KB | "
          "separate processes: lite ms / ort ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, runs, ms_size, onnx_size in rows:
        med = {k: _median(v, "ms") for k, v in runs.items()}
        rss = {k: _median(v, "rss_mb") for k, v in runs.items()}
        load = _median(runs["lite"], "load_ms")
        paired = {k: _median(runs["pair"], k) for k in ("lite_ms", "ort_ms", "ratio", "max_abs_diff")}
        torch_seen = any(r.get("torch_imported") for r in runs["lite"])
        ratio = "n/a" if paired["ratio"] is None else f"{paired['ratio']:.2f}x"
        diff = "n/a" if paired["max_abs_diff"] is None else f"{paired['max_abs_diff']:.1e}"
        print(f"| {name} | {_f(paired['lite_ms'])} | {_f(paired['ort_ms'])} | {ratio} | {diff} | "
              f"{_f(med['openspore-torch'])} | {_f(rss['lite'], 0)} | {_f(rss['onnxruntime'], 0)} | "
              f"{_f(rss['openspore-torch'], 0)} | {_ratio(rss['lite'], rss['openspore-torch'])} | {_f(load)} | "
              f"{ms_size / 1024:.0f} | {onnx_size / 1024:.0f} | {_f(med['lite'])} / {_f(med['onnxruntime'])} |"
              + (" (lite imported torch!)" if torch_seen else ""))
        for k, v in runs.items():
            for r in v:
                if "error" in r:
                    print(f"  {k}/{name}: {r['error']}")


def _median(runs, key):
    values = [r[key] for r in runs if key in r]
    return statistics.median(values) if values else None


def _f(v, digits=3):
    return "n/a" if v is None else f"{v:.{digits}f}"


def _ratio(a, b):
    return "n/a" if a is None or b is None else f"{a / b:.2f}x"


if __name__ == "__main__":
    main()
