"""Strategy files and distributed checkpoints: a 4-rank sharded run's per-rank checkpoints and strategy file,
re-cut to one rank and to a 2-rank layout (transform_checkpoints, transform_checkpoint_by_rank,
load_distributed_checkpoint in a real 2-rank run) give back the same network."""
import os

import numpy as np
import pytest

import openspore as ms
from openspore.parallel import ShardLayout
from openspore.parallel._strategy_file import write_strategy_file

from .launch import run_workers


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("distckpt")
    run_workers("worker_dist_ckpt.py", 4, out, "train")
    run_workers("worker_dist_ckpt.py", 2, out, "resume")
    with np.load(out / "integrated.npz") as f:
        return out, dict(f)


def _ckpt(path):
    return {k: v.asnumpy() for k, v in ms.load_checkpoint(str(path)).items()}


def test_strategy_file_describes_the_slices(runs):
    out, _ = runs
    layouts = ms.build_searched_strategy(str(out / "src_strategy.ckpt"))
    assert set(layouts) == {"w1", "b1", "w2"}  # trainable parameters only (the default)
    w1 = layouts["w1"]
    assert list(w1.dev_matrix[0].dim) == [1, 2, 2, 1] and list(w1.tensor_map[0].dim) == [1, -1]
    assert list(w1.param_split_shape[0].dim) == [3, 8]
    assert list(layouts["w2"].param_split_shape[0].dim) == [2, 4]
    assert ms.train.build_searched_strategy is ms.build_searched_strategy
    for rank in range(4):  # every rank wrote the groups it joined; the first holds this rank
        assert rank in ms.restore_group_info_list(str(out / f"group_info_train_{rank}.pb"))


def test_transform_to_one_rank_gives_the_integrated_weights(runs, tmp_path):
    out, full = runs
    ms.transform_checkpoints(str(out / "src"), str(tmp_path), "full", str(out / "src_strategy.ckpt"), None)
    got = _ckpt(tmp_path / "rank_0" / "full0.ckpt")
    for name, value in full.items():
        np.testing.assert_array_equal(got[name], value, err_msg=name)
    assert not (tmp_path / "rank_1").exists()


def test_default_save_checkpoint_writes_whole_tensors_on_every_rank(runs):
    """save_checkpoint(integrated_save=True), the default, gathers sliced parameters (MindSpore's semantics)."""
    out, full = runs
    for rank in range(4):
        got = _ckpt(out / f"integrated_rank_{rank}.ckpt")
        for name, value in full.items():
            np.testing.assert_array_equal(got[name], value, err_msg=f"rank {rank}: {name}")
    sliced = _ckpt(out / "src" / "rank_0" / "net.ckpt")
    assert any(sliced[name].size < value.size for name, value in full.items())


def test_transform_to_two_ranks_and_by_rank(runs, tmp_path):
    out, full = runs
    src, dst = str(out / "src_strategy.ckpt"), str(out / "dst_strategy.ckpt")
    ms.transform_checkpoints(str(out / "src"), str(tmp_path / "all"), "dst", src, dst)
    for rank in (0, 1):
        got = _ckpt(tmp_path / "all" / f"rank_{rank}" / f"dst{rank}.ckpt")
        np.testing.assert_array_equal(got["w1"], full["w1"][3 * rank:3 * rank + 3])   # 2-rank MatMul ((1,2),(2,1))
        np.testing.assert_array_equal(got["b1"], full["b1"][4 * rank:4 * rank + 4])
        np.testing.assert_array_equal(got["w2"], full["w2"])                          # not split at 2 ranks
        needed = ms.rank_list_for_transform(rank, src, dst)
        assert needed == [0, 1, 2, 3]  # w2 was split 4 ways and is whole at 2 ranks: every source rank
        files = {r: str(out / "src" / f"rank_{r}" / "net.ckpt") for r in needed}
        ms.transform_checkpoint_by_rank(rank, files, str(tmp_path / f"by_rank{rank}.ckpt"), src, dst)
        by_rank = _ckpt(tmp_path / f"by_rank{rank}.ckpt")
        for name in got:
            np.testing.assert_array_equal(by_rank[name], got[name])
    with pytest.raises(ValueError, match="do not hold every slice"):
        ms.transform_checkpoint_by_rank(0, {0: str(out / "src" / "rank_0" / "net.ckpt")},
                                        str(tmp_path / "partial.ckpt"), src, dst)
    assert ms.convert_checkpoints is ms.transform_checkpoints


def test_two_rank_run_loads_the_four_rank_checkpoints(runs):
    out, full = runs
    losses = []
    for rank in (0, 1):
        with np.load(out / f"resumed_{rank}.npz") as f:
            got = dict(f)
        assert tuple(got["shape_w1"]) == (3, 8) and tuple(got["shape_b1"]) == (4,)  # its 2-rank slices
        for name, value in full.items():
            np.testing.assert_allclose(got[name], value, rtol=0, atol=0, err_msg=name)
        losses.append(float(got["loss"]))
    assert losses[0] == losses[1]
    assert os.path.isfile(out / "dst_strategy.ckpt")


def test_strategy_file_helpers(tmp_path):
    # ranks 0 and 2 hold the same block of w (the repeat axis of a (2, 2) device matrix)
    strategy = str(tmp_path / "s.ckpt")
    write_strategy_file(strategy, {"w": ShardLayout((4, 2), (2, 2), (0, -1), (0, 0))})
    (tmp_path / "rank_2").mkdir()
    ms.save_checkpoint([{"name": "w", "data": ms.Tensor(np.ones((2, 2), np.float32))}],
                       str(tmp_path / "rank_2" / "x.ckpt"))
    assert ms.get_ckpt_path_with_strategy(str(tmp_path / "rank_0" / "x.ckpt"), strategy) == \
        str(tmp_path / "rank_2" / "x.ckpt")
    assert ms.get_ckpt_path_with_strategy(str(tmp_path / "rank_1" / "x.ckpt"), strategy) is None
    (tmp_path / "stages").mkdir()
    write_strategy_file(str(tmp_path / "stages" / "s0.ckpt"), {"a": ShardLayout((4,), (2,), (0,), (0,))})
    write_strategy_file(str(tmp_path / "stages" / "s1.ckpt"), {"b": ShardLayout((6,), (2,), (-1,), (0,))})
    ms.merge_pipeline_strategys(str(tmp_path / "stages"), str(tmp_path / "merged.ckpt"))
    assert set(ms.build_searched_strategy(str(tmp_path / "merged.ckpt"))) == {"a", "b"}
    with pytest.raises(ValueError, match="not a strategy file"):
        (tmp_path / "bad.ckpt").write_bytes(b"\xff\xff not protobuf")
        ms.build_searched_strategy(str(tmp_path / "bad.ckpt"))
    segs = tmp_path / "segs"
    segs.mkdir()
    for i in range(2):
        ms.save_checkpoint([{"name": f"p{i}", "data": ms.Tensor(np.full(2, i, np.float32))}], str(segs / f"{i}.ckpt"))
    assert sorted(ms.load_segmented_checkpoints(str(segs))) == ["p0", "p1"]
    ms.set_algo_parameters(fully_use_devices=True, tensor_slice_align_size=32)
    assert ms.get_algo_parameters("tensor_slice_align_size") == 32
    with pytest.raises(ValueError, match="must be an int in"):
        ms.set_algo_parameters(tensor_slice_align_size=2048)
    ms.reset_algo_parameters()
    assert ms.get_algo_parameters("fully_use_devices") is False
