"""LeNet5 on scikit-learn's handwritten digits, trained with `Model` — a MindSpore-style script on real data.

The 1797 8x8 digit images (bundled with scikit-learn, no download) are split once with a fixed seed
(1437 train / 360 test), upsampled to 32x32 with bilinear `vision.Resize` in an `openspore.dataset`
pipeline and fed to the LeNet5 of MindSpore's tutorial (conv 5x5 'valid' → max-pool → conv → pool →
dense 120/84/10), trained with Adam and a per-epoch cosine learning-rate decay. Typical run: about 98%
test accuracy in well under a minute on two CPU cores.

    python examples/digits_lenet.py [--epochs 10] [--mode pynative|graph] [--backend torch|numpy]
                                    [--min-accuracy 0.97]
"""
import argparse
import sys
import time

import numpy as np

import openspore as ms
import openspore.dataset as ds
from openspore import nn
from openspore.common.initializer import Normal
from openspore.dataset import vision
from openspore.train import Model, LossMonitor, TimeMonitor

MEAN, STD = 0.30, 0.40  # of the digit images scaled to [0, 1]


class LeNet5(nn.Cell):
    """LeNet5 as in MindSpore's tutorial: input (N, 1, 32, 32) → logits (N, num_class)."""

    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120, weight_init=Normal(0.02))
        self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
        self.fc3 = nn.Dense(84, num_class, weight_init=Normal(0.02))
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def load_split(test_fraction=0.2, seed=0):
    """(train_images, train_labels, test_images, test_labels): 8x8 float32 images in [0, 1], int32 labels;
    the same split on every run (a seeded permutation)."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(labels))
    n_test = int(round(len(labels) * test_fraction))
    test, train = order[:n_test], order[n_test:]
    return images[train], labels[train], images[test], labels[test]


def create_dataset(images, labels, batch_size=32, shuffle=True):
    """NumpySlicesDataset → bilinear resize to 32x32 → normalise → CHW → batches of (image, label)."""
    data = ds.NumpySlicesDataset({"image": images[..., None], "label": labels}, shuffle=shuffle)
    data = data.map([vision.Resize((32, 32)), vision.Normalize(mean=(MEAN,), std=(STD,)), vision.HWC2CHW()],
                    input_columns="image", num_parallel_workers=1)
    return data.batch(batch_size)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("pynative", "graph"), default="pynative")
    parser.add_argument("--backend", choices=("torch", "numpy"), default=None)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.003, help="peak learning rate (cosine decay per epoch)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-accuracy", type=float, default=None,
                        help="exit with status 1 when the test accuracy is below this")
    args = parser.parse_args(argv)

    ms.set_context(mode=ms.GRAPH_MODE if args.mode == "graph" else ms.PYNATIVE_MODE)
    if args.backend:
        ms.set_context(backend=args.backend)
    ms.set_seed(args.seed)
    ds.config.set_seed(args.seed)

    x_train, y_train, x_test, y_test = load_split()
    train_set = create_dataset(x_train, y_train, args.batch_size, shuffle=True)
    test_set = create_dataset(x_test, y_test, args.batch_size, shuffle=False)
    print(f"digits: {len(y_train)} train / {len(y_test)} test images, {train_set.get_dataset_size()} steps per epoch, "
          f"mode {args.mode}, backend {ms.get_context('backend')}", flush=True)

    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    steps = train_set.get_dataset_size()
    schedule = nn.cosine_decay_lr(args.lr / 50, args.lr, steps * args.epochs, steps, args.epochs)
    optimizer = nn.Adam(net.trainable_params(), learning_rate=schedule)
    model = Model(net, loss, optimizer, metrics={"accuracy"})

    start = time.perf_counter()
    model.train(args.epochs, train_set, callbacks=[LossMonitor(per_print_times=steps), TimeMonitor()])
    accuracy = model.eval(test_set)["accuracy"]
    print(f"test accuracy: {accuracy:.4f} ({time.perf_counter() - start:.1f} s)", flush=True)
    if args.min_accuracy is not None and accuracy < args.min_accuracy:
        print(f"test accuracy {accuracy:.4f} is below --min-accuracy {args.min_accuracy}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
