"""SummaryRecord and the summary ops: MindSpore's API, checks and file format (fact sheet §1, §3)."""
import io
import os
import re
import stat
import struct

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.train.summary import anf_ir_pb2, summary_pb2
from openspore.train.summary._records import CorruptRecord, frame, masked_crc, read_records


def _events(path):
    with open(path, "rb") as f:
        data = f.read()
    out = []
    for payload in read_records(data):
        e = summary_pb2.Event()
        e.ParseFromString(payload)
        out.append(e)
    return out


def _summary_file(d):
    names = [n for n in os.listdir(d) if n.endswith("_MS")]
    assert len(names) == 1, names
    return os.path.join(d, names[0])


def test_file_name_framing_and_version_event(tmp_path):
    with ms.SummaryRecord(str(tmp_path)) as rec:
        rec.add_value("scalar", "loss", ms.Tensor(np.float32(0.5)))
        assert rec.record(1)
        rec.flush()  # the writer thread creates the file on its first record
        assert rec.log_dir == _summary_file(tmp_path)
    name = os.path.basename(_summary_file(tmp_path))
    assert re.fullmatch(r"events\.out\.events\.summary\.\d{10}\.0\.[A-Za-z0-9_.\-]+_MS", name)
    data = open(_summary_file(tmp_path), "rb").read()
    # the first 12 bytes MindSpore 2.10 wrote (fact sheet §3.2): length 28 and its masked CRC-32C
    assert data[:12].hex() == "1c00000000000000" + "c8c1951d"
    assert data[12] == 0x09 and data[21:23] == b"\x1a\x11" and data[23:40] == b"MindSpore.Event:1"
    events = _events(_summary_file(tmp_path))
    assert events[0].version == "MindSpore.Event:1"
    assert events[1].step == 1 and events[1].summary.value[0].tag == "loss"
    assert events[1].summary.value[0].scalar_value == 0.5
    mode = stat.S_IMODE(os.stat(_summary_file(tmp_path)).st_mode)
    assert mode == 0o400  # finished files are left read-only, as MindSpore leaves them


def test_crc_is_checked_and_partial_records_wait():
    good = frame(b"hello") + frame(b"world")
    assert list(read_records(good)) == [b"hello", b"world"]
    stop = []
    assert list(read_records(good[:-3], stop_at=stop)) == [b"hello"] and stop == [len(frame(b"hello"))]
    bad = bytearray(good)
    bad[14] ^= 0xFF  # a flipped payload byte
    with pytest.raises(CorruptRecord, match="payload"):
        list(read_records(bytes(bad)))
    assert struct.unpack("<I", frame(b"x")[8:12])[0] == masked_crc(struct.pack("<Q", 1))



def test_c_crc_matches_the_python_table_and_the_check_value():
    from openspore.train.summary._records import crc32c, crc32c_python
    rng = np.random.default_rng(0)
    for n in (0, 1, 7, 8, 9, 63, 1000, 65537):
        data = rng.bytes(n)
        assert crc32c(data) == crc32c_python(data), n
    assert crc32c(b"123456789") == 0xE3069283


def test_fast_histogram_and_canvas_match_plain_references():
    from PIL import Image
    from openspore.train.summary import _pack
    rng = np.random.default_rng(1)
    for values in (rng.standard_normal(5000).astype(np.float32), rng.integers(-9, 9, 300).astype(np.int32),
                   np.array([1.0, np.nan, np.inf, 2.0, -np.inf, 1.5, 3.0], np.float16)):
        proto = summary_pb2.Summary.Value(tag="h").histogram
        _pack.fill_histogram(proto, values)
        flat = values[np.isfinite(values)] if values.dtype.kind == "f" else values
        edges = [b.left for b in proto.buckets] + [proto.buckets[-1].left + proto.buckets[-1].width]
        counts, _ = np.histogram(flat, bins=np.asarray(edges, flat.dtype if flat.dtype.kind == "f" else np.float64))
        assert [b.count for b in proto.buckets] == counts.tolist() and sum(counts) == flat.size
    images = rng.integers(0, 256, (11, 3, 4, 5)).astype(np.uint8)  # a second row of 3 images, padded with black
    canvas = _pack.image_canvas(images)
    assert canvas.shape == (8, 40, 3) and not canvas[4:, 15:].any()
    for i in range(11):
        r, c = divmod(i, 8)
        assert (canvas[r * 4:(r + 1) * 4, c * 5:(c + 1) * 5] == images[i].transpose(1, 2, 0)).all(), i
    decoded = np.asarray(Image.open(io.BytesIO(_pack.png_bytes(canvas))).convert("RGB"))
    assert (decoded == canvas).all()  # OpenCV's BGR order is undone: the PNG holds the RGB pixels


def test_numpy_built_histogram_buckets_are_the_bytes_protobuf_writes():
    from openspore.train.summary import _pack
    rng = np.random.default_rng(2)
    # counts of one to three varint bytes in one histogram, a zero left edge, an empty bucket
    cases = ((np.array([-1.5, 0.0, 0.25, 1.0, 7.0, 9.0]), np.array([1, 127, 128, 20000, 0])),
             (np.linspace(-3, 3, 91).astype(np.float32), rng.integers(0, 100, 90)),
             (np.array([2.0, 3.0]), np.array([2 ** 40])))
    for edges, counts in cases:
        built = summary_pb2.Summary.Histogram()
        built.MergeFromString(_pack._bucket_bytes(edges, counts))
        added = summary_pb2.Summary.Histogram()
        for left, right, count in zip(edges[:-1].tolist(), edges[1:].tolist(), counts.tolist()):
            added.buckets.add(left=left, width=right - left, count=count)
        assert built.SerializeToString() == added.SerializeToString()


def test_gray_image_png_has_the_pixels_of_the_rgb_canvas():
    from PIL import Image
    from openspore.train.summary import _pack
    rng = np.random.default_rng(3)
    for images in (rng.standard_normal((11, 1, 6, 5)).astype(np.float32), rng.random((3, 1, 2, 2)),
                   rng.integers(0, 256, (9, 1, 4, 4)).astype(np.uint8)):
        h, w, png = _pack._image_png(images)
        canvas = _pack.image_canvas(images)
        decoded = np.asarray(Image.open(io.BytesIO(png)))
        assert (h, w) == canvas.shape[:2] and decoded.shape == canvas.shape and (decoded == canvas).all()

def test_histogram_image_tensor_encoding(tmp_path):
    with ms.SummaryRecord(str(tmp_path)) as rec:
        rec.add_value("histogram", "h", ms.Tensor(np.arange(12, dtype=np.float32)))
        rec.add_value("image", "img", ms.Tensor(np.full((1, 3, 4, 5), 7, np.uint8)))
        rec.add_value("image", "grid", ms.Tensor(np.random.default_rng(0).random((4, 1, 2, 2)).astype(np.float32)))
        rec.add_value("tensor", "t", ms.Tensor(np.array([[1, 2], [3, 4]], np.int32)))
        rec.record(3)
    values = {v.tag: v for v in _events(_summary_file(tmp_path))[1].summary.value}
    h = values["h"].histogram
    assert [(b.left, b.width, b.count) for b in h.buckets] == [(0.0, 5.5, 6), (5.5, 5.5, 6)]
    assert (h.min, h.max, h.sum, h.count) == (0.0, 11.0, 66.0, 12)
    from PIL import Image
    img = values["img"].image
    assert (img.height, img.width, img.colorspace) == (4, 5, 3)
    assert np.asarray(Image.open(io.BytesIO(img.encoded_image))).shape == (4, 5, 3)
    grid = values["grid"].image
    assert (grid.height, grid.width) == (2, 8)  # four 2x2 images side by side
    t = values["t"].tensor
    assert list(t.dims) == [2, 2] and t.data_type == anf_ir_pb2.DT_INT32 and list(t.float_data) == [1, 2, 3, 4]


def test_argument_errors_and_one_instance(tmp_path):
    rec = ms.SummaryRecord(str(tmp_path))
    try:
        with pytest.raises(RuntimeError, match="only one instance"):
            ms.SummaryRecord(str(tmp_path / "other"))
        with pytest.raises(ValueError, match="rank must be less than or equal to 1"):
            rec.add_value("scalar", "s", ms.Tensor(np.zeros(2, np.float32)))
        with pytest.raises(TypeError, match="should be a Tensor"):
            rec.add_value("scalar", "s", np.float32(1))
        with pytest.raises(ValueError, match="valid image"):
            rec.add_value("image", "i", ms.Tensor(np.zeros((3, 4), np.float32)))
        with pytest.raises(ValueError, match="non-empty str"):
            rec.add_value("scalar", "", ms.Tensor(np.float32(1)))
        with pytest.raises(ValueError, match="plugin"):
            rec.add_value("LANDSCAPE", "x", ms.Tensor(np.float32(1)))
        with pytest.raises(TypeError, match="'step' should be 'int'"):
            rec.record(1.0)
        with pytest.raises(TypeError, match="TrainLineage"):
            rec.add_value("train_lineage", "x", ms.Tensor(np.float32(1)))
    finally:
        rec.close()
    assert rec.record(2) is False
    with pytest.raises(ValueError, match="closed"):
        rec.__enter__()
    with pytest.raises(TypeError, match="file_prefix"):
        ms.SummaryRecord(str(tmp_path), file_prefix=3)
    with pytest.raises(ValueError, match="export_options"):
        ms.SummaryRecord(str(tmp_path), export_options={"tensor_format": "csv"})


class _OpsNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scalar, self.tensor = ops.ScalarSummary(), ops.TensorSummary()
        self.hist, self.image = ops.HistogramSummary(), ops.ImageSummary()

    def construct(self, x):
        y = x * 2
        self.scalar("ymean", y.mean())
        self.tensor("y", y)
        self.hist("yh", y)
        self.image("yi", y.reshape((1, 1, 2, 3)))
        return y + 1


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_summary_ops_in_construct(tmp_path, mode):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    net = _OpsNet()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with ms.SummaryRecord(str(tmp_path), network=net) as rec:
        for step in (1, 2):
            out = net(ms.Tensor(x * step))
            rec.add_value("scalar", "by_hand", ms.Tensor(np.float32(step)))
            rec.record(step)
        rec.set_mode("eval")
        net(ms.Tensor(x))
        rec.add_value("scalar", "by_hand", ms.Tensor(np.float32(3)))
        rec.record(3)
    np.testing.assert_allclose(out.asnumpy(), x * 4 + 1)
    events = [e for e in _events(_summary_file(tmp_path)) if e.HasField("summary")]
    assert [e.step for e in events] == [1, 2, 3]
    for step, e in zip((1, 2), events):
        values = {v.tag: v for v in e.summary.value}  # the file holds the bare names, not 'ymean[:Scalar]'
        assert set(values) == {"ymean", "y", "yh", "yi", "by_hand"}
        assert values["ymean"].scalar_value == pytest.approx(float((x * step * 2).mean()))
        assert list(values["y"].tensor.float_data) == (x * step * 2).reshape(-1).tolist()
        assert values["yh"].histogram.count == 6 and values["yi"].image.width == 3
    assert {v.tag for v in events[2].summary.value} == {"by_hand"}  # eval mode drops the ops' values
    graphs = [e for e in _events(_summary_file(tmp_path)) if e.HasField("graph_def")]
    if mode == "graph":  # the compiled graph of `network`, with the summary ops in it
        assert len(graphs) == 1 and "ScalarSummary" in {n.op_type for n in graphs[0].graph_def.node}
        assert not graphs[0].HasField("step")


def test_summary_op_input_checks():
    with pytest.raises(ValueError, match="non-empty str"):
        ops.ScalarSummary()("", ms.Tensor(np.float32(1)))
    with pytest.raises(ValueError, match="one element"):
        ops.ScalarSummary()("s", ms.Tensor(np.zeros((2,), np.float32)))
    with pytest.raises(ValueError, match="rank 4"):
        ops.ImageSummary()("i", ms.Tensor(np.zeros((2, 2), np.float32)))
    with pytest.raises(ValueError, match="greater than 0"):
        ops.HistogramSummary()("h", ms.Tensor(np.float32(1)))


def test_export_npy_and_lineage_file(tmp_path):
    from openspore.train.callback._summary_collector import user_defined_info
    with ms.SummaryRecord(str(tmp_path), export_options={"tensor_format": "npy"}) as rec:
        rec.add_value("tensor", "w/a", ms.Tensor(np.ones((2, 2), np.float32)))
        rec.add_value("custom_lineage_data", "c", user_defined_info({"lr": 0.5, "n": 3, "s": "x"}))
        rec.record(1)
    exported = [os.path.join(r, f) for r, _, fs in os.walk(tmp_path) for f in fs if f.endswith(".npy")]
    assert [os.path.basename(p) for p in exported] == ["w%2Fa_1.npy"]
    np.testing.assert_array_equal(np.load(exported[0]), np.ones((2, 2)))
    lineage = [n for n in os.listdir(tmp_path) if n.endswith("_lineage")]
    assert len(lineage) == 1
    from openspore.insight.summary_reader import SummaryIndex
    assert SummaryIndex(str(tmp_path)).run("./").lineage["user_defined"] == {"lr": 0.5, "n": 3, "s": "x"}


def test_a_log_dir_that_is_a_file_is_refused_clearly(tmp_path):
    path = tmp_path / "events"
    path.write_bytes(b"")
    with pytest.raises(NotADirectoryError, match="'log_dir' should be a directory.*is a file"):
        ms.SummaryRecord(str(path))
    assert path.read_bytes() == b""  # left as it was
    with ms.SummaryRecord(str(tmp_path / "ok")) as record:  # the refused one holds no instance slot
        record.add_value("scalar", "x", ms.Tensor(1.0))
        record.record(1)


def test_a_log_dir_that_cannot_be_made_leaves_the_process_free_to_open_another(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    with pytest.raises(NotADirectoryError, match="'log_dir' .*below cannot be made: Not a directory"):
        ms.SummaryRecord(str(blocker / "below"))  # a file's child: makedirs fails after the slot is taken
    with ms.SummaryRecord(str(tmp_path / "ok")) as record:
        record.add_value("scalar", "x", ms.Tensor(1.0))
        record.record(1)
