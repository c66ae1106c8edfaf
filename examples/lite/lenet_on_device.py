"""Train on the server, fine-tune on the device, serve: LeNet5 on scikit-learn's digits with openspore.lite.

    python examples/lite/lenet_on_device.py [--workdir DIR] [--server-steps 30] [--device-epochs 2]

1. server (openspore, torch backend): a few training steps of LeNet5, then `ms.export` of the training step
   TrainOneStepCell(WithLossCell(net, loss), Momentum) as MindIR;
2. convert: `converter_lite --fmk=MINDIR --trainModel=true` → lenet_train.ms;
3. device (a separate process in which `import torch` fails): `Model.build_from_file(..., train_cfg=TrainCfg())`,
   `train` for a few epochs with LossMonitor, `evaluate` with AccuracyMetrics, then
   `export(..., export_inference_only=True)` → lenet_infer.ms, loaded again and used to `predict`.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BATCH = 32


def digits():
    """(x_train, y_train, x_test, y_test): 8x8 digits upsampled (nearest) to 32x32 and normalised."""
    from sklearn.datasets import load_digits
    d = load_digits()
    images, labels = (d.images / 16.0).astype(np.float32), d.target.astype(np.int32)
    order = np.random.default_rng(0).permutation(len(labels))
    test, train = order[:360], order[360:]

    def prep(a):
        return ((np.kron(a, np.ones((4, 4), np.float32)) - 0.3) / 0.4)[:, None].astype(np.float32)
    return prep(images[train]), labels[train], prep(images[test]), labels[test]


def batches(x, y):
    return [(x[i:i + BATCH], y[i:i + BATCH]) for i in range(0, len(y) - BATCH + 1, BATCH)]


def server(workdir, steps):
    import openspore as ms
    from openspore import nn
    sys.path.insert(0, REPO)
    from examples.digits_lenet import LeNet5
    x, y, _, _ = digits()
    ms.set_seed(1)
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.05, 0.9))
    step.set_train()
    for bx, by in batches(x, y)[:steps]:
        value = step(ms.Tensor(bx), ms.Tensor(by))
    print(f"[server] {steps} steps, last loss {float(value.asnumpy()):.4f}")
    path = os.path.join(workdir, "lenet_train")
    ms.export(step, ms.Tensor(x[:BATCH]), ms.Tensor(y[:BATCH]), file_name=path, file_format="MINDIR")
    print(f"[server] exported the training step to {path}.mindir")
    return path + ".mindir"


def convert(mindir, workdir):
    out = os.path.join(workdir, "lenet_train")
    res = subprocess.run([sys.executable, "-m", "openspore.lite.converter_lite", "--fmk=MINDIR", "--trainModel=true",
                          f"--modelFile={mindir}", f"--outputFile={out}"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=REPO))
    print(f"[convert] {res.stdout.strip()}")
    if res.returncode != 0:
        raise SystemExit(res.stderr)
    return out + ".ms"


def device(ms_file, workdir, epochs):
    class _NoTorch:  # this "device" has no torch: prove openspore.lite does not need it
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ImportError("no torch on this device")
    sys.meta_path.insert(0, _NoTorch())
    from openspore import lite as mslite
    x, y, xt, yt = digits()
    context = mslite.Context()
    context.cpu.thread_num = 1
    model = mslite.Model()
    model.build_from_file(ms_file, mslite.ModelType.MINDIR_LITE, context, train_cfg=mslite.TrainCfg())
    print(f"[device] training memory plan: {model.memory_plan()}")
    test = [(xt[i:i + BATCH], yt[i:i + BATCH]) for i in range(0, 352, BATCH)]
    before = model.evaluate(test, [mslite.AccuracyMetrics()])["AccuracyMetrics"]
    model.train(epochs, batches(x, y), [mslite.LossMonitor()])
    after = model.evaluate(test, [mslite.AccuracyMetrics()])["AccuracyMetrics"]
    print(f"[device] test accuracy {before:.3f} before fine-tuning, {after:.3f} after")
    path = model.export(os.path.join(workdir, "lenet_infer"), export_inference_only=True)
    served = mslite.Model()
    served.build_from_file(path, mslite.ModelType.MINDIR_LITE, context)
    served.resize(served.get_inputs(), [[len(yt), 1, 32, 32]])
    inputs = served.get_inputs()
    inputs[0].set_data_from_numpy(xt)
    pred = served.predict(inputs)[0].get_data_to_numpy().argmax(1)
    print(f"[device] exported {path} ({os.path.getsize(path)} bytes); its accuracy on all {len(yt)} test images: "
          f"{(pred == yt).mean():.3f}; torch imported: {'torch' in sys.modules}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--server-steps", type=int, default=30)
    ap.add_argument("--device-epochs", type=int, default=3)
    ap.add_argument("--device", default=None, help=argparse.SUPPRESS)  # internal: run the device part on this .ms
    args = ap.parse_args(argv)
    if args.device:
        return device(args.device, args.workdir, args.device_epochs)
    workdir = args.workdir or tempfile.mkdtemp(prefix="lite_example_")
    ms_file = convert(server(workdir, args.server_steps), workdir)
    env = dict(os.environ, PYTHONPATH=REPO, OPENBLAS_NUM_THREADS="1")
    subprocess.run([sys.executable, __file__, "--device", ms_file, "--workdir", workdir, "--device-epochs",
                    str(args.device_epochs)], check=True, env=env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
