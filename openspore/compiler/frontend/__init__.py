"""Graph-mode frontend: rewrite control flow in user code, trace it through `bind` into an IR graph.

    from openspore.compiler.frontend import trace
    traced = trace(net.construct, (x,))      # traced.graph, in_spec, out_spec, static_key, unflatten(leaves)

See docs/graph_mode.md for the architecture; errors name the user's `file:line`.
"""
from .api import Traced, flatten_args, trace  # noqa: F401
from .ast_transform import convert  # noqa: F401
from .errors import GraphCaptureError, GraphSyntaxError  # noqa: F401
from .symbolic import SymbolicTensor  # noqa: F401
