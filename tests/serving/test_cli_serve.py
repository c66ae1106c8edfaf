"""`openspore serve` end to end with the example servable: prepare.py trains and writes the model, the CLI serves
it on ephemeral 127.0.0.1 ports, the example client queries gRPC, REST and KServe, and Ctrl-C stops it all."""
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

from tests.conftest import child_env
from tests.serving.conftest import REPO

EXAMPLE = os.path.join(REPO, "examples", "serving")


def _env():
    return child_env()


def _processes_mentioning(text):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in cmdline and state != "Z":
            found.append(int(pid))
    return found


def test_serve_the_example(tmp_path):
    root = tmp_path / "servables"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", "1", "serving_logs"))
    prepare = subprocess.run([sys.executable, str(root / "prepare.py"), "--steps", "1", "--servable-dir", str(root)],
                             capture_output=True, text=True, env=_env(), timeout=120)
    assert prepare.returncode == 0, prepare.stderr
    assert (root / "lenet" / "1" / "lenet5.ckpt").is_file()
    proc = subprocess.Popen([sys.executable, "-m", "openspore", "serve", str(root), "--grpc", "127.0.0.1:0",
                             "--rest", "127.0.0.1:0", "--log-dir", str(tmp_path / "logs")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_env(), cwd=tmp_path)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    output, addresses = [], {}
    try:
        deadline = time.monotonic() + 90
        while len(addresses) < 2 or not any("ready; press Ctrl-C" in line for line in output):
            assert proc.poll() is None, "".join(output)
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError("the server did not start:\n" + "".join(output)) from None
            output.append(line)
            found = re.match(r"Serving: Serving (gRPC|RESTful) server start success, listening on (\S+)", line)
            if found:
                addresses[found.group(1)] = found.group(2)
        assert all(a.startswith("127.0.0.1:") for a in addresses.values())
        client = subprocess.run([sys.executable, os.path.join(EXAMPLE, "client.py"), "--grpc", addresses["gRPC"],
                                 "--rest", addresses["RESTful"]], capture_output=True, text=True, env=_env(),
                                timeout=120)
        assert client.returncode == 0, client.stdout + client.stderr
        assert "gRPC   labels" in client.stdout and "KServe labels" in client.stdout
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        while True:
            try:
                output.append(lines.get(timeout=5))
            except queue.Empty:
                break
        assert "Serving: stopped\n" in output, "".join(output)
        assert not _processes_mentioning(str(root)), "worker processes left behind"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _processes_mentioning(str(root)):
            os.kill(pid, signal.SIGKILL)


def test_serve_refuses_a_folder_without_servables(tmp_path):
    result = subprocess.run([sys.executable, "-m", "openspore", "serve", str(tmp_path)], capture_output=True,
                            text=True, env=_env(), timeout=60)
    assert result.returncode != 0
    assert "holds no servable (no <name>/servable_config.py)" in result.stderr
