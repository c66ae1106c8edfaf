"""The `>>>` examples in openspore's docstrings run, and print what they say they print.

Each module whose source holds a `>>>` is one test case; a module added later with examples is picked up
without listing it here. Examples run in PyNative mode on the default backend, with numpy's array printing as
numpy prints it (NORMALIZE_WHITESPACE lets a long array wrap). An example imports what it uses, as a reader
would have to.
"""
import doctest
import importlib
import os

import numpy as np
import pytest

import openspore

PACKAGE_DIR = os.path.dirname(openspore.__file__)
# Modules whose import starts something or needs an optional extra that the test environment may lack.
SKIP = frozenset()


def _modules_with_examples():
    found = []
    for root, dirs, files in os.walk(PACKAGE_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith(".py") or name.endswith("_pb2.py") or name.endswith("_pb2_grpc.py"):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                if ">>>" not in f.read():
                    continue
            rel = os.path.relpath(path, os.path.dirname(PACKAGE_DIR))[:-3].replace(os.sep, ".")
            found.append(rel[: -len(".__init__")] if rel.endswith(".__init__") else rel)
    return found


MODULES = _modules_with_examples()


def test_examples_were_found():
    assert len(MODULES) > 50, MODULES


@pytest.mark.parametrize("module_name", [m for m in MODULES if m not in SKIP])
def test_docstring_examples_run(module_name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = [t for t in finder.find(module, module_name) if t.examples]
    assert tests, f"{module_name} mentions '>>>' but no docstring example was found in it"
    failures = []
    with np.printoptions(legacy=False):
        for test in tests:
            runner.run(test, out=failures.append, clear_globs=True)
    assert not failures, "".join(failures)
