"""Checkpoints that would load "successfully" while loading nothing (issue 20, item 1): empty files, filters
that leave nothing, files cut off between records under strict_load, and paths that are not regular files."""
import os

import numpy as np
import pytest

import openspore as ms
from tests.train.test_checkpoint import MLP, _record_boundaries


def test_empty_file_is_refused(tmp_path):
    path = str(tmp_path / "empty.ckpt")
    open(path, "wb").close()
    with pytest.raises(ValueError, match="is empty"):
        ms.load_checkpoint(path)
    net = MLP()
    before = net.fc1.weight.asnumpy().copy()
    with pytest.raises(ValueError, match="is empty"):
        ms.load_checkpoint(path, net=net, strict_load=True)
    np.testing.assert_array_equal(net.fc1.weight.asnumpy(), before)


def test_filters_that_leave_nothing_are_refused(tmp_path):
    path = str(tmp_path / "f.ckpt")
    ms.save_checkpoint(MLP(), path)
    with pytest.raises(ValueError, match="empty after filter or specify"):
        ms.load_checkpoint(path, specify_prefix="nothing")


def test_strict_load_refuses_a_file_cut_at_a_record_boundary(tmp_path):
    path = str(tmp_path / "cut.ckpt")
    ms.save_checkpoint(MLP(), path)
    data = open(path, "rb").read()
    bounds = sorted(b for b in _record_boundaries(data) if 0 < b < len(data))
    os.chmod(path, 0o600)
    with open(path, "wb") as f:
        f.write(data[:bounds[1]])      # two whole records, each whole: the format cannot tell it ended early
    assert len(ms.load_checkpoint(path)) == 2
    net = MLP()
    before = {p.name: p.asnumpy().copy() for p in net.get_parameters()}
    with pytest.raises(ValueError, match=r"lacks 3 of the net's 5 parameters: .*fc2\.weight.*no parameter was changed"):
        ms.load_checkpoint(path, net=net, strict_load=True)
    for p in net.get_parameters():
        np.testing.assert_array_equal(p.asnumpy(), before[p.name])
    not_loaded, _ = ms.load_param_into_net(net, ms.load_checkpoint(path))  # non-strict: MindSpore's report
    assert len(not_loaded) == 3


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_paths_that_are_not_regular_files_say_what_they_are(tmp_path):
    os.mkdir(tmp_path / "dir.ckpt")
    with pytest.raises(ValueError, match="is a directory"):
        ms.load_checkpoint(str(tmp_path / "dir.ckpt"))
    os.mkfifo(tmp_path / "pipe.ckpt")
    with pytest.raises(ValueError, match="is a FIFO"):
        ms.load_checkpoint(str(tmp_path / "pipe.ckpt"))
    if os.path.exists("/dev/zero"):
        os.symlink("/dev/zero", tmp_path / "zero.ckpt")
        with pytest.raises(ValueError, match="is a character device"):
            ms.load_checkpoint(str(tmp_path / "zero.ckpt"))


def test_checkpoint_joined_to_itself_is_refused(tmp_path):
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(MLP(), path)
    data = open(path, "rb").read()
    os.chmod(path, 0o600)
    with open(path, "wb") as f:
        f.write(data + data)
    with pytest.raises(ValueError, match=r"the entry 'steps' occurs 2 times.*joined together"):
        ms.load_checkpoint(path)
