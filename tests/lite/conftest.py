"""The lite tests run numpy's BLAS on one thread: on a shared, loaded machine a multi-threaded OpenBLAS spends
most of its time waiting (a 32x400 @ 400x120 product took 3 ms with threads, 0.2 ms without)."""
import pytest


@pytest.fixture(autouse=True, scope="session")
def _one_blas_thread():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield
