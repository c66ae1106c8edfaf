"""One benchmark measurement in a fresh process (so peak RSS is per row): prints one JSON line.

Training workloads first run `--loss-steps` steps from the initial weights and report their losses (openspore's
own network and batch; the torch and JAX peers start from the same ones, read from `--init`), then warm up and
time. `--export-init PATH` instead writes the openspore network's initial parameters and batch to PATH (.npz).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common import measure, peak_rss_mb  # noqa: E402

STEPS = {"mlp": 20, "lenet": 20, "resnet": 5, "gpt": 5, "infer_resnet": 50}
TRAINING = ("mlp", "lenet", "resnet", "gpt")


def export_init(workload, path):
    """The openspore network's initial parameters ("param/<name>") and its batch ("x", "y") as one .npz."""
    import numpy as np
    import ms_models
    net, x, y = ms_models.build(workload)
    arrays = {f"param/{p.name}": p.asnumpy() for p in net.get_parameters()}
    np.savez(path, x=x.asnumpy(), y=y.asnumpy(), **arrays)


def load_init(path):
    import numpy as np
    with np.load(path) as data:
        params = {k[len("param/"):]: data[k] for k in data.files if k.startswith("param/")}
        return params, data["x"], data["y"]


def _openspore_step(args, losses):
    import ms_models
    import openspore as ms
    ms.set_context(device_target=args.device)
    mode = args.framework[len("openspore-"):]
    if mode == "graph-fused":  # graph-kernel fusion by flag, no change to the network (docs/graph_kernel.md)
        ms.set_context(enable_graph_kernel=True)
        mode = "graph"
    if mode not in ("pynative", "graph"):
        raise SystemExit(f"unknown openspore framework {args.framework!r}: expected openspore-pynative, "
                         f"openspore-graph or openspore-graph-fused")
    outputs = []
    step, compile_s = ms_models.make_step(args.workload, mode=mode, outputs=outputs)
    if args.workload in TRAINING:
        losses.extend(float(v.asnumpy()) for v in outputs)  # graph mode ran its first step to compile
        while len(losses) < args.loss_steps:
            losses.append(float(step().asnumpy()))
    return step, compile_s, lambda: None


def _torch_step(args, losses):
    import torch
    import torch_models
    device = "cuda" if args.device == "GPU" else "cpu"
    init = load_init(args.init) if args.init and args.workload in TRAINING else None
    step = torch_models.make_step(args.workload, compiled=args.framework == "torch-compile", device=device,
                                  init=init)
    sync = torch.cuda.synchronize if args.device == "GPU" else (lambda: None)  # time kernels to their end
    compile_s = None
    if args.workload in TRAINING:
        t0 = time.perf_counter()
        losses.append(float(step()))
        if args.framework == "torch-compile":
            compile_s = time.perf_counter() - t0
        losses.extend(float(step()) for _ in range(args.loss_steps - 1))
    elif args.framework == "torch-compile":
        t0 = time.perf_counter()
        step()
        compile_s = time.perf_counter() - t0
    return step, compile_s, sync


def _jax_step(args, losses):
    if args.device != "CPU":
        raise SystemExit("jax-jit: the CPU build of JAX is what bench installs; --device GPU is not supported")
    os.environ.setdefault("XLA_FLAGS", f"--xla_cpu_multi_thread_eigen={'true' if args.threads > 1 else 'false'} "
                                       f"intra_op_parallelism_threads={args.threads}")
    import jax_models
    if args.workload == "infer_resnet":
        import ms_models
        net, x, _ = ms_models.build("infer_resnet")
        net.set_train(False)
        fn, xn = jax_models.resnet20_forward(jax_models.resnet20_params(net)), x.asnumpy()
        return (lambda: fn(xn).block_until_ready()), None, lambda: None
    if not args.init:
        raise SystemExit("jax-jit: training workloads start from the openspore weights: pass --init (run.py does)")
    step, sync = jax_models.train_step(args.workload, *load_init(args.init))
    t0 = time.perf_counter()
    losses.append(float(step()))
    compile_s = time.perf_counter() - t0
    losses.extend(float(step()) for _ in range(args.loss_steps - 1))
    return step, compile_s, sync


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--framework")
    ap.add_argument("--workload", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--loss-steps", type=int, default=3)
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    ap.add_argument("--init", help="the .npz of --export-init: torch and JAX start from openspore's weights")
    ap.add_argument("--export-init", metavar="PATH")
    ap.add_argument("--device", default="CPU", choices=["CPU", "GPU"])
    args = ap.parse_args()
    if args.export_init:
        export_init(args.workload, args.export_init)
        return
    if args.framework != "jax-jit":
        import torch
        torch.set_num_threads(args.threads)
    losses = []
    if args.framework.startswith("torch"):
        step, compile_s, sync = _torch_step(args, losses)
    elif args.framework == "jax-jit":
        step, compile_s, sync = _jax_step(args, losses)
    else:
        step, compile_s, sync = _openspore_step(args, losses)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    median, samples = measure(step, args.warmup, STEPS[args.workload], args.repeats, sync, clock=clock)
    print(json.dumps({"framework": args.framework, "workload": args.workload, "device": args.device,
                      "clock": args.clock, "s_per_step": median, "samples": samples, "losses": losses,
                      "peak_rss_mb": peak_rss_mb(), "compile_s": compile_s}))


if __name__ == "__main__":
    main()
