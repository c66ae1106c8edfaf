import os
import sys

import numpy as np
import pytest

import openspore as ms
from tests.device import TEST_DEVICE, use_backend

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "fixtures", "mindspore")
if not os.path.isdir(FIXTURES):
    FIXTURES = os.environ.get("OPENSPORE_FIXTURES", FIXTURES)


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child_env(**extra):
    """Environment for a child Python process: this checkout first on PYTHONPATH, the caller's entries kept
    (a machine may add packages through PYTHONPATH), plus `extra`."""
    path = os.pathsep.join(p for p in (REPO, os.environ.get("PYTHONPATH")) if p)
    return dict(os.environ, PYTHONPATH=path, **extra)


@pytest.fixture(autouse=True)
def _fresh_context():
    """Each test starts in PyNative on the default backend with a fixed seed."""
    saved = {k: ms.get_context(k) for k in ("mode", "backend", "device_target", "inference_engine")}
    if TEST_DEVICE != "CPU" and ms.get_context("backend") == "torch":
        ms.set_context(device_target=TEST_DEVICE)
    ms.set_seed(0)
    yield
    ms.set_context(**saved)


@pytest.fixture(autouse=True)
def _no_summary_record_left_open():
    """A process allows one open SummaryRecord: one a test leaves open would make every later test in its worker
    fail with "only one instance is supported", far from the cause. Fail the test that left it instead."""
    yield
    record_module = sys.modules.get("openspore.train.summary.summary_record")
    if record_module is not None and record_module._instances["count"]:
        record_module._instances["count"] = 0  # so that the tests after it start clean
        pytest.fail("this test left a SummaryRecord open (or a failed constructor kept its instance slot)")


@pytest.fixture(params=["torch", "numpy"])
def backend(request):
    use_backend(request.param)
    return request.param


@pytest.fixture
def graph_mode():
    """GRAPH_MODE for one test, the previous mode restored after it."""
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=old)


@pytest.fixture
def fixtures_dir():
    if not os.path.isdir(FIXTURES):
        pytest.skip(f"MindSpore fixtures not found at {FIXTURES}")
    return FIXTURES


def assert_close(actual, expected, rtol=1e-5, atol=1e-6, msg=""):
    a = actual.asnumpy() if hasattr(actual, "asnumpy") else np.asarray(actual)
    e = expected.asnumpy() if hasattr(expected, "asnumpy") else np.asarray(expected)
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64) if a.dtype.kind in "fiub" and a.dtype != np.bool_ else a,
                               np.asarray(e, dtype=np.float64) if e.dtype.kind in "fiub" and e.dtype != np.bool_ else e,
                               rtol=rtol, atol=atol, err_msg=msg)


@pytest.fixture(autouse=True)
def _receive_sample_message(request):
    """Receive's op-table sample reads the message its process sent itself when the samples were made (at
    collection); a test that ran communication.init()/release() in this worker since then cleared that mailbox,
    so post the sample's message again (the same one: each class's samples draw from default_rng(0))."""
    if "Receive-" in request.node.nodeid:
        from openspore.ops.defs.comm import Receive
        list(Receive.samples(np.random.default_rng(0)))
    yield
