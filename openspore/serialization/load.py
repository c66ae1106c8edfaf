"""`load` / `load_mindir`: read a MindSpore `.mindir` file (facts §1.15, §2.2).

>>> import openspore as ms
>>> from openspore import nn
>>> graph = ms.load("lenet5.mindir")                      # doctest: +SKIP
>>> out = nn.GraphCell(graph)(ms.Tensor(x))               # doctest: +SKIP

Bad input is reported, never half-loaded: a missing file raises `FileNotFoundError` (also a ValueError, as in
MindSpore); an empty, truncated, corrupt or foreign file, or a model using operators openspore cannot run,
raises `MindIRError` (a ValueError and a RuntimeError) naming the file and the problem.
"""
import os

from google.protobuf.descriptor import FieldDescriptor as _FD
from google.protobuf.message import DecodeError

from . import mind_ir_pb2 as pb
from .mindir_reader import read_model
from .mindir_values import MindIRError, MindIRFileNotFoundError


def _path(file_name, where):
    if not isinstance(file_name, (str, os.PathLike)):
        raise ValueError(f"For '{where}', the argument 'file_name' should be a str, but got "
                         f"{type(file_name).__name__}.")
    name = os.fspath(file_name)
    if not name.endswith(".mindir"):
        raise ValueError(f"For '{where}', the argument 'file_name' (MindIR file) should end with '.mindir', "
                         f"but got {name!r}.")
    path = os.path.realpath(name)
    if not os.path.exists(path):
        raise MindIRFileNotFoundError(f"For '{where}', the MindIR file {path} does not exist, please check whether "
                                      "'file_name' is correct.")
    if not os.path.isfile(path):
        raise MindIRError(f"For '{where}', {path} is not a regular file.")
    return path


def _decrypt(content, path, dec_key, dec_mode):
    # Lazy: the container format lives with the checkpoint code; plain models never need it.
    from ..train import _ckpt_format as fmt
    if dec_key is None:
        if fmt.is_encrypted(content):
            raise MindIRError(f"The MindIR file {path} is encrypted: pass 'dec_key' (and 'dec_mode').")
        return content
    if callable(dec_mode):
        try:
            plain = dec_mode(content, dec_key)
        except Exception as exc:  # noqa: BLE001 - a user-supplied decryption function
            raise MindIRError(f"Failed to decrypt the MindIR file {path} with the given 'dec_mode' function: "
                              f"{exc}") from exc
        if not isinstance(plain, (bytes, bytearray)):
            raise MindIRError(f"The 'dec_mode' function should return bytes, but returned {type(plain).__name__}.")
        return bytes(plain)
    try:
        return fmt.decrypt(content, dec_key, dec_mode, where="load")
    except fmt.CorruptError as exc:
        raise MindIRError(f"Failed to decrypt the MindIR file {path}: {exc}.") from None


def _parse(content, path):
    if not content:
        raise MindIRError(f"Failed to load the MindIR file {path}: the file is empty.")
    model = pb.ModelProto()
    try:
        model.ParseFromString(content)
    except (DecodeError, RuntimeError, ValueError, UnicodeDecodeError) as exc:
        raise MindIRError(f"Failed to load the MindIR file {path}: the content is not a valid MindIR protobuf "
                          f"(truncated, corrupted or another format): {exc}") from None
    repeated = _singular_field_repeated(content, model)
    if repeated:
        raise MindIRError(f"Failed to load the MindIR file {path}: the field '{repeated}' occurs more than once at "
                          "the top level, so the file is several models joined together or damaged (a MindIR "
                          "file holds one ModelProto).")
    if not model.HasField("graph"):
        raise MindIRError(f"Failed to load the MindIR file {path}: it contains no graph (not a MindIR model).")
    bad = _bad_string(model)
    if bad:
        raise MindIRError(f"Failed to load the MindIR file {path}: the field '{bad}' is not valid UTF-8 text "
                          "(the file is corrupted).")
    return model


def _singular_field_repeated(content, model):
    """The name of a non-repeated top-level field that the bytes carry twice, or None.

    Protobuf parsing merges such duplicates silently (a file concatenated to itself parses as one model with
    every node twice), so the top level is walked here once more, field by field."""
    from ..train._ckpt_format import _varint  # the protobuf wire varint, shared with the checkpoint reader
    fields = model.DESCRIPTOR.fields_by_number
    seen, pos, end = set(), 0, len(content)
    while pos < end:
        key, pos = _varint(content, pos, end)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = _varint(content, pos, end)
        elif wire == 1:
            pos += 8
        elif wire == 2:
            length, pos = _varint(content, pos, end)
            pos += length
        elif wire == 5:
            pos += 4
        else:  # groups: MindIR has none, and the parse above already accepted the bytes
            return None
        field = fields.get(number)
        if field is not None and not field.is_repeated:
            if number in seen:
                return field.name
            seen.add(number)
    return None




def _bad_string(message, prefix=""):
    """The path of the first string field holding bytes that are not UTF-8, or None. proto2 parsing does not
    check this; the reader must not meet undecodable names halfway through a conversion."""
    for field, value in message.ListFields():
        where = f"{prefix}{field.name}"
        if field.type == _FD.TYPE_STRING:
            values = value if field.is_repeated else (value,)
            if any(not isinstance(v, str) for v in values):
                return where
        elif field.type == _FD.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry:
                if any(not isinstance(k, str) or not isinstance(v, str) for k, v in value.items()):
                    return where
                continue
            items = value if field.is_repeated else (value,)
            for i, item in enumerate(items):
                bad = _bad_string(item, f"{where}[{i}].")
                if bad:
                    return bad
    return None


def _read_model(file_name, dec_key, dec_mode, where):
    path = _path(file_name, where)
    try:
        with open(path, "rb") as f:
            content = f.read()
    except OSError as exc:
        raise MindIRError(f"For '{where}', cannot read {path}: {exc.strerror or exc}.") from None
    return _parse(_decrypt(content, path, dec_key, dec_mode), path), path


def load_mindir(file_name):
    """load_mindir(file_name): the parsed `mind_ir.ModelProto` of a MindIR file (no conversion)."""
    return _read_model(file_name, None, "AES-GCM", "load_mindir")[0]


def load(file_name, dec_key=None, dec_mode="AES-GCM", obf_func=None):
    """load(file_name, dec_key=None, dec_mode='AES-GCM', obf_func=None): load a MindIR file into a graph that
    `nn.GraphCell` runs (a `MindIRGraph`: `.graph`, `.parameters`, `.inputs`)."""
    if obf_func is not None:
        raise NotImplementedError("For 'load', dynamic structure obfuscation ('obf_func') is not supported "
                                  "(MindSpore 2.x dropped it as well).")
    model, path = _read_model(file_name, dec_key, dec_mode, "load")
    return read_model(model, path, os.path.dirname(path))
