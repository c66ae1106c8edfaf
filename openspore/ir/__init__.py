"""openspore's IR: graphs of primitive calls with structured control flow (see node.py)."""
from .node import Graph, Node, STRUCTURAL_OPS  # noqa: F401
from .printer import print_graph  # noqa: F401
