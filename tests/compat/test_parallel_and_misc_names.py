"""Names of MindSpore 2.10 with a standalone meaning: ops.reshard, ops.signature, nn.VirtualDatasetCellTriple,
the AdaSum wrapper cells, dataset.transforms.Plugin (values and errors as MindSpore 2.10 gives them)."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, nn, ops
from openspore.dataset import transforms
from openspore.parallel import Layout


def test_reshard_is_the_identity_with_unit_gradient():
    x = Tensor(np.arange(4, dtype=np.float32).reshape(2, 2))
    layout = Layout((2, 1), ("dp", "mp"))
    assert ops.reshard(x, layout("dp", "mp")).asnumpy().tolist() == [[0.0, 1.0], [2.0, 3.0]]
    grad = ms.grad(lambda a: (ops.reshard(a, layout("dp", "mp")) * 3).sum())(x)
    assert grad.asnumpy().tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_signature_module():
    sig = ops.signature
    assert [m.name for m in sig.sig_rw] == ["RW_READ", "RW_WRITE", "RW_REF", "RW_EMPTY_DEFAULT_VALUE"]
    assert [m.name for m in sig.sig_kind] == ["KIND_POSITIONAL_KEYWORD", "KIND_VAR_POSITIONAL", "KIND_KEYWORD_ONLY",
                                              "KIND_VAR_KEYWARD", "KIND_EMPTY_DEFAULT_VALUE"]
    assert sig.sig_dtype.T == 0 and sig.sig_dtype.T9 == 9 and sig.sig_dtype.T_EMPTY_DEFAULT_VALUE == 10
    s = sig.make_sig()
    assert (s.name, s.rw, s.kind, s.default, s.dtype) == ("var", sig.sig_rw.RW_READ,
                                                          sig.sig_kind.KIND_POSITIONAL_KEYWORD,
                                                          sig.sig_kind.KIND_EMPTY_DEFAULT_VALUE,
                                                          sig.sig_dtype.T_EMPTY_DEFAULT_VALUE)


def test_virtual_dataset_cell_triple_and_adasum_wrappers():
    class Mix(nn.Cell):
        def construct(self, a, b, c):
            return a + b * c
    x = Tensor(np.ones((2, 2), np.float32))
    assert nn.VirtualDatasetCellTriple(Mix())(x, x * 2, x * 3).asnumpy().tolist() == [[7.0, 7.0], [7.0, 7.0]]
    for wrapper in (nn.AdaSumByGradWrapCell, nn.AdaSumByDeltaWeightWrapCell):
        with pytest.raises(RuntimeError, match="^Stand alone mode is not supported to apply adasum.$"):
            wrapper(nn.SGD(nn.Dense(2, 1).trainable_params(), 0.1))


def test_plugin_checks_arguments_and_cannot_load_missing_library(tmp_path):
    with pytest.raises(TypeError, match=r"^Argument lib_path with value 1 is not of type \[<class 'str'>\], but got "
                                        r"<class 'int'>.$"):
        transforms.Plugin(1, "f")
    with pytest.raises(TypeError, match="Argument user_args with value 3"):
        transforms.Plugin("x", "f", 3)
    with pytest.raises(RuntimeError, match="Fail to load:/nonexist.so"):
        transforms.Plugin("/nonexist.so", "f", "")(np.array([1]))
    lib = tmp_path / "plugin.so"
    lib.write_bytes(b"\x7fELF")
    with pytest.raises(RuntimeError, match="not supported by openspore"):
        transforms.Plugin(str(lib), "f")(np.array([1]))
