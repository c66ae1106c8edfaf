"""start_servables fails with MindSpore Serving's errors, and leaves no process behind."""
import os

import pytest

from openspore.serving import server
from openspore.serving.server import _server
from openspore.serving.server.master import context
from tests.serving.conftest import write_servable

BROKEN = """
from openspore.serving.server import register
x = 1 / 0
"""

NEEDS_VERSION = """
from openspore.serving.server import register
model = register.declare_model("model.mindir", "MindIR")


@register.register_method(output_names=["y"])
def predict(x):
    return register.add_stage(model, x, outputs_count=1)
"""


@pytest.fixture
def logs(tmp_path):
    context.set_worker_log_dir(str(tmp_path / "logs"))
    yield
    server.stop()


def test_missing_directory_and_config(tmp_path, logs):
    with pytest.raises(RuntimeError, match="Check servable config failed, directory '.*nothing' not exist"):
        server.start_servables(server.ServableStartConfig(str(tmp_path), "nothing", device_ids=0))
    os.makedirs(tmp_path / "empty")
    with pytest.raises(RuntimeError, match="Check servable config failed, file '.*servable_config.py' not exist"):
        server.start_servables(server.ServableStartConfig(str(tmp_path), "empty", device_ids=0))


@pytest.mark.parametrize("config, text", [
    (BROKEN, "Fail to start workers: import broken.servable_config failed, ZeroDivisionError: division by zero"),
    (NEEDS_VERSION, "Fail to start workers: There is no valid version directory of models while there are models "
                    "declared in servable_config.py"),
])
def test_worker_start_failures_are_reported(tmp_path, logs, config, text):
    write_servable(str(tmp_path), "broken", config)
    with pytest.raises(RuntimeError) as info:
        server.start_servables(server.ServableStartConfig(str(tmp_path), "broken", device_ids=0))
    assert text in str(info.value)
    assert _server._MASTER is None            # a failed start stops everything it started


def test_config_checks():
    with pytest.raises(RuntimeError, match="'device_ids' should be unique"):
        server.ServableStartConfig("/tmp", "x", device_ids=(0, 0))
    with pytest.raises(RuntimeError, match="'version_number' should be an int >= 0"):
        server.ServableStartConfig("/tmp", "x", version_number=-1)
    with pytest.raises(RuntimeError, match="Unsupported device type"):
        server.ServableStartConfig("/tmp", "x", device_type="TPU")
    with pytest.raises(RuntimeError, match="'num_parallel_workers' should be an int in \\[0, 64\\]"):
        server.ServableStartConfig("/tmp", "x", num_parallel_workers=65)
    with pytest.raises(RuntimeError, match="'max_queue_delay' should be a number of seconds >= 0"):
        server.ServableStartConfig("/tmp", "x", max_queue_delay=-1)
    config = server.ServableStartConfig("relative/dir", "x", device_ids=3)
    assert os.path.isabs(config.servable_directory) and config.device_ids == (3,) and config.version_number == 0
    with pytest.raises(RuntimeError, match="max_msg_mb_size' should be an int in \\[1, 512\\]"):
        server.start_grpc_server("127.0.0.1:0", max_msg_mb_size=0)
    with pytest.raises(RuntimeError, match="RESTful server does not support binding to unix domain socket"):
        server.start_restful_server("unix:/tmp/x")
