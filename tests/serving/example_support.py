"""The shipped example (examples/serving) in tests: a prepared copy, and `openspore serve` as a child process
whose output is collected line by line."""
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

from tests.conftest import child_env
from tests.serving.conftest import REPO

EXAMPLE = os.path.join(REPO, "examples", "serving")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepared_example(root):
    """A copy of the example at `root` with prepare.py run (one training step)."""
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", "[0-9]", "serving_logs"))
    prepare = subprocess.run([sys.executable, os.path.join(root, "prepare.py"), "--steps", "1", "--servable-dir",
                              str(root)], capture_output=True, text=True, env=child_env(), timeout=120)
    assert prepare.returncode == 0, prepare.stderr
    return root


class Serve:
    """`python -m openspore serve ARGS`; `wait_for(text)` blocks until an output line has it (or the process
    ended); `interrupt()` is Ctrl-C; `kill()` makes sure it is gone."""

    def __init__(self, args, cwd, command=None):
        command = command or [sys.executable, "-m", "openspore", "serve"]
        self.proc = subprocess.Popen([*command, *map(str, args)],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=child_env(),
                                     cwd=cwd)
        self.lines, self.output = queue.Queue(), []
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.proc.stdout], daemon=True).start()

    def wait_for(self, text, timeout=90):
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.output):
            try:
                self.output.append(self.lines.get(timeout=0.2))
            except queue.Empty:
                if time.monotonic() > deadline or (self.proc.poll() is not None and self.lines.empty()):
                    raise AssertionError(f"no line with {text!r}:\n" + "".join(self.output)) from None
        return "".join(self.output)

    def interrupt(self):
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=60)
        self.wait_for("Serving: stopped", timeout=10)
        return code

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
