"""`nn.GraphCell`: run a graph loaded from MindIR as a Cell (facts §2.2 "Load path").

>>> import openspore as ms
>>> from openspore import nn
>>> net = nn.GraphCell(ms.load("net.mindir"))            # doctest: +SKIP
>>> out = net(ms.Tensor(x))                               # doctest: +SKIP

The graph's weights become the cell's Parameters (under their checkpoint names), so `parameters_dict`,
`load_checkpoint` / `load_param_into_net` and optimizers see them. Inputs must have the shapes and dtypes the
graph was exported with, as in MindSpore.

In eval mode (the default; serving sets it too) a GraphCell runs compiled in either execution mode, on the
inference path (runtime/inference.py: BatchNorm folded, fused convolutions, or an ONNX Runtime / OpenVINO
engine, `set_context(inference_engine=...)`); in training mode, under a gradient transform or with
`inference_engine="off"` in PyNative mode it runs node by node through the primitives, as before.
"""
import logging

from .. import context
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..ir import Graph
from ..ir.interpret import run_graph
from .cell import Cell

logger = logging.getLogger(__name__)


def _interpreted(graph):
    """A callable running `graph` on Tensors through `bind` (PyNative semantics)."""
    def run(*args):
        return run_graph(graph, args)
    return run


# How a GraphCell turns its IR graph into a callable: the runtime executor's compile function replaces this.
compile_graph = _interpreted


class GraphCell(Cell):
    """`GraphCell(graph, params_init=None, obf_random_seed=None)`: a Cell whose construct runs `graph`
    (what `openspore.load` returns, or an openspore IR Graph). `params_init` (name → Tensor/Parameter)
    replaces the values of the graph's parameters of those names; unknown names are ignored, as in MindSpore."""

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__(auto_prefix=True)
        if isinstance(graph, Graph):
            ir, params = graph, _graph_parameters(graph)
        elif isinstance(getattr(graph, "graph", None), Graph) and isinstance(getattr(graph, "parameters", None), dict):
            ir, params = graph.graph, dict(graph.parameters)
        else:
            raise TypeError("For 'GraphCell', the argument 'graph' should be a graph loaded by 'load' (a FuncGraph), "
                            f"but got {type(graph).__name__}.")
        if obf_random_seed is not None:
            raise NotImplementedError("For 'GraphCell', dynamic structure obfuscation ('obf_random_seed') is not "
                                      "supported.")
        if params_init is not None:
            _apply_params_init(params, params_init)
        for name, param in params.items():
            self.insert_param_to_cell(name, param, check_name_contain_dot=False)
        self.__dict__["graph"] = ir
        self.__dict__["_run"] = compile_graph(ir)
        # tracing `construct` re-emits the loaded nodes; control flow there needs the interpreter (or GRAPH_MODE)
        self.__dict__["_straight"] = not any(n.op in ("if", "while") for g in ir.all_graphs() for n in g.nodes)

    @property
    def _runs_compiled(self):
        """Cell.__call__ runs this cell compiled in PyNative mode too: a loaded graph is a graph."""
        return not self.training and self._straight and context.get_context("inference_engine") != "off"

    def construct(self, *inputs):
        self._check_inputs(inputs)
        return self._run(*inputs)

    def _check_inputs(self, inputs):
        expected = len(self.graph.inputs)
        if len(inputs) != expected:
            raise TypeError(f"For 'GraphCell', the graph takes {expected} inputs, but got {len(inputs)}.")
        for i, (value, node) in enumerate(zip(inputs, self.graph.inputs)):
            want = node.abstract
            if want is None:
                continue
            if not isinstance(value, Tensor):
                raise TypeError(f"For 'GraphCell', input {i} ('{node.name}') should be a Tensor, but got "
                                f"{type(value).__name__}.")
            if value.dtype != want.dtype:
                raise TypeError(f"For 'GraphCell', input {i} ('{node.name}') should have dtype {want.dtype} (as "
                                f"exported), but got {value.dtype}.")
            shape = tuple(value.shape)
            if len(shape) != len(want.shape) or any(w not in (-1, s) for w, s in zip(want.shape, shape)):
                raise ValueError(f"For 'GraphCell', input {i} ('{node.name}') should have shape "
                                 f"{list(want.shape)} (as exported), but got {list(shape)}.")


def _graph_parameters(graph):
    params = {}
    for g in graph.all_graphs():
        for node in g.nodes:
            if node.op == "weight" and isinstance(node.value, Parameter):
                params.setdefault(node.value.name, node.value)
    return params


def _apply_params_init(params, params_init):
    if not isinstance(params_init, dict):
        raise TypeError(f"For 'GraphCell', the argument 'params_init' should be a dict, but got "
                        f"{type(params_init).__name__}.")
    for name, value in params_init.items():
        if not isinstance(name, str):
            raise TypeError(f"For 'GraphCell', the key of 'params_init' should be a str, but got "
                            f"{type(name).__name__}.")
        if not isinstance(value, Tensor):
            raise TypeError(f"For 'GraphCell', the value of 'params_init' should be a Tensor or Parameter, but got "
                            f"{type(value).__name__} for '{name}'.")
        param = params.get(name)
        if param is None:
            logger.info("GraphCell: params_init entry '%s' is not a parameter of the graph; ignored.", name)
            continue
        if tuple(value.shape) != tuple(param.shape):
            raise ValueError(f"For 'GraphCell', 'params_init' gives '{name}' the shape {list(value.shape)}, but the "
                             f"graph's parameter has shape {list(param.shape)}.")
        param.set_data(value)
