import pytest


@pytest.fixture(scope="session")
def insight_base(tmp_path_factory):
    """A base dir with two real LeNet summary runs and a diverging run's dump (tests/insight/insight_data.py)."""
    import openspore as ms
    from tests.insight import insight_data
    base = tmp_path_factory.mktemp("insight_base")
    saved = ms.get_context("mode")
    info = insight_data.build(str(base))
    ms.set_context(mode=saved)
    return base, info
