"""`export` and `save_mindir`: write a network as a MindIR (or ONNX) file (facts §1.15, §2.2).

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> net = nn.Dense(4, 3)
>>> ms.export(net, ms.Tensor(np.ones((2, 4), np.float32)), file_name="dense", file_format="MINDIR")  # doctest: +SKIP
>>> out = nn.GraphCell(ms.load("dense.mindir"))(ms.Tensor(np.ones((2, 4), np.float32)))  # doctest: +SKIP

The network is traced by the graph frontend in its current train/eval state (call `net.set_train(False)` first
for inference, as in MindSpore). Files are written atomically: to a temporary name in the target directory,
made read-only (0400), then renamed, so a failure leaves no half-written model behind. Models whose parameters
exceed `PARAMETER_SPLIT_SIZE` (1 GiB) use MindSpore's external-data layout: `<name>_graph.mindir` holds the graph
and `<name>_variables/data_<k>` the weights (after a 64-byte header holding the byte-order flag, each tensor
64-byte aligned, a new file every `EXTERNAL_FILE_SIZE` bytes).
"""
import os
import shutil
import tempfile

from ..common.files import write_atomic as _write_atomic
from . import mind_ir_pb2 as pb
from .export_graph import ExportError, capture

PARAMETER_SPLIT_SIZE = 1 << 30   # total parameter bytes above which the weights go to external files
EXTERNAL_FILE_SIZE = 1 << 30     # a new `data_<k>` file starts when the current one would exceed this
EXTERNAL_ALIGN = 64              # every tensor starts at a multiple of this offset

# Each data file starts with a byte-order flag (1: little endian), padded to the alignment: MindSpore's loader
# checks it ("The byte order of export MindIr device and load MindIr device is not same!" otherwise).
_HEADER = b"\x01" + b"\0" * (EXTERNAL_ALIGN - 1)
_FORMATS = ("AIR", "ONNX", "MINDIR")
_MINDIR_OPTIONS = ("enc_key", "enc_mode", "custom_func", "dataset", "incremental")


def export(net, *inputs, file_name, file_format="MINDIR", **kwargs):
    """export(net, *inputs, file_name, file_format, **kwargs): trace `net(*inputs)` and write it as
    `file_name.mindir` (MINDIR) or `file_name.onnx` (ONNX). kwargs: `enc_key`, `enc_mode`, `custom_func`."""
    _check_name(file_name, "export")
    if file_format not in _FORMATS:
        raise ValueError(f"For 'export', 'file_format' must be one of {list(_FORMATS)}, but got {file_format!r}.")
    if file_format == "AIR":
        raise ValueError("Only support export file in 'AIR' format with Ascend backend.")
    if file_format == "ONNX":
        if kwargs:
            raise ValueError(f"For 'export', the options {sorted(kwargs)} are not supported with file_format 'ONNX'.")
        from .onnx_export import export_onnx
        return export_onnx(net, inputs, file_name, where="export")
    unknown = sorted(set(kwargs) - set(_MINDIR_OPTIONS))
    if unknown:
        raise ValueError(f"For 'export', unknown option(s) {unknown}; the supported options are "
                         f"{list(_MINDIR_OPTIONS)}.")
    if kwargs.get("dataset") is not None:
        raise NotImplementedError("For 'export', serializing a dataset's preprocessing ('dataset') is not supported: "
                                  "pass example Tensors as inputs.")
    if kwargs.get("incremental"):
        raise NotImplementedError("For 'export', 'incremental' export is not supported.")
    enc_key, enc_mode = kwargs.get("enc_key"), kwargs.get("enc_mode", "AES-GCM")
    custom_func = kwargs.get("custom_func")
    if custom_func is not None and not callable(custom_func):
        raise TypeError(f"For 'export', 'custom_func' should be callable, but got {type(custom_func).__name__}.")
    from .mindir_write_ops import supported
    from .mindir_writer import build_model
    model = build_model(capture(net, inputs, "export", supported))
    if custom_func is not None:
        custom_func(model)
    write_model(model, _with_suffix(file_name), enc_key, enc_mode)


def save_mindir(model, file_name):
    """save_mindir(model, file_name): write a `mind_ir.ModelProto` (e.g. from `load_mindir`) to a file."""
    if not isinstance(model, pb.ModelProto):
        raise TypeError(f"For 'save_mindir', the argument 'model' should be a mind_ir ModelProto, but got "
                        f"{type(model).__name__}.")
    _check_name(file_name, "save_mindir")
    path = _with_suffix(file_name)
    _write_atomic(path, [model.SerializeToString()])


# ---- files ----------------------------------------------------------------------------------------------------
def _check_name(file_name, where):
    if not isinstance(file_name, (str, os.PathLike)) or not os.fspath(file_name):
        raise TypeError(f"For '{where}', the argument 'file_name' should be a non-empty str, but got {file_name!r}.")


def _with_suffix(file_name):
    name = os.fspath(file_name)
    return name if name.endswith(".mindir") else name + ".mindir"


def _parameters(model):
    return [tp for gp in (model.graph, *model.functions) for tp in gp.parameter]


def write_model(model, path, enc_key=None, enc_mode="AES-GCM"):
    """Write `model` to `path` (a `.mindir` name), with the external-data layout for large weights."""
    path = os.path.realpath(path)
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise ExportError(f"For 'export', the directory {parent} does not exist.")
    total = sum(len(tp.raw_data) for tp in _parameters(model))
    if total <= PARAMETER_SPLIT_SIZE:
        _write_atomic(path, [_encrypt(model.SerializeToString(), enc_key, enc_mode)])
        return path
    base = path[:-len(".mindir")]
    var_name = os.path.basename(base) + "_variables"
    graph_path = base + "_graph.mindir"
    tmp_dir = tempfile.mkdtemp(prefix=f".{var_name}.", suffix=".tmp", dir=parent)
    try:
        external = pb.ModelProto()
        external.CopyFrom(model)
        _write_external(external, tmp_dir, var_name)
        content = _encrypt(external.SerializeToString(), enc_key, enc_mode)
        _replace_dir(tmp_dir, os.path.join(parent, var_name), lambda: _write_atomic(graph_path, [content]))
    finally:
        if os.path.isdir(tmp_dir):
            shutil.rmtree(tmp_dir, ignore_errors=True)
    return graph_path


def _write_external(model, tmp_dir, var_name):
    """Move every parameter's bytes into `data_<k>` files in `tmp_dir`; the protos point at them."""
    k, pos, f = 0, 0, None
    try:
        for tp in _parameters(model):
            data = tp.raw_data
            if f is None or (pos > 0 and pos + len(data) > EXTERNAL_FILE_SIZE):
                if f is not None:
                    _close_read_only(f)
                    k += 1
                f = open(os.path.join(tmp_dir, f"data_{k}"), "wb")
                f.write(_HEADER)
                pos = len(_HEADER)
            f.write(data)
            tp.ClearField("raw_data")
            tp.external_data.location = f"{var_name}/data_{k}"
            tp.external_data.offset = pos
            tp.external_data.length = len(data)
            pos += len(data)
            pad = -pos % EXTERNAL_ALIGN
            f.write(b"\0" * pad)
            pos += pad
    finally:
        if f is not None:
            _close_read_only(f)


def _close_read_only(f):
    f.close()
    os.chmod(f.name, 0o400)


def _replace_dir(tmp_dir, target, commit):
    """Move `tmp_dir` to `target` and run `commit`; on failure the previous `target` comes back."""
    backup = None
    if os.path.lexists(target):
        backup = tempfile.mkdtemp(prefix=os.path.basename(target) + ".", suffix=".old", dir=os.path.dirname(target))
        os.rmdir(backup)
        os.rename(target, backup)
    try:
        os.rename(tmp_dir, target)
        commit()
    except BaseException:
        if os.path.isdir(target) and not os.path.isdir(tmp_dir):
            shutil.rmtree(target, ignore_errors=True)
        if backup is not None:
            os.rename(backup, target)
        raise
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)


def _encrypt(content, enc_key, enc_mode):
    if enc_key is None:
        return content
    if callable(enc_mode):
        out = enc_mode(content, enc_key)
        if not isinstance(out, (bytes, bytearray)):
            raise TypeError(f"For 'export', the 'enc_mode' function should return bytes, but returned "
                            f"{type(out).__name__}.")
        return bytes(out)
    from ..train import _ckpt_format as fmt
    return fmt.encrypt(content, enc_key, enc_mode, where="export")
