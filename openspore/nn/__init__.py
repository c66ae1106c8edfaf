"""openspore.nn: Cell, containers and (as they arrive) layers, losses and optimizers."""
from .cell import Cell  # noqa: F401
from .container import SequentialCell, CellList, CellDict  # noqa: F401
from .layer import *  # noqa: F401,F403
