"""Fused image preprocessing, op timing and autotune."""
import json

import cv2
import numpy as np
import pytest

import openspore as ms
import openspore.dataset as ds
from openspore.dataset import transforms, vision
from openspore.dataset.vision.fused import FusedImagePipeline, fuse_operations, jpeg_size

MEAN, STD = [123.675, 116.28, 103.53], [58.395, 57.12, 57.375]


def _jpeg(h, w, seed=0):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([(x * 0.7 + y * 0.3) % 256, np.sin(x / 9.0) * 90 + 128, (y * 1.3) % 256], -1)
    img = np.clip(img + rng.normal(0, 8, img.shape), 0, 255).astype(np.uint8)
    return cv2.imencode(".jpg", img)[1].tobytes()


def _unfused(ops, x):
    for op in ops:
        x = op(x)
    return x


PIPELINES = [
    [vision.Decode(), vision.Resize((224, 224)), vision.Normalize(MEAN, STD), vision.HWC2CHW()],
    [vision.Decode(), vision.Resize(256), vision.CenterCrop(224), vision.Normalize(MEAN, STD), vision.HWC2CHW(),
     transforms.TypeCast(ms.float16)],
    [vision.Decode(), vision.Resize((100, 90), vision.Inter.AREA), vision.HWC2CHW()],
    [vision.Decode(), vision.Resize((64, 64), vision.Inter.CUBIC), vision.Normalize([0.5], [2.0])],
    [vision.Resize((50, 40), vision.Inter.NEAREST), vision.CenterCrop((30, 20)), vision.Normalize(MEAN, STD),
     transforms.TypeCast(np.float64)],
]


@pytest.mark.parametrize("ops", PIPELINES, ids=lambda ops: "+".join(type(o).__name__ for o in ops))
def test_fused_equals_unfused(ops):
    fused = fuse_operations(ops)
    assert len(fused) == 1 and isinstance(fused[0], FusedImagePipeline)
    data = _jpeg(384, 512)
    x = np.frombuffer(data, np.uint8) if isinstance(ops[0], vision.Decode) else vision.Decode()(data)
    got, want = fused[0](x), _unfused(ops, x)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)  # exact: same cv::resize, same float32 values


def test_compose_runs_fused_and_equals_op_by_op():
    # an eager preprocess (a serving stage) written with Compose gets the fused kernels
    ops = [vision.Decode(), vision.Resize((64, 48)), vision.Normalize(MEAN, STD), vision.HWC2CHW()]
    composed = transforms.Compose(ops)
    x = np.frombuffer(_jpeg(120, 90), np.uint8)
    got = composed(x)
    assert [type(op) for op in composed._fused] == [FusedImagePipeline]
    np.testing.assert_array_equal(got, _unfused(ops, x))
    ds.config.set_enable_fusion(False)
    np.testing.assert_array_equal(transforms.Compose(ops)(x), got)


def test_pillow_and_gray_inputs_run_op_by_op():
    from PIL import Image
    ops = [vision.Resize((6, 5)), vision.CenterCrop(4)]
    fused = fuse_operations(ops)[0]
    pil = Image.fromarray(np.arange(10 * 12 * 3, dtype=np.uint8).reshape(10, 12, 3))
    out = fused(pil)
    assert isinstance(out, Image.Image) and np.array_equal(np.asarray(out), np.asarray(_unfused(ops, pil)))
    gray = np.arange(100, dtype=np.uint8).reshape(10, 10)
    np.testing.assert_array_equal(fused(gray), _unfused(ops, gray))


def test_fusion_keeps_other_ops_and_order():
    flip = vision.RandomHorizontalFlip(0.5)
    ops = [vision.Decode(), flip, vision.Resize((8, 8)), vision.HWC2CHW(), vision.Resize((4, 4)), vision.Decode()]
    fused = fuse_operations(ops)
    assert fused[0] is ops[0] and fused[1] is flip and isinstance(fused[2], FusedImagePipeline)
    assert fused[2].source_ops == ops[2:4] and fused[3] is ops[4] and fused[4] is ops[5]
    assert fuse_operations([vision.Normalize(MEAN, STD), vision.Resize((4, 4))])[0].__class__ is vision.Normalize
    assert fuse_operations([vision.Decode(to_pil=True), vision.Resize((4, 4))])[0].__class__ is vision.Decode


def test_map_fuses_automatically_and_rows_match(tmp_path):
    for c in range(2):
        (tmp_path / f"c{c}").mkdir()
        for i in range(5):
            (tmp_path / f"c{c}" / f"{i}.jpg").write_bytes(_jpeg(60 + 7 * i, 80 + 5 * c, seed=i + c))
    ops = PIPELINES[1]

    def rows(fusion):
        ds.config.set_enable_fusion(fusion)
        data = ds.ImageFolderDataset(str(tmp_path), shuffle=False).map(list(ops), "image").batch(4)
        return list(data.create_tuple_iterator(output_numpy=True))
    plain, fused = rows(False), rows(True)
    assert len(plain) == len(fused) == 3
    for a, b in zip(plain, fused):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    assert fused[0][0].shape == (4, 3, 224, 224) and fused[0][0].dtype == np.float16


def test_reduced_decode_is_opt_in_and_close():
    data = _jpeg(480, 640)
    assert jpeg_size(np.frombuffer(data, np.uint8)) == (480, 640)
    ops = [vision.Decode(), vision.Resize((112, 112)), vision.HWC2CHW()]
    fused = fuse_operations(ops)[0]
    exact = _unfused(ops, data)
    np.testing.assert_array_equal(fused(data), exact)
    ds.config.set_enable_reduced_decode(True)
    fast = fused(data)
    assert fast.shape == exact.shape == (3, 112, 112)
    # a DCT-scaled decode is a smoother downscale: close on average, not pixel-equal
    assert np.abs(fast.astype(int) - exact.astype(int)).mean() < 8


def test_decode_accepts_mindrecord_bytes_and_reports_garbage():
    data = _jpeg(20, 30)
    as_record = np.frombuffer(data, dtype=f"S{len(data)}")
    np.testing.assert_array_equal(vision.Decode()(as_record), vision.Decode()(data))
    with pytest.raises(RuntimeError, match="could not be decoded"):
        vision.Decode()(np.frombuffer(b"definitely not an image", np.uint8))


def test_op_timing_reports_each_op_from_workers():
    ds.config.set_enable_op_timing(True)
    images = np.random.default_rng(0).integers(0, 256, (12, 40, 50, 3), dtype=np.uint8)
    data = ds.NumpySlicesDataset({"image": images}, shuffle=False)
    data = data.map([vision.Resize((20, 20)), vision.RandomHorizontalFlip(0.0)], "image", num_parallel_workers=2,
                    python_multiprocessing=True)
    out = [r[0] for r in data.create_tuple_iterator(output_numpy=True)]
    assert len(out) == 12 and out[0].shape == (20, 20, 3)
    entry = ds.profiling.report(data)[0]
    assert entry["rows"] == 12 and [op["op"] for op in entry["ops"]] == ["Resize", "RandomHorizontalFlip"]
    assert all(op["seconds"] > 0 for op in entry["ops"]) and entry["rows_per_second"] > 0
    assert "Resize" in ds.profiling.format_report(data)


def test_autotune_sizes_workers_from_measured_cost(tmp_path):
    import time

    def slow(x):
        time.sleep(0.002)
        return x + 1

    prefix = str(tmp_path / "autotune")
    ds.config.set_enable_autotune(True, prefix)
    assert ds.config.get_enable_autotune() is True
    data = ds.NumpySlicesDataset({"x": np.arange(40)}, shuffle=False).map(slow, "x")
    assert [int(r[0]) for r in data.create_tuple_iterator(output_numpy=True)] == list(range(1, 41))
    choice = data._autotune
    assert choice["probe_rows"] == 8 and choice["seconds_per_row"] >= 0.002
    if choice["num_parallel_workers"] > 1:
        assert choice["python_multiprocessing"] and choice["prefetch_size"] >= 2 * choice["num_parallel_workers"]
    with open(prefix + "_0.json") as f:
        assert json.load(f)["map_ops"][-1] == choice
    cheap = ds.NumpySlicesDataset({"x": np.arange(40)}, shuffle=False).map(lambda x: x * 2, "x")
    assert [int(r[0]) for r in cheap.create_tuple_iterator(output_numpy=True)] == list(range(0, 80, 2))
    assert cheap._autotune["num_parallel_workers"] == 1  # too cheap for a pool
    ds.config.set_enable_autotune(False)
