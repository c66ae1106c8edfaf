"""Checkpoints: byte compatibility with MindSpore fixtures, round trips, damage handling, atomic writes."""
import binascii
import os
import shutil
import stat

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.train import _ckpt_format, ckpt_to_safetensors, safetensors_to_ckpt
from tests.conftest import assert_close

FIXTURE_CKPTS = ["mlp.ckpt", "lenet5.ckpt", "lenet5_init.ckpt", "lenet5_after5.ckpt", "resblock.ckpt",
                 "encoder.ckpt", "branchy.ckpt"]


class Dense(nn.Cell):
    def __init__(self, cin, cout):
        super().__init__()
        rng = np.random.default_rng(cin * 10 + cout)
        self.weight = ms.Parameter(ms.Tensor(rng.standard_normal((cout, cin)).astype(np.float32)))
        self.bias = ms.Parameter(ms.Tensor(rng.standard_normal(cout).astype(np.float32)))

    def construct(self, x):
        return ops.add(ops.MatMul(transpose_b=True)(x, self.weight), self.bias)


class MLP(nn.Cell):
    def __init__(self, hidden=5):
        super().__init__()
        self.fc1 = Dense(4, hidden)
        self.fc2 = Dense(hidden, 3)
        self.steps = ms.Parameter(ms.Tensor(np.array([3], np.int32)), requires_grad=False)

    def construct(self, x):
        return self.fc2(self.fc1(x))


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def copy_of(fixtures_dir, name, tmp_path):
    dst = tmp_path / name
    shutil.copyfile(os.path.join(fixtures_dir, name), dst)
    os.chmod(dst, 0o600)
    return str(dst)


# ---- MindSpore byte compatibility ---------------------------------------------------------------------
@pytest.mark.parametrize("name", FIXTURE_CKPTS)
def test_fixture_reserializes_byte_identical(fixtures_dir, tmp_path, name):
    src = os.path.join(fixtures_dir, name)
    params = ms.load_checkpoint(src)
    assert params and all(isinstance(p, ms.Parameter) and p.name == k for k, p in params.items())
    out = str(tmp_path / name)
    ms.save_checkpoint(params, out)
    with open(src, "rb") as f, open(out, "rb") as g:
        assert f.read() == g.read()
    ms.save_checkpoint(list(params.values()), out)  # the list form writes the same bytes
    with open(src, "rb") as f, open(out, "rb") as g:
        assert f.read() == g.read()


def test_fixture_names_shapes_and_values(fixtures_dir):
    params = ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5.ckpt"))
    assert list(params) == ["conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
                            "fc3.weight", "fc3.bias"]
    assert params["conv1.weight"].shape == (6, 1, 5, 5) and params["fc1.weight"].shape == (120, 400)
    assert params["fc3.bias"].dtype == ms.float32
    before = ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_init.ckpt"))
    after = ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_after5.ckpt"))
    assert not np.array_equal(before["fc3.bias"].asnumpy(), after["fc3.bias"].asnumpy())


def test_layout_matches_the_documented_dense_example(tmp_path):
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.arange(3, dtype=np.float32)
    path = str(tmp_path / "dense.ckpt")
    ms.save_checkpoint({"weight": ms.Tensor(w), "bias": ms.Tensor(b)}, path)
    data = open(path, "rb").read()
    expected = (b"\x0a\x49\x0a\x06weight\x12\x3f\x08\x03\x08\x04\x12\x07Float32\x1a\x30" + w.tobytes()
                + b"\x0a\x21\x0a\x04bias\x12\x19\x08\x03\x12\x07Float32\x1a\x0c" + b.tobytes())
    assert len(data) == 110 and data == expected


# ---- round trips ----------------------------------------------------------------------------------------
def test_cell_round_trip_and_load_param_into_net(tmp_path):
    net = MLP()
    path = str(tmp_path / "mlp")
    ms.save_checkpoint(net, path)
    assert os.path.exists(path + ".ckpt") and not os.path.exists(path)
    loaded = ms.load_checkpoint(path + ".ckpt")
    assert list(loaded) == ["steps", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert loaded["steps"].dtype == ms.int32
    other = MLP()
    for p in other.get_parameters():
        p.set_data(ms.Tensor(np.zeros(p.shape, p.dtype.np_dtype)))
    assert ms.load_param_into_net(other, loaded) == ([], [])
    x = ms.Tensor(np.ones((2, 4), np.float32))
    assert_close(other(x), net(x).asnumpy())
    fresh = MLP()
    ms.load_checkpoint(path + ".ckpt", net=fresh)
    assert_close(fresh.fc2.bias, net.fc2.bias.asnumpy())


def test_round_trip_on_each_backend(tmp_path, backend):
    net = MLP()
    path = str(tmp_path / f"{backend}.ckpt")
    ms.save_checkpoint(net, path, append_dict={"epoch": 2})
    fresh = MLP(hidden=5)
    for p in fresh.get_parameters():
        p.set_data(ms.Tensor(np.zeros(p.shape, p.dtype.np_dtype)))
    not_loaded, unused = ms.load_param_into_net(fresh, ms.load_checkpoint(path))
    assert (not_loaded, unused) == ([], ["epoch"])
    x = ms.Tensor(np.ones((1, 4), np.float32))
    assert_close(fresh(x), net(x).asnumpy())


def test_load_param_into_net_reports_and_checks(tmp_path):
    net = MLP()
    params = {"fc1.weight": ms.Parameter(ms.Tensor(np.ones((5, 4), np.float32)), name="fc1.weight"),
              "extra": ms.Parameter(ms.Tensor(np.ones(1, np.float32)), name="extra"), "note": "hello"}
    not_loaded, unused = ms.load_param_into_net(net, params)
    assert not_loaded == ["steps", "fc1.bias", "fc2.weight", "fc2.bias"] and unused == ["extra", "note"]
    assert_close(net.fc1.weight, np.ones((5, 4)))
    bad = {"fc1.weight": ms.Tensor(np.ones((5, 3), np.float32))}
    with pytest.raises(RuntimeError, match=r"should have the same shape as fc1.weight .* But got its shape \(5, 4\)"):
        ms.load_param_into_net(net, bad)
    half = {"fc1.bias": ms.Tensor(np.full(5, 2.0, np.float16))}
    ms.load_param_into_net(net, half)  # floats of another width are cast unless strict_load
    assert net.fc1.bias.dtype == ms.float32 and net.fc1.bias.asnumpy()[0] == 2.0
    with pytest.raises(RuntimeError, match="same type"):
        ms.load_param_into_net(net, half, strict_load=True)
    with pytest.raises(RuntimeError, match="same type"):
        ms.load_param_into_net(net, {"steps": ms.Tensor(np.ones(1, np.float32))})
    with pytest.raises(TypeError):
        ms.load_param_into_net(net, [1])


def test_load_param_into_net_matches_a_common_prefix():
    net = MLP()
    params = {"network." + p.name: ms.Tensor(np.full(p.shape, 7, p.dtype.np_dtype)) for p in net.get_parameters()}
    assert ms.load_param_into_net(net, params) == ([], [])
    assert net.fc2.weight.asnumpy()[0, 0] == 7
    assert ms.load_param_into_net(MLP(), params, strict_load=True)[0] == ["steps", "fc1.weight", "fc1.bias",
                                                                          "fc2.weight", "fc2.bias"]


def test_append_dict_types_and_string_layout(tmp_path):
    path = str(tmp_path / "a.ckpt")
    ms.save_checkpoint(MLP(), path, append_dict={"epoch_num": 3, "lr": 0.5, "note": "hi", "flag": True,
                                                 "t": ms.Tensor(np.array([1, 2], np.int16))})
    data = open(path, "rb").read()
    assert b"\x0a\x04note\x12\x11\x08\x00\x12\x03str\x1a\x08h\x00\x00\x00i\x00\x00\x00" in data
    loaded = ms.load_checkpoint(path)
    assert loaded["note"] == "hi"
    assert loaded["epoch_num"].dtype == ms.int64 and loaded["epoch_num"].shape == () and int(loaded["epoch_num"]) == 3
    assert loaded["lr"].dtype == ms.float32 and float(loaded["lr"]) == 0.5
    assert loaded["flag"].dtype == ms.bool_ and loaded["t"].dtype == ms.int16
    assert ms.load_param_into_net(MLP(), loaded)[1] == ["epoch_num", "lr", "note", "flag", "t"]
    with pytest.raises(TypeError, match="append_info"):
        ms.save_checkpoint(MLP(), path, append_dict={"bad": [1]})


def test_save_forms_and_dtypes(tmp_path):
    path = str(tmp_path / "forms.ckpt")
    values = {"f16": np.arange(4, dtype=np.float16), "bf16": np.arange(3).astype(ms.bfloat16.np_dtype),
              "b": np.array([True, False]), "u8": np.arange(5, dtype=np.uint8), "i64": np.array(9, np.int64),
              "f64": np.eye(2), "s": "text"}
    ms.save_checkpoint(values, path)
    loaded = ms.load_checkpoint(path)
    assert list(loaded) == list(values)
    for k, v in values.items():
        if isinstance(v, str):
            assert loaded[k] == v
        else:
            assert loaded[k].dtype == ms.common.dtype.nptype_to_dtype(v.dtype)
            np.testing.assert_array_equal(loaded[k].asnumpy(), v)
    ms.save_checkpoint([{"name": "x", "data": ms.Tensor(np.ones(2, np.float32))}], path)
    assert list(ms.load_checkpoint(path)) == ["x"]
    with pytest.raises(TypeError, match="should be nn.Cell, list or dict"):
        ms.save_checkpoint(3, path)
    with pytest.raises(TypeError, match="element 0"):
        ms.save_checkpoint([{"data": 1}], path)


def test_choice_func_and_prefix_filters(tmp_path):
    path = str(tmp_path / "f.ckpt")
    ms.save_checkpoint(MLP(), path, choice_func=lambda n: n.startswith("fc"))
    assert list(ms.load_checkpoint(path)) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert list(ms.load_checkpoint(path, filter_prefix="fc1")) == ["fc2.weight", "fc2.bias"]
    assert list(ms.load_checkpoint(path, specify_prefix=["fc2.b", "fc1.w"])) == ["fc1.weight", "fc2.bias"]
    assert list(ms.load_checkpoint(path, choice_func=lambda n: n.endswith("bias"))) == ["fc1.bias", "fc2.bias"]
    with pytest.raises(TypeError, match="filter_prefix"):
        ms.load_checkpoint(path, filter_prefix=3)


def test_sliced_parameters_are_concatenated(tmp_path, monkeypatch):
    monkeypatch.setattr(_ckpt_format, "SLICE_SIZE", 40)
    path = str(tmp_path / "sliced.ckpt")
    w = np.arange(30, dtype=np.float32).reshape(3, 10)
    ms.save_checkpoint({"w": ms.Tensor(w), "b": ms.Tensor(np.ones(2, np.float32))}, path)
    assert open(path, "rb").read().count(b"\x0a\x01w") == 3  # 120 bytes in 40-byte slices
    loaded = ms.load_checkpoint(path)
    np.testing.assert_array_equal(loaded["w"].asnumpy(), w)


# ---- files: suffix, atomic write, permissions -------------------------------------------------------------
def test_file_is_read_only_replaced_and_no_tmp_remains(tmp_path):
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(MLP(), path)
    assert mode_of(path) == 0o400 and os.listdir(tmp_path) == ["net.ckpt"]
    net = MLP(hidden=6)
    ms.save_checkpoint(net, path)  # the existing read-only file is replaced
    assert ms.load_checkpoint(path)["fc1.weight"].shape == (6, 4) and mode_of(path) == 0o400
    open(path + ".tmp", "wb").close()  # a stale tmp from a crash does not block saving
    ms.save_checkpoint(net, path)
    assert os.listdir(tmp_path) == ["net.ckpt"]


def test_failed_save_leaves_previous_file_and_no_tmp(tmp_path):
    class Exploding:
        def __iter__(self):
            raise RuntimeError("disk on fire")

    path = str(tmp_path / "keep.ckpt")
    ms.save_checkpoint(MLP(), path)
    before = open(path, "rb").read()
    with pytest.raises(RuntimeError, match="disk on fire"):
        ms.train.serialization._write_atomic(path, Exploding())
    assert open(path, "rb").read() == before and os.listdir(tmp_path) == ["keep.ckpt"]


def test_async_save_completes_before_load(tmp_path):
    path = str(tmp_path / "async.ckpt")
    net = MLP()
    ms.save_checkpoint(net, path, async_save=True)
    loaded = ms.load_checkpoint(path)
    assert_close(loaded["fc1.weight"], net.fc1.weight.asnumpy())
    assert mode_of(path) == 0o400


# ---- damage and bad input ----------------------------------------------------------------------------------
def test_missing_file_and_wrong_suffix(tmp_path):
    missing = str(tmp_path / "nothing.ckpt")
    with pytest.raises(ValueError, match="nothing.ckpt does not exist"):
        ms.load_checkpoint(missing)
    with pytest.raises(ValueError, match="should end with '.ckpt'"):
        ms.load_checkpoint(str(tmp_path / "x.bin"))
    with pytest.raises(TypeError):
        ms.load_checkpoint(3)
    with pytest.raises(ValueError, match="'format'"):
        ms.load_checkpoint(missing, format="h5")


def _record_boundaries(data):
    bounds, pos = {0}, 0
    while pos < len(data):
        length, nxt = _ckpt_format._varint(data, pos + 1, len(data))
        pos = nxt + length
        bounds.add(pos)
    return bounds


def test_truncated_files_raise_a_clean_error(fixtures_dir, tmp_path):
    path = copy_of(fixtures_dir, "mlp.ckpt", tmp_path)
    data = open(path, "rb").read()
    bounds = _record_boundaries(data)
    rng = np.random.default_rng(0)
    cuts = [c for c in sorted(set(rng.integers(1, len(data), 40).tolist()) | {1, 2, len(data) - 1}) if c not in bounds]
    for cut in cuts:
        with open(path, "wb") as f:
            f.write(data[:cut])
        with pytest.raises(ValueError, match=f"Failed to read the checkpoint file {path}. The file may be corrupted"):
            ms.load_checkpoint(path)


def test_byte_flips_raise_a_clean_error_or_load(fixtures_dir, tmp_path):
    path = copy_of(fixtures_dir, "branchy.ckpt", tmp_path)
    data = open(path, "rb").read()
    structural = [0, 1, 3, 4, 15, 16, 18, 19, 30]  # keys, lengths, tag and type bytes of the first record
    rng = np.random.default_rng(1)
    failures = 0
    for pos in structural + rng.integers(0, len(data), 60).tolist():
        damaged = bytearray(data)
        damaged[pos] ^= 0xFF
        with open(path, "wb") as f:
            f.write(bytes(damaged))
        try:
            loaded = ms.load_checkpoint(path)
        except ValueError as exc:
            assert path in str(exc)
            failures += 1
            continue
        assert pos not in structural
        assert all(isinstance(v, (ms.Parameter, str)) for v in loaded.values())
    assert failures >= len(structural)


def test_crc_trailer(tmp_path):
    path = str(tmp_path / "crc.ckpt")
    ms.save_checkpoint(MLP(), path, crc_check=True)
    data = open(path, "rb").read()
    assert data[-17:-10] == b"crc_num"
    assert int.from_bytes(data[-10:], "big") == binascii.crc32(data[:-17])
    assert list(ms.load_checkpoint(path, crc_check=True)) == list(ms.load_checkpoint(path))
    damaged = bytearray(data)
    damaged[len(data) // 2] ^= 0x01  # inside tensor data: only the CRC can notice
    os.chmod(path, 0o600)
    with open(path, "wb") as f:
        f.write(bytes(damaged))
    ms.load_checkpoint(path)
    with pytest.raises(ValueError, match="crc check is failed"):
        ms.load_checkpoint(path, crc_check=True)
    plain = str(tmp_path / "plain.ckpt")
    ms.save_checkpoint(MLP(), plain)
    with pytest.raises(ValueError, match="no crc_num"):
        ms.load_checkpoint(plain, crc_check=True)


@pytest.mark.parametrize("mode, key", [("AES-GCM", b"0123456789ABCDEF"), ("AES-CBC", b"0123456789ABCDEF" * 2),
                                       ("SM4-CBC", b"0123456789ABCDEF")])
def test_encrypted_round_trip(tmp_path, mode, key):
    pytest.importorskip("cryptography")
    path = str(tmp_path / "enc.ckpt")
    net = MLP()
    ms.save_checkpoint(net, path, enc_key=key, enc_mode=mode)
    assert b"fc1.weight" not in open(path, "rb").read()
    loaded = ms.load_checkpoint(path, dec_key=key, dec_mode=mode)
    assert_close(loaded["fc2.weight"], net.fc2.weight.asnumpy())
    with pytest.raises(ValueError, match="is encrypted"):
        ms.load_checkpoint(path)
    with pytest.raises(ValueError, match=f"Failed to read the checkpoint file {path}"):
        ms.load_checkpoint(path, dec_key=b"X" * len(key), dec_mode=mode)
    with pytest.raises(ValueError, match="bytes long"):
        ms.save_checkpoint(net, path, enc_key=b"short")


# ---- safetensors ---------------------------------------------------------------------------------------------
def test_safetensors_round_trip_and_header(tmp_path):
    import json
    import struct
    net = MLP()
    path = str(tmp_path / "net")
    ms.save_checkpoint(net, path, format="safetensors", append_dict={"note": "x"})
    path += ".safetensors"
    assert mode_of(path) == 0o400
    data = open(path, "rb").read()
    header = json.loads(data[8:8 + struct.unpack("<Q", data[:8])[0]])
    assert header["__metadata__"] == {"format": "ms", "note": "x"}
    assert header["fc1.bias"] == {"dtype": "F32", "shape": [5], "data_offsets": header["fc1.bias"]["data_offsets"]}
    loaded = ms.load_checkpoint(path, format="safetensors")
    assert loaded["note"] == "x" and loaded["steps"].dtype == ms.int32
    assert_close(loaded["fc1.weight"], net.fc1.weight.asnumpy())
    fresh = MLP()
    ms.load_checkpoint(path, net=fresh, format="safetensors")
    assert_close(fresh.fc2.bias, net.fc2.bias.asnumpy())
    with open(path, "rb") as f:
        truncated = f.read()[:-7]
    broken = str(tmp_path / "broken.safetensors")
    with open(broken, "wb") as f:
        f.write(truncated)
    with pytest.raises(ValueError, match=f"Failed to read the checkpoint file {broken}"):
        ms.load_checkpoint(broken, format="safetensors")


def test_ckpt_safetensors_conversion_round_trip(fixtures_dir, tmp_path):
    src = copy_of(fixtures_dir, "resblock.ckpt", tmp_path)
    st_dir = tmp_path / "st"
    written = ckpt_to_safetensors(src, save_path=str(st_dir))
    assert written == [str(st_dir / "resblock.safetensors")]
    back_dir = tmp_path / "back"
    back = safetensors_to_ckpt(str(st_dir), save_path=str(back_dir))
    original, again = ms.load_checkpoint(src), ms.load_checkpoint(back[0])
    assert sorted(original) == sorted(again)
    for k in original:
        np.testing.assert_array_equal(original[k].asnumpy(), again[k].asnumpy())
    renamed = ckpt_to_safetensors(src, save_path=str(tmp_path / "r"), name_map={"fc.bias": "head.bias"})
    assert "head.bias" in ms.load_checkpoint(renamed[0], format="safetensors")
