"""MindIR files whose damage protobuf parsing hides (issue 20, item 1): a file concatenated to itself merges into
one model with every node twice; it must be refused at load, not fail later at call time."""
import os

import pytest

import openspore as ms
from openspore.serialization import MindIRError

MODELS = ["mlp", "lenet5", "resblock", "encoder", "branchy"]


@pytest.mark.parametrize("name", MODELS)
def test_model_concatenated_to_itself_is_refused(fixtures_dir, tmp_path, name):
    data = open(os.path.join(fixtures_dir, f"{name}.mindir"), "rb").read()
    ms.load(os.path.join(fixtures_dir, f"{name}.mindir"))  # the file itself loads
    path = str(tmp_path / "twice.mindir")
    with open(path, "wb") as f:
        f.write(data + data)
    with pytest.raises(MindIRError, match=r"occurs more than once .* joined together or damaged"):
        ms.load(path)


def test_exported_model_concatenated_to_itself_is_refused(tmp_path):
    import numpy as np
    from openspore import nn
    net = nn.Dense(3, 2)
    ms.export(net, ms.Tensor(np.ones((1, 3), np.float32)), file_name=str(tmp_path / "d"), file_format="MINDIR")
    data = open(tmp_path / "d.mindir", "rb").read()
    ms.load(str(tmp_path / "d.mindir"))
    with open(tmp_path / "twice.mindir", "wb") as f:
        f.write(data * 2)
    with pytest.raises(MindIRError, match="more than once"):
        ms.load(str(tmp_path / "twice.mindir"))
    with pytest.raises(MindIRError, match="more than once"):
        ms.load_mindir(str(tmp_path / "twice.mindir"))
