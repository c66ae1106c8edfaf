"""`mindspore.dataset.callback`: `DSCallback` (hooks called as a map passes rows) and `WaitedDSCallback` (hooks that
also wait for the training side, as `sync_wait` does)."""
from ..engine.callbacks import DSCallback  # noqa: F401
from ..engine.sync_wait import WaitedDSCallback  # noqa: F401

__all__ = ["DSCallback", "WaitedDSCallback"]
