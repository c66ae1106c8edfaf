"""MindSpore 2.10 public modules that openspore does not have yet: importing one raises a clear ImportError.

A finder placed *last* on `sys.meta_path` answers only when no real module was found, so a module that gets
implemented later simply wins; until then `import openspore.scipy.sparse` (or `mindspore.scipy.sparse` through an alias) says
what is missing instead of Python's bare "No module named ...".

>>> import openspore
>>> try:
...     import openspore.scipy.sparse
... except ImportError as exc:
...     print(exc)
mindspore.scipy.sparse (MindSpore 2.10's public module) is not implemented in openspore yet.
"""
import importlib.abc
import sys

# Public module paths of MindSpore 2.10's API reference (and 1.x paths that still import), relative to the
# package; submodules of a listed module are covered too.
MINDSPORE_MODULES = frozenset({
    "scipy.sparse",
    "parallel.auto_parallel", "runtime_api",
    "nn.extend", "experimental.es",
})


def missing_module_error(fullname):
    rest = fullname.partition(".")[2]
    return ModuleNotFoundError(f"mindspore.{rest} (MindSpore 2.10's public module) is not implemented in openspore yet.",
                               name=fullname)


class _MissingModuleFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("openspore."):
            return None
        rest = fullname.partition(".")[2]
        if any(rest == m or rest.startswith(m + ".") for m in MINDSPORE_MODULES):
            raise missing_module_error(fullname)
        return None


def install():
    if not any(isinstance(f, _MissingModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(_MissingModuleFinder())


install()
