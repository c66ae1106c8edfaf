"""Errors speak the user's names (issue 20, item 7): module probes answer True/False, a script that reached
openspore as `mindspore` reads `mindspore.*` in our messages, and "Did you mean" follows the typed style."""
import importlib
import subprocess
import sys
import textwrap

import pytest

import openspore as ms
from openspore.common import errors
from tests.conftest import child_env


def _importable(name):
    try:
        importlib.import_module(f"openspore.{name}")
        return True
    except ImportError:
        return False


@pytest.mark.parametrize("name", ["communication", "dataset", "train", "nn", "onnx", "mindrecord", "lite", "hal",
                                  "parallel", "profiler", "mint", "numpy", "scipy", "no_such_module", "sys",
                                  "__wrapped__", "a.b", "1x"])
def test_module_probes_answer_and_never_raise(name):
    expected = name.isidentifier() and not name.startswith("_") and _importable(name)
    assert hasattr(ms, name) is expected


def test_missing_module_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="module 'openspore' has no attribute 'no_such_module'"):
        ms.no_such_module  # noqa: B018


@pytest.mark.parametrize("typed, hint", [("layernorm", "layer_norm"), ("onehot", "one_hot"), ("sofmax", "softmax"),
                                         ("Onehot", "OneHot"), ("expand_dim", "expand_dims")])
def test_did_you_mean_follows_the_typed_style(typed, hint):
    with pytest.raises(AttributeError) as info:
        getattr(ms.ops, typed)
    assert str(info.value).endswith(f"Did you mean: '{hint}'?")


def test_messages_use_mindspore_when_reached_through_an_alias(monkeypatch):
    monkeypatch.setitem(sys.modules, "mindspore", ms)
    assert errors.user_package() == "mindspore"
    with pytest.raises(AttributeError, match=r"^module 'mindspore\.ops' has no attribute 'layernorm'\. Did you mean: "
                                             r"'layer_norm'\?$"):
        ms.ops.layernorm  # noqa: B018
    with pytest.raises(AttributeError, match="^module 'mindspore' has no attribute 'Tensr'"):
        ms.Tensr  # noqa: B018
    assert errors.user_names("see openspore.nn.Dense in /x/openspore/nn.py") == "see mindspore.nn.Dense in " \
                                                                                  "/x/openspore/nn.py"
    monkeypatch.setitem(sys.modules, "mindspore", type(sys)("mindspore"))  # an unrelated module of that name
    assert errors.user_package() == "openspore"
    sys.modules["mindspore"].__openspore_alias__ = True                   # a shim that says it is ours
    assert errors.user_package() == "mindspore"


ALIAS_SCRIPT = """
import importlib, importlib.abc, importlib.util, sys

class Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname == "mindspore" or fullname.startswith("mindspore."):
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
    def create_module(self, spec):
        return importlib.import_module("openspore" + spec.name[len("mindspore"):])
    def exec_module(self, module):
        pass

sys.meta_path.insert(0, Alias())
import mindspore as ms
from mindspore import ops
print(hasattr(ms, "communication") in (True, False))
ops.onehot
"""


def test_an_aliased_script_sees_mindspore_names_in_its_traceback(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent(ALIAS_SCRIPT))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=child_env(), timeout=120)
    assert run.stdout.strip() == "True"
    last = run.stderr.strip().splitlines()[-1]
    assert last == "AttributeError: module 'mindspore.ops' has no attribute 'onehot'. Did you mean: 'one_hot'?", \
        run.stderr
