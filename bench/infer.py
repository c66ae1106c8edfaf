"""infer_resnet batch-1 latency, every peer side by side in ONE process: openspore's inference path (torch, and
with an engine), PyTorch eager, torch.compile, JAX jit, ONNX Runtime and OpenVINO, on the same ResNet-20
(bench/ms_models.py) with the same weights (BatchNorm statistics randomised so folding matters).

    python bench/infer.py [--threads 2] [--rounds 7] [--calls 50] [--no-compile]

The peers run in turn, one block of `--calls` calls each, `--rounds` times (round-robin: load from other work
on a shared machine falls on every peer alike). Each round takes the peers in a new shuffled order (fixed seed),
so no peer always follows the same one, and each block starts after a `--settle` pause and one untimed call:
thread pools spin for a while after their last task (libgomp's OpenMP workers under torch, ONNX Runtime's,
XLA's), and a block that started at once would share the cores with its predecessor's spinning threads. The
table gives each peer's median ms/call over the blocks, the
spread, and the ratio to OpenVINO and to the best of PyTorch eager / torch.compile / JAX. Every peer's output is
checked against openspore's unoptimised graph path first (max abs difference shown). Threads: `--threads` for
torch (intra-op), JAX/XLA (set before import through XLA_FLAGS), ONNX Runtime (intra_op_num_threads) and
OpenVINO (INFERENCE_NUM_THREADS). ONNX Runtime and OpenVINO read the ONNX file openspore exports
(`ms.export(..., file_format="ONNX")`). Each engine peer is configured as openspore's inference path configures
that engine (runtime/engines.py), so neither side has settings the other lacks: OpenVINO with PERFORMANCE_HINT
LATENCY and f32 precision; ONNX Runtime sequential, all graph optimisations, workers not spinning between calls
(`--ort-spin` gives the peer ONNX Runtime's default spinning instead; openspore's `auto` also measures a
session with spinning workers and keeps the faster, docs/inference.md). Peer packages: `pip install ".[bench]"`.
"""
import argparse
import os
import random
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))


def _randomise_batchnorm(net, ms, np):
    rng = np.random.default_rng(1)
    for p in net.get_parameters():
        if "moving_variance" in p.name or "gamma" in p.name:
            p.set_data(ms.Tensor(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))
        elif "moving_mean" in p.name or "beta" in p.name:
            p.set_data(ms.Tensor(rng.uniform(-0.3, 0.3, p.shape).astype(np.float32)))


def _torch_model(net, torch):
    import torch_models
    model = torch_models.ResNet20().eval()
    names = {"gamma": "weight", "beta": "bias", "moving_mean": "running_mean", "moving_variance": "running_var"}
    state = {}
    for p in net.get_parameters():
        head, _, leaf = p.name.rpartition(".")
        state[f"{head}.{names.get(leaf, leaf)}"] = torch.from_numpy(p.asnumpy().copy())
    missing = model.load_state_dict(state, strict=False)
    if missing.missing_keys and any(not k.endswith("num_batches_tracked") for k in missing.missing_keys):
        raise RuntimeError(f"torch peer: weights not set: {missing.missing_keys}")
    return model


def build(args):
    """{peer name: zero-argument call}, the reference output, and each peer's max abs difference from it."""
    os.environ.setdefault("XLA_FLAGS", f"--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads={args.threads}")
    import numpy as np
    import torch
    torch.set_num_threads(args.threads)
    import ms_models
    import openspore as ms
    net, x, _ = ms_models.build("infer_resnet")
    net.set_train(False)
    _randomise_batchnorm(net, ms, np)
    xn = x.asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE, inference_engine="off")
    reference = net(x).asnumpy()
    peers, outputs, enter = {}, {}, {}

    for engine in args.engines:
        ms.set_context(inference_engine=engine)
        outputs[f"openspore-{engine}"] = net(x).asnumpy()
        report = ms.runtime.inference_report(net)
        if report is not None and engine == "auto":  # which engine the first call measured fastest
            timed = ", ".join(f"{k} {v:.3f} ms" for k, v in report["timings_ms"].items())
            print(f"openspore-auto runs on {report['engine']} (first-call measurement: {timed or 'one candidate'}"
                  f"{'; left out: ' + str(report['rejected']) if report['rejected'] else ''})", flush=True)
        peers[f"openspore-{engine}"] = lambda: net(x)
        enter[f"openspore-{engine}"] = lambda engine=engine: ms.set_context(inference_engine=engine)
    model = _torch_model(net, torch)
    tx = torch.from_numpy(xn)

    def eager():
        with torch.no_grad():
            return model(tx)
    peers["torch-eager"] = eager
    outputs["torch-eager"] = eager().numpy()
    if not args.no_compile:
        compiled = torch.compile(model)

        def compiled_call():
            with torch.no_grad():
                return compiled(tx)
        t0 = time.perf_counter()
        outputs["torch-compile"] = compiled_call().numpy()
        print(f"torch.compile: first call {time.perf_counter() - t0:.1f} s", flush=True)
        peers["torch-compile"] = compiled_call
    try:
        import jax_models
        fn = jax_models.resnet20_forward(jax_models.resnet20_params(net))
        outputs["jax-jit"] = jax_models.run(fn, xn)
        peers["jax-jit"] = lambda: fn(xn).block_until_ready()
    except ImportError as exc:
        print(f"jax-jit: skipped ({exc})")
    onnx_path = os.path.join(tempfile.mkdtemp(prefix="bench-infer-"), "resnet20")
    onnx_path = ms.export(net, x, file_name=onnx_path, file_format="ONNX") or onnx_path + ".onnx"
    try:
        import onnxruntime as ort
        opts = ort.SessionOptions()
        opts.intra_op_num_threads, opts.inter_op_num_threads = args.threads, 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if not args.ort_spin:
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        sess = ort.InferenceSession(onnx_path, opts, providers=["CPUExecutionProvider"])
        name = sess.get_inputs()[0].name
        outputs["onnxruntime"] = sess.run(None, {name: xn})[0]
        peers["onnxruntime"] = lambda: sess.run(None, {name: xn})
    except ImportError as exc:
        print(f"onnxruntime: skipped ({exc})")
    try:
        import openvino as ov
        compiled_ov = ov.Core().compile_model(onnx_path, "CPU", {"PERFORMANCE_HINT": "LATENCY",
                                                                  "INFERENCE_NUM_THREADS": args.threads,
                                                                  "INFERENCE_PRECISION_HINT": "f32"})
        request = compiled_ov.create_infer_request()
        outputs["openvino"] = request.infer({0: xn})[0]
        peers["openvino"] = lambda: request.infer({0: xn}, share_inputs=True)
    except ImportError as exc:
        print(f"openvino: skipped ({exc})")
    diffs = {k: float(np.abs(np.asarray(v) - reference).max()) for k, v in outputs.items()}
    return peers, diffs, enter


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--no-compile", action="store_true", help="leave torch.compile out (its compile is slow)")
    ap.add_argument("--settle", type=float, default=0.05, help="pause (s) before each timed block")
    ap.add_argument("--ort-spin", action="store_true", help="the ONNX Runtime peer with its default spinning")
    ap.add_argument("--engines", nargs="+", default=["off", "torch", "auto"],
                    help="openspore rows: set_context(inference_engine=...) values")
    args = ap.parse_args(argv)
    load = os.getloadavg()
    peers, diffs, enter = build(args)
    for k, call in peers.items():
        enter.get(k, lambda: None)()
        for _ in range(args.warmup):
            call()
    times = {k: [] for k in peers}
    names = list(peers)
    order = random.Random(0)
    for _ in range(args.rounds):
        order.shuffle(names)  # see the module docstring: no peer always follows the same one
        for k in names:
            call = peers[k]
            enter.get(k, lambda: None)()  # openspore's engine setting, outside the timed block
            time.sleep(args.settle)
            call()
            t0 = time.perf_counter()
            for _ in range(args.calls):
                call()
            times[k].append((time.perf_counter() - t0) / args.calls * 1e3)
    med = {k: statistics.median(v) for k, v in times.items()}
    best_name = min((k for k in ("torch-eager", "torch-compile", "jax-jit") if k in med), key=med.get)
    ov = med.get("openvino")
    print(f"infer_resnet batch 1, {args.threads} threads, {args.rounds} rounds x {args.calls} calls, load average "
          f"{load[0]:.2f} before / {os.getloadavg()[0]:.2f} after")
    print(f"{'peer':<20}{'ms/call':>10}{'spread ms':>18}{'vs best of eager/compile/jax':>30}{'vs OpenVINO':>13}"
          f"{'max |diff|':>12}")
    for k in peers:
        spread = f"{min(times[k]):.3f}-{max(times[k]):.3f}"
        to_ov = f"{med[k] / ov:.2f}x" if ov else "-"
        print(f"{k:<20}{med[k]:>10.3f}{spread:>18}{med[k] / med[best_name]:>29.2f}x{to_ov:>13}{diffs[k]:>12.2e}")
    print(f"(ratios: latency / the peer's latency; best of eager/compile/jax here: {best_name})")
    if "onnxruntime" in med and "openspore-auto" in med:
        print(f"openspore-auto / ONNX Runtime on openspore's exported ONNX: {med['openspore-auto'] / med['onnxruntime']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
