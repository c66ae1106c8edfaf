"""Starting and stopping real cache servers on 127.0.0.1 for the cache tests, and checking nothing is left."""
import os
import signal
import socket
import time

import numpy as np

import openspore.dataset as ds
from openspore.dataset import vision
from openspore.dataset.cache import admin
from openspore.dataset.cache.arena import attach
from openspore.dataset.cache.client import Connection


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pid_alive(pid):
    return admin.pid_alive(pid)


def shm_names():
    """Named POSIX shared-memory segments of openspore's cache (the server uses none; a leak would show here).
    Only ours: other tests running beside these (torch workers) come and go in /dev/shm too."""
    if not os.path.isdir("/dev/shm"):
        return set()
    return {name for name in os.listdir("/dev/shm") if "openspore" in name or "cache" in name}


def mapped_by_me(port):
    """Whether this process still maps the shared memory of the server on `port`."""
    with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
        return f"openspore-dataset-cache-p{port}" in f.read()


class Server:
    """A cache server daemon started with `dataset-cache --start` on a free port."""

    def __init__(self, *extra):
        self.port = free_port()
        self.shm_before = shm_names()
        rc = admin.main(["--start", "-h", "127.0.0.1", "-p", str(self.port), "-w", "2", "-m", "1", *extra])
        assert rc == 0, f"cache server did not start (rc {rc})"
        conn = Connection("127.0.0.1", self.port, attach_shm=False)
        self.pid = conn.pid
        conn.close()

    def session(self):
        conn = Connection("127.0.0.1", self.port, attach_shm=False)
        try:
            return conn.call("new_session")[0]["session_id"]
        finally:
            conn.close()

    def kill(self):
        os.kill(self.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while pid_alive(self.pid) and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self):
        if pid_alive(self.pid):
            assert admin.main(["--stop", "-p", str(self.port)]) == 0

    def assert_gone(self):
        """No process, no shared-memory handout socket, no named shared memory segment left behind."""
        assert not pid_alive(self.pid), f"cache server process {self.pid} is still running"
        assert attach(self.port) is None
        assert shm_names() - self.shm_before == set()

    def close(self):
        try:
            self.stop()
        finally:
            if pid_alive(self.pid):  # never leave a daemon behind, whatever failed
                os.kill(self.pid, signal.SIGKILL)


def make_image_folder(root, classes=2, per_class=6, size=(20, 24)):
    from PIL import Image
    rng = np.random.default_rng(7)
    for c in range(classes):
        os.makedirs(os.path.join(root, f"class{c}"), exist_ok=True)
        for i in range(per_class):
            pixels = rng.integers(0, 256, (size[0], size[1], 3), dtype=np.uint8)
            Image.fromarray(pixels).save(os.path.join(root, f"class{c}", f"{i:03d}.png"))
    return str(root)


def scale(image):
    return (image.astype(np.float32) * 0.5 + 1.0).transpose(2, 0, 1)


def pipeline(folder, cache=None, shuffle=False, **map_kwargs):
    data = ds.ImageFolderDataset(folder, shuffle=shuffle)
    return data.map([vision.Decode(), scale], input_columns="image", cache=cache, **map_kwargs)


def rows(dataset, num_epochs=1):
    it = dataset.create_tuple_iterator(output_numpy=True, num_epochs=num_epochs)
    return [[np.array(c) for c in row] for _ in range(num_epochs) for row in it]


def same_rows(a, b):
    return len(a) == len(b) and all(len(x) == len(y) and all(np.array_equal(p, q) and p.dtype == q.dtype
                                                             for p, q in zip(x, y)) for x, y in zip(a, b))
