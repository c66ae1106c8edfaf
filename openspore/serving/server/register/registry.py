"""What a `servable_config.py` declares: models, methods and their stages, kept per servable name.

The worker imports each servable's config once; the registration functions fill `SERVABLES` as a side effect.
"""
import threading

SERVABLES = {}
_LOCK = threading.RLock()


class ServableDef:
    """The declarations of one servable: `models` (model key → ModelDecl) and `methods` (name → MethodDef)."""

    def __init__(self, name):
        self.name = name
        self.models = {}
        self.methods = {}
        self.llm = None       # an LLMDecl when declare_llm_servable made this a generation servable

    def __repr__(self):
        return f"ServableDef({self.name!r}, models={list(self.models)}, methods={list(self.methods)})"


def servable(name):
    with _LOCK:
        found = SERVABLES.get(name)
        if found is None:
            found = SERVABLES[name] = ServableDef(name)
        return found


class TensorDef:
    """A placeholder for a value flowing through a method: `tag` 0 = the method's inputs, tag k = the outputs of
    stage k; `index` = position. Methods are run once at registration with these to record their dataflow."""

    __slots__ = ("tag", "index", "method")

    def __init__(self, tag, index, method):
        self.tag, self.index, self.method = tag, index, method

    def __repr__(self):
        return f"TensorDef(stage={self.tag}, index={self.index})"

    def __bool__(self):
        raise RuntimeError(f"In method '{self.method}', the value {self!r} is a placeholder while the method is "
                           "registered: control flow that depends on data must live inside a stage function "
                           "(add_stage).")


class Stage:
    """One `add_stage` call: `kind` 'function' or 'model'; `target` the function or ModelDecl; `args` the
    (tag, index) pairs it consumes; `outputs_count`; `batch_size` (function stages: None = per instance)."""

    def __init__(self, kind, target, args, outputs_count, batch_size, tag):
        self.kind, self.target, self.args = kind, target, args
        self.outputs_count, self.batch_size, self.tag = outputs_count, batch_size, tag

    @property
    def name(self):
        if self.kind == "model":
            return f"model '{self.target.key}'"
        return f"function '{self.target.__name__}'"


class MethodDef:
    """A registered method: its input and output names, its stages in order and where each output comes from."""

    def __init__(self, name, input_names, output_names):
        self.name = name
        self.input_names = tuple(input_names)
        self.output_names = tuple(output_names)
        self.stages = []
        self.outputs = []
