"""The dataset cache side by side with uncached reading, on a decode-heavy JPEG image-folder pipeline.

    python bench/data_cache.py                       # 300 JPEGs of 256-512 px, Decode/Resize/Normalize/HWC2CHW
    python bench/data_cache.py --images 600 --size 96 --cnn-epochs 3

Starts its own cache server on a free 127.0.0.1 port (and stops it), then prints one table:
  * epoch 1 and epoch 2 throughput (rows/s), uncached and with the cache on the map;
  * the first epoch of a second process that uses the same session (it reads the first process's copy);
  * a small CNN trained for 3 epochs end to end (data + training), uncached and cached, `--repeats` times
    alternated (median; the runs are printed too: on a shared machine single runs vary a lot).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
from common import free_port  # noqa: E402  (bench/ is on sys.path when a bench runs)

import openspore.dataset as ds  # noqa: E402
from openspore.dataset import vision  # noqa: E402


def make_jpegs(root, count, classes=10, seed=0):
    """`count` JPEGs of 256-512 px (smooth gradients plus noise, so they compress like photos), in class folders."""
    from PIL import Image
    rng = np.random.default_rng(seed)
    for i in range(count):
        h, w = (int(v) for v in rng.integers(256, 513, 2))
        yy, xx = np.mgrid[0:h, 0:w]
        base = np.stack([(xx * (c + 1) + yy * (3 - c)) % 256 for c in range(3)], axis=-1).astype(np.float32)
        pixels = np.clip(base + rng.normal(0, 20, (h, w, 3)), 0, 255).astype(np.uint8)
        folder = os.path.join(root, f"class{i % classes}")
        os.makedirs(folder, exist_ok=True)
        Image.fromarray(pixels).save(os.path.join(folder, f"{i:05d}.jpg"), quality=90)
    return root


def pipeline(folder, size, cache=None):
    data = ds.ImageFolderDataset(folder, shuffle=True)
    ops = [vision.Decode(), vision.Resize((size, size)), vision.Normalize(mean=[123.7, 116.3, 103.5],
                                                                         std=[58.4, 57.1, 57.4]), vision.HWC2CHW()]
    return data.map(ops, input_columns="image", cache=cache)


def epochs_rows_per_s(dataset, epochs):
    it = dataset.create_tuple_iterator(output_numpy=True, num_epochs=epochs)
    out = []
    for _ in range(epochs):
        start, n = time.perf_counter(), 0
        for _ in it:
            n += 1
        out.append(n / (time.perf_counter() - start))
    return out


def train_seconds(dataset, epochs, seed=0):
    """Wall time of `epochs` epochs of a small CNN fed by `dataset` (batched here)."""
    import openspore as ms
    from openspore import nn
    from openspore.train import Model

    class SmallCNN(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3, stride=2)
            self.conv2 = nn.Conv2d(8, 16, 3, stride=2)
            self.relu, self.pool, self.flatten = nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten()
            self.fc = nn.Dense(16 * 4 * 4, 10)

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            return self.fc(self.flatten(x))

    ms.set_seed(seed)
    net = SmallCNN()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.01, 0.9))
    data = dataset.batch(32)
    start = time.perf_counter()
    model.train(epochs, data, dataset_sink_mode=False)
    return time.perf_counter() - start



def child(args):
    """A second process: its first epoch of the same pipeline, with the session given (0: uncached)."""
    if not args.session:
        print(json.dumps({"rows_per_s": epochs_rows_per_s(pipeline(args.folder, args.size), 1)[0]}))
        return
    cache = ds.DatasetCache(args.session, port=args.port)
    rate = epochs_rows_per_s(pipeline(args.folder, args.size, cache), 1)[0]
    stat = cache.get_stat()
    print(json.dumps({"rows_per_s": rate, "hits": stat.hits, "cached": stat.num_mem_cached}))


def run_child(folder, size, session, port):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", "--folder", folder, "--session",
                          str(session), "--port", str(port), "--size", str(size)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=300)
    parser.add_argument("--size", type=int, default=64, help="Resize target (the CNN expects 64)")
    parser.add_argument("--cnn-epochs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3, help="CNN runs of each kind (median reported)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--session", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    from openspore.dataset.cache import admin
    from openspore.dataset.cache.client import Connection

    with tempfile.TemporaryDirectory(prefix="openspore-bench-cache-") as tmp:
        folder = make_jpegs(tmp, args.images)
        port = free_port()
        if admin.main(["--start", "-p", str(port), "-w", "2"]) != 0:
            raise SystemExit("could not start the cache server")
        conn = Connection("127.0.0.1", port, attach_shm=False)
        try:
            ds.config.set_seed(0)
            epochs_rows_per_s(pipeline(folder, args.size).take(32), 1)  # warm-up: library set-up, file cache
            plain = epochs_rows_per_s(pipeline(folder, args.size), 2)
            session = conn.call("new_session")[0]["session_id"]
            cache = ds.DatasetCache(session, port=port)
            cached = epochs_rows_per_s(pipeline(folder, args.size, cache), 2)
            second_plain = run_child(folder, args.size, 0, port)  # a fresh process, uncached
            second = run_child(folder, args.size, session, port)  # a fresh process on the same session
            train_seconds(pipeline(folder, args.size).take(64), 1)  # warm-up: kernels, allocator
            plain_runs, cached_runs = [], []
            for _ in range(args.repeats):  # alternated, each cached run on a fresh (empty) session
                plain_runs.append(train_seconds(pipeline(folder, args.size), args.cnn_epochs))
                sid = conn.call("new_session")[0]["session_id"]
                cnn_cache = ds.DatasetCache(sid, port=port)
                cached_runs.append(train_seconds(pipeline(folder, args.size, cnn_cache), args.cnn_epochs))
                conn.call("drop_session", session_id=sid)
            t_plain, t_cached = statistics.median(plain_runs), statistics.median(cached_runs)
        finally:
            conn.close()
            admin.main(["--stop", "-p", str(port)])
    print(f"\n{args.images} JPEGs (256-512 px) -> Decode, Resize({args.size}), Normalize, HWC2CHW; cache on the map")
    print(f"{'measurement':44s} {'uncached':>10s} {'cached':>10s} {'ratio':>8s}")
    rows = [("epoch 1 (rows/s)", plain[0], cached[0]),
            ("epoch 2 (rows/s)  [cached / uncached epoch]", plain[1], cached[1]),
            ("2nd process, same session, epoch 1 (rows/s)", second_plain["rows_per_s"], second["rows_per_s"])]
    for name, a, b in rows:
        print(f"{name:44s} {a:10.1f} {b:10.1f} {b / a:7.2f}x")
    print(f"{'small CNN, ' + str(args.cnn_epochs) + ' epochs end to end (s, median)':44s} {t_plain:10.2f} "
          f"{t_cached:10.2f} {t_plain / t_cached:7.2f}x  ({(1 - t_cached / t_plain) * 100:.1f}% less time)")
    print(f"(CNN runs, uncached: {', '.join(f'{t:.2f}' for t in plain_runs)}; cached: "
          f"{', '.join(f'{t:.2f}' for t in cached_runs)})")
    print(f"(the shared copy: {second['cached']} rows; {second['hits']} hits so far, both processes together)")


if __name__ == "__main__":
    main()
