"""Name lookup shared by `ops.auto_generate` and its `gen_ops_def` / `gen_ops_prim` submodules."""
import sys


def resolve(module_name, name):
    """`name` as `openspore.ops` has it, or its spelling without MindSpore's `_ext` / `Ext` suffix."""
    from ... import ops
    if name.startswith("__"):
        raise AttributeError(name)
    candidates = [name]
    if name.endswith("_ext"):
        candidates.append(name[:-len("_ext")])
    elif name.endswith("Ext"):
        candidates.append(name[:-len("Ext")])
    for candidate in candidates:
        value = ops.__dict__.get(candidate)
        if value is not None and not isinstance(value, type(sys)):
            return value
    from ...common.errors import missing_attribute
    raise missing_attribute(sys.modules[module_name], name)
