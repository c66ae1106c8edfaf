"""Generation servables that cannot start say why (the server stops what it started)."""
import os

import pytest

from openspore.serving import server
from tests.llm.serve_support import write_llm_servable
from tests.serving.conftest import RunningServer


def _start_fails(root, tmp_path, match):
    with pytest.raises(RuntimeError, match=match):
        RunningServer([server.ServableStartConfig(root, "gpt")], tmp_path / "logs")


def test_missing_model_files_are_named(tmp_path):
    root = str(tmp_path / "servables")
    write_llm_servable(root, "gpt", str(tmp_path / "nowhere"), num_blocks=8)
    for file in ("gpt.ckpt", "config.json"):
        os.remove(os.path.join(root, "gpt", "1", file))             # dangling links: remove them
    with open(os.path.join(root, "prepare.py"), "w") as f:
        f.write("# writes the model files\n")
    _start_fails(root, tmp_path, r"Fail to start workers: declare_llm_servable: the checkpoint 'gpt.ckpt' was not "
                                 r"found.*run `python .*prepare.py` first")


def test_bad_declaration_is_refused(tmp_path):
    root = str(tmp_path / "servables")
    write_llm_servable(root, "gpt", str(tmp_path), num_blocks=8, beam_width=4)
    _start_fails(root, tmp_path, r"import gpt.servable_config failed.*unknown parameter\(s\) \['beam_width'\]")
    root2 = str(tmp_path / "servables2")
    write_llm_servable(root2, "gpt", str(tmp_path), max_queue=0)
    _start_fails(root2, tmp_path, r"'max_queue' should be an int >= 1, but got 0")
