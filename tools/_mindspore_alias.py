"""Pytest plugin / import hook: ``import mindspore`` (and every ``mindspore.x.y``) answers with openspore's module.

Only for development tools (``tools/mstests.py``, ``tools/difftest.py``) running MindSpore's own code unchanged;
the package never installs it. Load it with ``python -m pytest -p _mindspore_alias`` and ``tools/`` on PYTHONPATH.
"""
import importlib
import importlib.abc
import importlib.util
import sys


class MindSporeAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``mindspore[.*]`` and hands back ``openspore[.*]`` (the same module object, so state is shared)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "mindspore" or fullname.startswith("mindspore."):
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return importlib.import_module("openspore" + spec.name[len("mindspore"):])

    def exec_module(self, module):
        pass


if not any(isinstance(finder, MindSporeAlias) for finder in sys.meta_path):
    sys.meta_path.insert(0, MindSporeAlias())
