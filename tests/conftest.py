import os

import numpy as np
import pytest

import openspore as ms

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "fixtures", "mindspore")
if not os.path.isdir(FIXTURES):
    FIXTURES = os.environ.get("OPENSPORE_FIXTURES", FIXTURES)


@pytest.fixture(autouse=True)
def _fresh_context():
    """Each test starts in PyNative on the default backend with a fixed seed."""
    saved = {k: ms.get_context(k) for k in ("mode", "backend", "device_target")}
    ms.set_seed(0)
    yield
    ms.set_context(**saved)


@pytest.fixture(params=["torch", "numpy"])
def backend(request):
    ms.set_context(backend=request.param)
    return request.param


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
