"""One benchmark measurement in a fresh process (so peak RSS is per row): prints one JSON line."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common import measure, peak_rss_mb  # noqa: E402

STEPS = {"mlp": 20, "lenet": 20, "resnet": 5, "gpt": 5, "infer_resnet": 50}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--framework", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--device", default="CPU", choices=["CPU", "GPU"])
    args = ap.parse_args()
    import torch
    torch.set_num_threads(args.threads)
    sync = lambda: None  # noqa: E731
    if args.device == "GPU":
        sync = torch.cuda.synchronize  # kernels run asynchronously: time to their end, not their launch
    compile_s = None
    if args.framework.startswith("torch"):
        import time
        import torch_models
        step = torch_models.make_step(args.workload, compiled=args.framework == "torch-compile",
                                       device="cuda" if args.device == "GPU" else "cpu")
        if args.framework == "torch-compile":
            t0 = time.perf_counter()
            step()
            compile_s = time.perf_counter() - t0
    elif args.framework == "jax-jit":
        if args.workload != "infer_resnet":
            raise SystemExit(f"jax-jit: only infer_resnet is written in JAX so far (bench/jax_models.py), not "
                             f"{args.workload}")
        import ms_models
        import jax_models
        net, x, _ = ms_models.build("infer_resnet")
        net.set_train(False)
        fn, xn = jax_models.resnet20_forward(jax_models.resnet20_params(net)), x.asnumpy()
        step = lambda: fn(xn).block_until_ready()  # noqa: E731
    else:
        import ms_models
        import openspore as ms
        ms.set_context(device_target=args.device)
        step, compile_s = ms_models.make_step(args.workload, mode=args.framework.split("-", 1)[1])
    n = STEPS[args.workload]
    median, samples = measure(step, args.warmup, n, args.repeats, sync)
    print(json.dumps({"framework": args.framework, "workload": args.workload, "device": args.device,
                      "s_per_step": median,
                      "samples": samples, "peak_rss_mb": peak_rss_mb(), "compile_s": compile_s}))


if __name__ == "__main__":
    main()
