"""Federated LeNet5 on non-IID digits: 100 simulated devices against a real FLServer on 127.0.0.1.

    python examples/federated/simulate.py --clients 100 --iterations 20 --encrypt-type NOT_ENCRYPT|PW_ENCRYPT|DP_ENCRYPT

1. server side (openspore): LeNet5 (examples/digits_lenet.py) exported as a training step and converted to a
   `.ms` training model (`converter_lite --trainModel=true`), whose weights start the job;
2. the digits (8x8 → 32x32) are split among the devices by a Dirichlet(alpha) over the labels (non-IID);
3. an FLServer (HTTP on an ephemeral loopback port) runs the job; each iteration, `--participants` devices train
   their local copy with openspore.lite and upload (masked under PW_ENCRYPT, clipped + noised under DP_ENCRYPT);
4. one line per iteration (status, uploads, test accuracy of the global model, time; ε under DP); at the end
   `test accuracy: X`, and a picture of the accuracy curves of every run kept in --out.
"""
import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)


def digits(seed=0):
    from sklearn.datasets import load_digits
    d = load_digits()
    images, labels = (d.images / 16.0).astype(np.float32), d.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(labels))
    test, train = order[:360], order[360:]

    def prep(a):
        return ((np.kron(a, np.ones((4, 4), np.float32)) - 0.3) / 0.4)[:, None].astype(np.float32)
    return prep(images[train]), labels[train], prep(images[test]), labels[test]


def plot(histories, path):
    """Accuracy per iteration, one curve per run, drawn with Pillow (a dependency of openspore already)."""
    from PIL import Image, ImageDraw
    w, h, m = 640, 400, 50
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    n = max(len(v) for v in histories.values())
    d.line([(m, m), (m, h - m), (w - m, h - m)], fill="black")
    for acc in (0.0, 0.5, 0.9, 1.0):
        y = h - m - acc * (h - 2 * m)
        d.line([(m - 4, y), (w - m, y)], fill=(220, 220, 220))
        d.text((8, y - 6), f"{acc:.1f}", fill="black")
    d.text((w // 2 - 40, h - m + 15), "iteration", fill="black")
    d.text((m, 15), "federated LeNet5, non-IID digits: test accuracy", fill="black")
    colors = {"NOT_ENCRYPT": (31, 119, 180), "PW_ENCRYPT": (214, 39, 40), "DP_ENCRYPT": (44, 160, 44)}
    for k, (name, accs) in enumerate(sorted(histories.items())):
        pts = [(m + (i + 1) / max(n, 1) * (w - 2 * m), h - m - a * (h - 2 * m)) for i, a in enumerate(accs)]
        color = colors.get(name, (120, 120, 120))
        if len(pts) > 1:
            d.line(pts, fill=color, width=2)
        d.text((w - m - 150, h - m - 20 - 15 * k), f"{name}: {accs[-1]:.3f}", fill=color)
    img.save(path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--participants", type=int, default=50, help="devices that join each iteration")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--encrypt-type", default="NOT_ENCRYPT", choices=["NOT_ENCRYPT", "PW_ENCRYPT", "DP_ENCRYPT"])
    ap.add_argument("--epochs", type=int, default=5, help="local epochs per iteration")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--alpha", type=float, default=0.5, help="Dirichlet concentration (smaller: more non-IID)")
    ap.add_argument("--drop-rate", type=float, default=0.0, help="fraction of participants vanishing mid-round")
    ap.add_argument("--dp-eps", type=float, default=50.0)
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "openspore_fl_example"))
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    import openspore as ms
    from examples.digits_lenet import LeNet5
    from openspore.federated import FLContext, FLServer
    from openspore.federated.export import export_client_model
    from openspore.federated.simulator import dirichlet_split, simulate
    from openspore.federated.trainer import LiteTrainer

    x, y, xt, yt = digits()
    ms.set_seed(1)
    ms_path, weights = export_client_model(LeNet5(), x[:args.batch], y[:args.batch],
                                           os.path.join(args.out, "lenet_train.ms"), lr=args.lr, momentum=0.9)
    parts = dirichlet_split(y, args.clients, args.alpha, np.random.default_rng(0), min_size=2)
    devices = [(f"device-{k:04d}", x[p], y[p]) for k, p in enumerate(parts)]
    print(f"{args.clients} devices, {len(y)} training images (sizes {min(map(len, parts))}..{max(map(len, parts))}, "
          f"Dirichlet alpha {args.alpha}); {args.participants} per iteration; {args.encrypt_type}")

    ctx = FLContext(fl_name="lenet_digits", fl_server_port=0, start_fl_job_threshold=args.participants,
                    start_fl_job_time_window=30000, update_model_ratio=0.5 if args.drop_rate else 1.0,
                    update_model_time_window=30000 if not args.drop_rate else 5000, cipher_time_window=30000,
                    fl_iteration_num=args.iterations, client_epoch_num=args.epochs, client_batch_size=args.batch,
                    client_learning_rate=args.lr, encrypt_type=args.encrypt_type, dp_eps=args.dp_eps,
                    dp_delta=1.0 / args.clients, dp_norm_clip=1.0, checkpoint_dir=os.path.join(args.out, "ckpt_"
                                                                                              + args.encrypt_type))
    for stale in (os.listdir(ctx.checkpoint_dir) if os.path.isdir(ctx.checkpoint_dir) else []):
        os.remove(os.path.join(ctx.checkpoint_dir, stale))   # a fresh job each run
    evaluator = LiteTrainer(ms_path, xt, yt)
    accs = []

    def report(record, statuses, elapsed):
        evaluator.set_weights(server.job.weights)
        acc = evaluator.evaluate(xt, yt)
        accs.append(acc)
        dp = (f", eps this round {record['dp_eps_round']:.2f}, total {record['dp_eps_total']:.2f}"
              if "dp_eps_total" in record else "")
        print(f"iteration {record['iteration']:3d}: {record['status']:9s} uploads {record['updates']:3d} "
              f"test accuracy {acc:.4f}  {elapsed:.1f} s{dp}", flush=True)

    with FLServer(ctx, weights) as server:
        t0 = time.perf_counter()
        simulate(server, devices, lambda xs, ys: LiteTrainer(ms_path, xs, ys), args.iterations, args.participants,
                 drop_rate=args.drop_rate, drop_phase="shareSecrets" if args.encrypt_type == "PW_ENCRYPT"
                 else "startFLJob", on_iteration=report)
        total = time.perf_counter() - t0
    history = os.path.join(args.out, f"accuracy_{args.encrypt_type}.json")
    with open(history, "w") as f:
        json.dump(accs, f)
    runs = {}
    for name in ("NOT_ENCRYPT", "PW_ENCRYPT", "DP_ENCRYPT"):
        p = os.path.join(args.out, f"accuracy_{name}.json")
        if os.path.exists(p):
            with open(p) as f:
                runs[name] = json.load(f)
    picture = os.path.join(args.out, "accuracy.png")
    plot(runs, picture)
    print(f"{args.iterations} iterations in {total:.1f} s; metrics in {ctx.checkpoint_dir}; curves in {picture}")
    print(f"test accuracy: {accs[-1]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
