"""`mindspore.rewrite`: edit a network's forward computation as statements — `SymbolTree.create(net)` reads
`construct` into `Node`s (Cell calls, function calls, arithmetic, inputs, the return), which can be inserted,
erased, replaced and re-wired; `get_network()` returns a working network built from the edited statements.

>>> from openspore.rewrite import SymbolTree, Node, NodeType, ScopedValue, ValueType
>>> NodeType.CallCell.name, ValueType.NamingValue.name
('CallCell', 'NamingValue')
"""
from .values import NodeType, ScopedValue, ValueType
from .node import Node
from .symbol_tree import SymbolTree

__all__ = ["SymbolTree", "Node", "NodeType", "ScopedValue", "ValueType"]
