"""The dashboard as the tests use it: `python -m openspore.insight serve` in a child process on 127.0.0.1 and
an ephemeral port, with a known debugger token; stopped (and waited for) at the end."""
import contextlib
import socket
import subprocess
import sys
import time
import urllib.request

from tests.conftest import child_env


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(base, token="test-token-0123456789", reload_interval=1, extra=()):
    port = free_port()
    cmd = [sys.executable, "-m", "openspore.insight", "serve", "--summary-base-dir", str(base), "--port", str(port),
           "--reload-interval", str(reload_interval), *extra]
    proc = subprocess.Popen(cmd, env=child_env(OPENSPORE_INSIGHT_TOKEN=token), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"insight serve exited with {proc.returncode}: {proc.stdout.read()}")
            try:
                with urllib.request.urlopen(url + "/v1/mindinsight/ui-config", timeout=1):
                    break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
        yield url, token
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def get(url, headers=None, data=None, method=None):
    """(status, body bytes, headers) without raising on 4xx/5xx."""
    import urllib.error
    req = urllib.request.Request(url, headers=headers or {}, data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers


