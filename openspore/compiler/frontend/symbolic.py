"""SymbolicTensor: a Tensor whose value is an IR node of the graph being traced.

It has a shape and a dtype (from the node's abstract) but no data, so every Tensor method that computes works
(it calls ops → `bind` → the tracer appends a node), while anything that needs the value raises
`GraphCaptureError` at the user's line.
"""
import os
import sys

from ...common.errors import is_user_file
from ...core.dispatch import current_tracer
from ...core.tensor import Tensor
from .errors import GraphCaptureError, GraphTypeError, GraphValueError, located

_HELP = ("a tensor's value is not known while the graph is being compiled. Use the tensor in an `if`/`while` "
         "condition (compiled into graph control flow) or in ops, or compute on Python values (shapes, "
         "attributes, constants) instead.")


_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep
_FRONTEND = os.path.dirname(os.path.abspath(__file__)) + os.sep
_NUMPY = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["numpy"].__file__))) + os.sep + "numpy" + os.sep


def _no_value(what, kind=GraphCaptureError, python_may_run=True):
    exc = kind(located(f"{what}: {_HELP}"))
    # The value was asked for inside one of openspore's Python-level primitives (a MindSpore Primitive computed as a
    # composite whose work depends on its inputs' values, e.g. SegmentMax's segment count), not by the user's own
    # code: the graph runner then runs the function op by op instead (runtime/jit.py), as MindSpore runs such ops
    # with dynamic-shape kernels inside its graphs.
    exc.needed_by_library = _asked_by_python_primitive()
    # The user's own code asked (`x.asnumpy()`, `np.exp(x)`, `int(x)`, `bool(x)` through all/max/...): MindSpore's
    # JIT fallback runs such Python at run time on the real values (its default syntax level, LAX), so the runner
    # runs the function in Python too, op by op. What MindSpore's compiler rejects still raises: a traced tensor
    # as a Python int (range(x), an index), and values asked for inside openspore's own functions (a shape made of
    # tensors: `ops.zeros((x.sum(),))`).
    exc.runs_in_python = python_may_run and _asked_by_user_code()
    return exc


def _asked_by_user_code(depth=3):
    """True when the frame asking for the value is the user's code (skipping numpy's frames, and the frontend's
    call wrappers that the rewritten user code calls through). `depth`: 3 from `_no_value` (<- the
    SymbolicTensor method <- its caller), 2 from a SymbolicTensor method itself."""
    frame = sys._getframe(depth)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith((_NUMPY, _FRONTEND)):
        frame = frame.f_back
    if frame is None:
        return False
    filename = frame.f_code.co_filename
    # Code with no source file (stdin, exec) is not rewritten, so its `if x:` reaches bool() here: that stays the
    # error that names the missing source (errors.NO_SOURCE_HELP), not a silent run in Python.
    return is_user_file(filename) and not filename.startswith("<")


def _asked_by_python_primitive():
    """True when, between this request and the user's code, a frame runs a primitive marked `computes_on_values`."""
    frame = sys._getframe(2)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        inside = filename.startswith(_FRONTEND) or filename.startswith(_NUMPY)
        if not inside and not filename.startswith(_PACKAGE):
            return False  # reached the user's code
        owner = frame.f_locals.get("self")
        if owner is not None and getattr(type(owner), "computes_on_values", False):
            return True
        frame = frame.f_back
    return False


class SymbolicTensor(Tensor):
    """`SymbolicTensor(node, builder)`: the value of `node` in the graph `builder` is building."""

    def __init__(self, node, builder):
        abstract = node.abstract
        self._data = None
        self._shape = None
        self._init = None
        self._nodes = None
        self._dtype = abstract.dtype
        self._shape_hint = abstract.shape
        self.node = node
        self.builder = builder

    # --- what the abstract knows -------------------------------------------------------------------
    @property
    def shape(self):
        return self._shape_hint

    @property
    def has_init(self):
        return False

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None):
        return self

    def _alias(self):
        return SymbolicTensor(self.node, self.builder)

    def _rebind(self, other):
        if not isinstance(other, SymbolicTensor):
            raise _no_value("an in-place update of a traced tensor with a concrete value")
        tracer = current_tracer()
        if tracer is not None and tracer is not self.builder:
            tracer.note_rebind(self)  # a branch updating an outer tensor: undone when the branch is traced
        self.node, self.builder = other.node, other.builder
        self._dtype, self._shape_hint = other._dtype, other._shape_hint
        self._nodes = other._nodes

    # --- what needs a value ------------------------------------------------------------------------
    def data_ref(self):
        raise _no_value("the data of a traced tensor was requested (data_ref)", python_may_run=False)

    def _set_data_ref(self, data, dtype=None):
        raise _no_value("a traced tensor's data can not be replaced", python_may_run=False)

    def asnumpy(self):
        raise _no_value("Tensor.asnumpy() on a traced tensor")

    numpy = asnumpy

    def __array__(self, dtype=None, copy=None):
        raise _no_value("conversion of a traced tensor to a numpy array")

    def item(self, index=None):
        raise _no_value("Tensor.item() on a traced tensor")

    def tolist(self):
        raise _no_value("Tensor.tolist() on a traced tensor")

    def __bool__(self):
        raise _no_value("the truth value of a traced tensor (bool(), or a condition outside `if`/`while`)")

    def __int__(self):
        raise _no_value("int() of a traced tensor", GraphValueError)

    def __float__(self):
        raise _no_value("float() of a traced tensor", GraphValueError)

    def __complex__(self):
        raise _no_value("complex() of a traced tensor")

    def __index__(self):
        raise _no_value("a traced tensor used as a Python integer (range(), a slice bound, a list index...)",
                        GraphTypeError, python_may_run=False)

    def __reduce__(self):
        raise _no_value("pickling a traced tensor", python_may_run=False)

    def __deepcopy__(self, memo):
        raise _no_value("copy.deepcopy of a traced tensor", python_may_run=False)

    def __repr__(self):
        return f"SymbolicTensor(shape={list(self.shape)}, dtype={self.dtype}, node={self.node!r})"

    def __str__(self):
        # str(x) / an f-string in the user's graph code wants the value (print(x) does not: it is a Print node,
        # graph_builtins.py): MindSpore formats it when the graph runs, so the function runs in Python (JIT
        # fallback). openspore's own messages (and code with no source file) get the symbolic description.
        if _asked_by_user_code(2):
            raise _no_value("printing or formatting a traced tensor's value")
        return repr(self)

    def __format__(self, spec):
        if _asked_by_user_code(2):
            raise _no_value("printing or formatting a traced tensor's value")
        return format(repr(self), spec)
