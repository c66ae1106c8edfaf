"""Helpers of the serving tests: servable directories written from text, and servers that always stop.

Servers bind 127.0.0.1 with ephemeral ports; every worker process a test server started is checked (and killed
if needed) when the server stops, so no test leaks processes.
"""
import os
import textwrap

import pytest

from openspore.serving import server
from openspore.serving.server import _server
from openspore.serving.server.master import context

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def write_servable(root, name, config, files=None):
    """Create `<root>/<name>/servable_config.py` from `config` text; `files` maps relative paths → bytes/str."""
    folder = os.path.join(root, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "servable_config.py"), "w") as f:
        f.write(textwrap.dedent(config))
    for rel, data in (files or {}).items():
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
    return folder


class RunningServer:
    """A started server: `grpc` and `rest` addresses; `stop()` stops it and checks its workers are gone."""

    def __init__(self, configs, log_dir, grpc=True, rest=True, max_msg_mb_size=100):
        context.set_worker_log_dir(str(log_dir))
        self.log_dir = str(log_dir)
        self.stopped = False
        self.workers = []
        saved = os.environ.get("PYTHONPATH")
        # the test servables import `tests.serving.nets`: the workers need the repository on their path
        os.environ["PYTHONPATH"] = REPO + (os.pathsep + saved if saved else "")
        try:
            server.start_servables(configs)
            self.master = _server._MASTER
            self.workers = self.master.workers.workers
            self.grpc = server.start_grpc_server("127.0.0.1:0", max_msg_mb_size=max_msg_mb_size) if grpc else None
            self.rest = server.start_restful_server("127.0.0.1:0", max_msg_mb_size=max_msg_mb_size) if rest \
                else None
        except BaseException:
            self.stop()
            raise
        finally:
            if saved is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = saved

    def worker_pids(self):
        return [w.pid for w in self.workers if w.alive()]

    def stop(self):
        if self.stopped:
            return
        self.stopped = True
        server.stop()
        leaked = []
        for w in self.workers:
            if w.proc is not None and w.proc.poll() is None:
                leaked.append(w.pid)
                w.proc.kill()
                w.proc.wait()
        assert not leaked, f"worker processes still running after stop(): {leaked}"


@pytest.fixture(scope="module")
def start_server(tmp_path_factory):
    """Module-scoped factory: start_server(configs, **options) → RunningServer, stopped at module end."""
    started = []

    def start(configs, **options):
        running = RunningServer(configs, tmp_path_factory.mktemp("serving_logs"), **options)
        started.append(running)
        return running
    yield start
    for running in started:
        running.stop()
