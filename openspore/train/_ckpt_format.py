"""Byte-level checkpoint formats: MindSpore `.ckpt` (protobuf), its CRC trailer, encryption, safetensors.

`.ckpt` layout (facts §2.1): a concatenation of serialized `Checkpoint` messages, one per parameter (or per
512 MiB slice of one), each `0a <len> Value{tag, TensorProto{dims (unpacked), tensor_type, tensor_content}}`.
The reader walks the top-level records itself instead of parsing the file as one message, so files beyond
protobuf's 2 GiB message limit load, and damage is reported with its offset.

Entries are `(name, value)` pairs where value is a C-contiguous numpy array or a Python `str`.
"""
import binascii
import json
import math
import os
import struct

import numpy as np

from ..common import dtype as mstype
from .checkpoint_pb2 import Checkpoint

SLICE_SIZE = 512 * 1024 * 1024          # bytes of tensor content per message (MindSpore: 512*1024 KB)
ENCRYPT_BLOCK_SIZE = 64 * 1024 * 1024   # plaintext bytes per encrypted block
CRC_MARK = b"crc_num"
CRC_TRAILER = len(CRC_MARK) + 10        # marker + 10-byte big-endian integer


class CorruptError(Exception):
    """Internal: the bytes do not form a valid checkpoint (the caller adds the file name)."""


class UnsupportedEntry(ValueError):
    """Internal: a well-formed entry of a kind openspore cannot load (the caller adds the file name)."""


def _c_order(array):
    """C-contiguous without np.ascontiguousarray's promotion of 0-d arrays to shape (1,)."""
    array = np.asarray(array)
    return array if array.flags.c_contiguous else array.copy(order="C")


# ---- writing .ckpt ---------------------------------------------------------------------------------
def type_name(array):
    """numpy array → checkpoint tensor_type string ('Float32', 'BFloat16', 'Bool', ...)."""
    return str(mstype.nptype_to_dtype(array.dtype))


def encode_entry(name, value):
    """Serialized `Checkpoint` messages (a list: one per slice) for one entry."""
    if isinstance(value, str):
        return [_message(name, [0], "str", np.array(value).tobytes())]
    array = _c_order(value)
    tname, dims = type_name(array), list(array.shape)
    if array.nbytes <= SLICE_SIZE:
        return [_message(name, dims, tname, array.tobytes())]
    flat = array.reshape(-1).view(np.uint8)
    step = SLICE_SIZE - SLICE_SIZE % array.itemsize
    return [_message(name, dims, tname, flat[i:i + step].tobytes()) for i in range(0, flat.size, step)]


def _message(name, dims, tname, content):
    ckpt = Checkpoint()
    value = ckpt.value.add()
    value.tag = name
    value.tensor.dims.extend(dims)
    value.tensor.tensor_type = tname
    value.tensor.tensor_content = content
    return ckpt.SerializeToString()


def crc_trailer(crc):
    return CRC_MARK + int(crc).to_bytes(10, "big")


# ---- reading .ckpt ---------------------------------------------------------------------------------
def split_crc(content):
    """(payload, crc or None): strip the optional `crc_num` trailer."""
    if len(content) >= CRC_TRAILER and bytes(content[-CRC_TRAILER:-10]) == CRC_MARK:
        return content[:-CRC_TRAILER], int.from_bytes(bytes(content[-10:]), "big")
    return content, None


def _varint(buf, pos, end):
    result = shift = 0
    while True:
        if pos >= end:
            raise CorruptError(f"truncated varint at offset {pos}")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise CorruptError(f"malformed varint before offset {pos}")


def _records(content):
    """Yield (offset, Checkpoint.Value) for each top-level `value` record."""
    view = memoryview(content)
    pos, end = 0, len(view)
    while pos < end:
        start = pos
        key, pos = _varint(view, pos, end)
        if key != 0x0A:
            raise CorruptError(f"unexpected field key {key:#x} at offset {start}")
        length, pos = _varint(view, pos, end)
        if length > end - pos:
            raise CorruptError(f"record at offset {start} needs {length} bytes but only {end - pos} remain")
        try:
            value = Checkpoint.Value.FromString(view[pos:pos + length])
        except Exception as exc:  # protobuf's DecodeError and friends
            raise CorruptError(f"record at offset {start} does not parse ({exc})") from None
        if not value.IsInitialized() or not isinstance(value.tag, str):
            raise CorruptError(f"record at offset {start} lacks required fields or has an invalid tag")
        yield start, value
        pos += length


def decode(content):
    """Ordered {name: numpy array | str} from .ckpt bytes (slices with the same tag are concatenated)."""
    pieces = {}  # name -> [tensor_type, [dims per piece], [content per piece]]
    for offset, value in _records(content):
        kind = value.WhichOneof("value")
        if kind == "maptensor":
            raise UnsupportedEntry(f"the entry '{value.tag}' is a MapTensor (MindSpore MapParameter), which openspore "
                             "does not support")
        if kind != "tensor":
            raise CorruptError(f"record at offset {offset} ('{value.tag}') holds no tensor")
        t = value.tensor
        entry = pieces.setdefault(value.tag, [t.tensor_type, [], []])
        if entry[0] != t.tensor_type:
            raise CorruptError(f"slices of '{value.tag}' disagree on their type ({entry[0]} vs {t.tensor_type})")
        entry[1].append(tuple(t.dims))
        entry[2].append(t.tensor_content)
    return {name: _assemble(name, *entry) for name, entry in pieces.items()}


def _assemble(name, tname, dims_list, contents):
    if tname == "str":
        try:
            return b"".join(contents).decode("utf-32-le").rstrip("\x00")
        except UnicodeDecodeError:
            raise CorruptError(f"the string entry '{name}' is not valid UTF-32") from None
    if tname == "Int4":
        raise UnsupportedEntry(f"the entry '{name}' has tensor_type 'Int4' (qint4x2), which openspore does not support")
    try:
        dtype = mstype.from_name(tname)
    except ValueError:
        raise CorruptError(f"the entry '{name}' has an unknown tensor_type {tname!r}") from None
    np_dtype = dtype.np_dtype
    # Writers split only tensors over SLICE_SIZE bytes, into full slices and a last, shorter one: a repeated tag
    # with a short slice before the last is one entry saved twice (e.g. two checkpoints joined together).
    if any(len(c) < SLICE_SIZE - 16 for c in contents[:-1]):
        raise CorruptError(f"the entry '{name}' occurs {len(contents)} times, which is not how large tensors are "
                           "sliced (the file may be several checkpoints joined together)")
    for dims in dims_list:
        if any(d < 0 for d in dims):
            raise CorruptError(f"the entry '{name}' has negative dims {dims}")
    data = b"".join(contents)
    shape = dims_list[0]
    # copies give writable arrays: backends may mishandle read-only buffers
    if len(data) == math.prod(shape) * np_dtype.itemsize:
        return np.frombuffer(data, np_dtype).reshape(shape).copy()
    # slices carrying their own shapes: stack along the first axis when that is consistent
    if len(dims_list) > 1 and all(d[1:] == shape[1:] and d for d in dims_list):
        full = (sum(d[0] for d in dims_list),) + tuple(shape[1:])
        if len(data) == math.prod(full) * np_dtype.itemsize:
            return np.frombuffer(data, np_dtype).reshape(full).copy()
    raise CorruptError(f"the entry '{name}' has {len(data)} bytes of data, which does not fit shape {shape} of {tname}")


# ---- encryption (openspore container; MindSpore's encrypted layout is not documented) ------------------
_ENC_MAGIC = b"OSPCKENC"
_ENC_MODES = {"AES-GCM": 1, "AES-CBC": 2, "SM4-CBC": 3}


def _check_key(key, mode, where):
    if not isinstance(key, (bytes, bytearray)):
        raise TypeError(f"For '{where}', the key should be bytes, but got {type(key).__name__}.")
    if mode not in _ENC_MODES:
        raise ValueError(f"For '{where}', the mode should be one of {list(_ENC_MODES)}, but got {mode!r}.")
    sizes = (16,) if mode == "SM4-CBC" else (16, 24, 32)
    if len(key) not in sizes:
        raise ValueError(f"For '{where}', the key for {mode} should be {' or '.join(map(str, sizes))} bytes long, "
                         f"but got {len(key)}.")


def _ciphers():
    try:
        from cryptography.hazmat.primitives import padding
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise ValueError("Encrypted checkpoints need the 'cryptography' package (pip install cryptography).") from None
    return padding, Cipher, algorithms, modes, AESGCM


def encrypt(plain, key, mode, where="save_checkpoint"):
    """MAGIC, mode byte, then per 64 MiB block: 4-byte length, nonce/IV, ciphertext (+GCM tag)."""
    _check_key(key, mode, where)
    padding, Cipher, algorithms, modes, AESGCM = _ciphers()
    out = [_ENC_MAGIC, bytes([_ENC_MODES[mode]])]
    view = memoryview(plain)
    for i in range(0, max(len(view), 1), ENCRYPT_BLOCK_SIZE):
        block = bytes(view[i:i + ENCRYPT_BLOCK_SIZE])
        if mode == "AES-GCM":
            nonce = os.urandom(12)
            sealed = nonce + AESGCM(bytes(key)).encrypt(nonce, block, _ENC_MAGIC)
        else:
            algo = algorithms.AES(bytes(key)) if mode == "AES-CBC" else algorithms.SM4(bytes(key))
            iv = os.urandom(16)
            padder = padding.PKCS7(128).padder()
            enc = Cipher(algo, modes.CBC(iv)).encryptor()
            sealed = iv + enc.update(padder.update(block) + padder.finalize()) + enc.finalize()
        out.append(struct.pack(">I", len(sealed)))
        out.append(sealed)
    return b"".join(out)


def is_encrypted(content):
    return bytes(content[:len(_ENC_MAGIC)]) == _ENC_MAGIC


def decrypt(content, key, mode, where="load_checkpoint"):
    _check_key(key, mode, where)
    padding, Cipher, algorithms, modes, AESGCM = _ciphers()
    if not is_encrypted(content) or len(content) < len(_ENC_MAGIC) + 1:
        raise CorruptError("the file is not an openspore-encrypted checkpoint")
    if content[len(_ENC_MAGIC)] != _ENC_MODES[mode]:
        raise CorruptError(f"the file was not encrypted with {mode}")
    view, pos, out = memoryview(content), len(_ENC_MAGIC) + 1, []
    while pos < len(view):
        if pos + 4 > len(view):
            raise CorruptError("truncated encrypted block header")
        (length,) = struct.unpack(">I", view[pos:pos + 4])
        pos += 4
        sealed = bytes(view[pos:pos + length])
        if len(sealed) != length:
            raise CorruptError("truncated encrypted block")
        pos += length
        try:
            if mode == "AES-GCM":
                out.append(AESGCM(bytes(key)).decrypt(sealed[:12], sealed[12:], _ENC_MAGIC))
            else:
                algo = algorithms.AES(bytes(key)) if mode == "AES-CBC" else algorithms.SM4(bytes(key))
                dec = Cipher(algo, modes.CBC(sealed[:16])).decryptor()
                unpadder = padding.PKCS7(128).unpadder()
                out.append(unpadder.update(dec.update(sealed[16:]) + dec.finalize()) + unpadder.finalize())
        except Exception:
            raise CorruptError("decryption failed: the key or mode is wrong, or the file is damaged") from None
    return b"".join(out)


# ---- safetensors -----------------------------------------------------------------------------------
_ST_TYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "BF16": mstype.bfloat16.np_dtype,
             "I64": np.int64, "I32": np.int32, "I16": np.int16, "I8": np.int8, "U64": np.uint64,
             "U32": np.uint32, "U16": np.uint16, "U8": np.uint8, "BOOL": np.bool_, "C64": np.complex64}
_ST_RESERVED = ("format", "crc_num", "remove_redundancy")


def encode_safetensors(entries, crc_check=False):
    """safetensors bytes: tensors via the package's numpy API, metadata {"format": "ms"}; str entries go to
    the metadata under their own name."""
    from safetensors.numpy import save
    tensors, metadata = {}, {"format": "ms"}
    for name, value in entries:
        if isinstance(value, str):
            if name in _ST_RESERVED:
                raise ValueError(f"the string entry name '{name}' is reserved in safetensors metadata")
            metadata[name] = value
        else:
            tensors[name] = _c_order(value)
    if crc_check:
        crc = 0
        for name in sorted(tensors):
            crc = binascii.crc32(tensors[name].tobytes(), crc)
        metadata["crc_num"] = str(crc)
    return save(tensors, metadata=metadata)


def decode_safetensors(content, crc_check=False):
    """Ordered {name: array | str} from safetensors bytes (tensors in file order, then metadata strings)."""
    from safetensors import deserialize
    if len(content) < 8:
        raise CorruptError("the file is shorter than the safetensors header")
    (header_len,) = struct.unpack("<Q", bytes(content[:8]))
    if header_len > len(content) - 8:
        raise CorruptError(f"the header length {header_len} exceeds the file size")
    try:
        header = json.loads(bytes(content[8:8 + header_len]))
        items = deserialize(bytes(content))
    except Exception as exc:
        raise CorruptError(f"the safetensors data does not parse ({exc})") from None
    metadata = header.get("__metadata__") or {}
    order = {k: v["data_offsets"][0] for k, v in header.items() if k != "__metadata__"}
    out = {}
    for name, info in sorted(items, key=lambda kv: order.get(kv[0], 0)):
        if info["dtype"] not in _ST_TYPES:
            raise UnsupportedEntry(f"the safetensors entry '{name}' has dtype {info['dtype']}, "
                                   "which openspore does not support")
        out[name] = np.frombuffer(info["data"], _ST_TYPES[info["dtype"]]).reshape(info["shape"]).copy()
    if crc_check:
        if "crc_num" not in metadata:
            raise CorruptError("the file has no crc_num to check")
        crc = 0
        for name in sorted(out):
            crc = binascii.crc32(out[name].tobytes(), crc)
        if str(crc) != metadata["crc_num"]:
            raise CorruptError("the crc check failed")
    for key, value in metadata.items():
        if key not in _ST_RESERVED:
            out[key] = value
    return out
