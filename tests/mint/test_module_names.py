"""The modules added for MindSpore 2.10's mint.special/linalg/optim/distributed, numpy.fft and scipy.fft carry
exactly the public names MindSpore 2.10 lists (tools/mindspore_2_10_public_names.json, collected from the real
package; scipy.fft's `__all__` was read from MindSpore 2.10 by hand: the collector does not walk it)."""
import importlib
import json
import os

import pytest

NAMES = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "mindspore_2_10_public_names.json")
MODULES = ["mint.special", "mint.linalg", "mint.optim", "mint.distributed", "numpy.fft"]


@pytest.mark.parametrize("module", MODULES)
def test_module_has_mindspore_2_10_names(module):
    with open(NAMES) as f:
        want = json.load(f)["modules"]["mindspore." + module]
    mod = importlib.import_module("openspore." + module)
    assert sorted(mod.__all__) == sorted(want)
    assert [n for n in want if not callable(getattr(mod, n))] == []


def test_scipy_fft_names_and_mint_attributes():
    from openspore.scipy import fft
    assert sorted(fft.__all__) == ["dct", "dctn", "idct", "idctn"]
    import openspore as ms
    assert ms.mint.special.erfc is ms.ops.erfc and ms.numpy.fft.fft.__module__ == "openspore.numpy.fft"
    assert ms.scipy.fft is fft and ms.mint.distributed.get_rank is ms.communication.distributed.get_rank
