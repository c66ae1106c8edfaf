"""Train LeNet5 on synthetic digits and write the servable's model files: lenet/1/lenet5.ckpt (and
lenet/1/lenet5.mindir when openspore.export exists).

    python examples/serving/prepare.py [--steps 60] [--servable-dir examples/serving]
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import openspore as ms  # noqa: E402
from openspore import nn, ops  # noqa: E402

from digits import make_digits  # noqa: E402
from lenet.network import BATCH, LeNet5  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--servable-dir", default=HERE, help="the servable directory holding lenet/")
    args = parser.parse_args()
    ms.set_seed(0)
    net = LeNet5()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda x, y: ops.cross_entropy(net(x), y), None, opt.parameters)
    images, labels = make_digits(BATCH * args.steps, seed=1)
    x_all = images.reshape(-1, 1, 32, 32).astype(np.float32) / 255.0
    for step in range(args.steps):
        s = slice(step * BATCH, (step + 1) * BATCH)
        loss, grads = grad_fn(ms.Tensor(x_all[s]), ms.Tensor(labels[s].astype(np.int64)))
        opt(grads)
        if step % 20 == 0 or step == args.steps - 1:
            print(f"step {step:3d}  loss {float(loss):.4f}")
    net.set_train(False)
    test_images, test_labels = make_digits(256, seed=2)
    logits = net(ms.Tensor(test_images.reshape(-1, 1, 32, 32).astype(np.float32) / 255.0)).asnumpy()
    print(f"accuracy on 256 fresh digits: {(logits.argmax(1) == test_labels).mean():.3f}")
    version_dir = os.path.join(args.servable_dir, "lenet", "1")
    os.makedirs(version_dir, exist_ok=True)
    ms.save_checkpoint(net, os.path.join(version_dir, "lenet5.ckpt"))
    print(f"wrote {os.path.join(version_dir, 'lenet5.ckpt')}")
    if hasattr(ms, "export"):
        ms.export(net, ms.Tensor(np.zeros((BATCH, 1, 32, 32), np.float32)),
                  file_name=os.path.join(version_dir, "lenet5"), file_format="MINDIR")
        print(f"wrote {os.path.join(version_dir, 'lenet5.mindir')}")


if __name__ == "__main__":
    main()
