"""save_checkpoint / load_checkpoint / load_param_into_net, byte-compatible with MindSpore (facts §1.15, §2.1).

Files are written to `<file>.tmp`, made read-only (0400) and renamed over the target, so a crash never
leaves a half-written checkpoint and an existing read-only checkpoint is replaced as MindSpore does.

>>> import os, tempfile, numpy as np, openspore as ms
>>> path = os.path.join(tempfile.mkdtemp(), "w.ckpt")
>>> ms.save_checkpoint({"w": ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")}, path)
>>> ms.load_checkpoint(path)["w"].asnumpy().tolist()
[1.0, 1.0]
"""
import binascii
import logging
import numbers
import os
import re
import stat
import threading
from collections import OrderedDict

import numpy as np

from ..common import dtype as mstype
from ..common.files import write_atomic as _write_atomic
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..nn.cell import Cell
from . import _ckpt_format as fmt
from ._ckpt_format import _c_order

logger = logging.getLogger(__name__)

_SUFFIX = {"ckpt": ".ckpt", "safetensors": ".safetensors"}
_pending = {}  # realpath -> Thread of an async save still writing it
_pending_lock = threading.Lock()


def _check_format(format, where):
    if format not in _SUFFIX:
        raise ValueError(f"For '{where}', the 'format' should be 'ckpt' or 'safetensors', but got {format!r}.")


def _read_failed(path, detail=""):
    extra = f" ({detail})" if detail else ""
    return ValueError(f"Failed to read the checkpoint file {path}. The file may be corrupted, and the content "
                      f"cannot be parsed.{extra}")


# ---- collecting what to save ---------------------------------------------------------------------------
def _as_array(value, name):
    if isinstance(value, Tensor):
        return _c_order(value.asnumpy())
    if isinstance(value, np.ndarray):
        mstype.nptype_to_dtype(value.dtype)  # raises TypeError naming the unsupported dtype
        return _c_order(value)
    if isinstance(value, (bool, numbers.Number)) and not isinstance(value, complex):
        return Tensor(value).asnumpy()
    raise TypeError(f"For 'save_checkpoint', the value of '{name}' should be a Parameter, Tensor, numpy array, "
                    f"number or str, but got {type(value).__name__}.")


def _collect(save_obj, choice_func, integrated=False):
    """[(name, array | str)] in save order. `integrated`: a parameter stored sliced by semi-auto parallel is saved
    whole (one AllGather per such parameter, so every rank must save the same parameters in the same order)."""
    entries = OrderedDict()
    if isinstance(save_obj, Cell):
        for _, param in save_obj.parameters_and_names():
            entries[param.name] = param
    elif isinstance(save_obj, dict):
        for name, value in save_obj.items():
            if not isinstance(name, str):
                raise TypeError("For 'save_checkpoint', the keys of 'save_obj' should be str, "
                                f"but got {type(name).__name__}.")
            entries[name] = value
    elif isinstance(save_obj, (list, tuple)):
        for i, item in enumerate(save_obj):
            if isinstance(item, Parameter):
                entries[item.name] = item
            elif isinstance(item, dict) and isinstance(item.get("name"), str) and "data" in item:
                entries[item["name"]] = item["data"]
            else:
                raise TypeError("For 'save_checkpoint', each element of a list 'save_obj' should be a Parameter or "
                                f"a dict {{'name': str, 'data': Tensor}}, but element {i} is {item!r:.80}.")
    else:
        raise TypeError("For 'save_checkpoint', the parameter 'save_obj' should be nn.Cell, list or dict, "
                        f"but got {type(save_obj).__name__}.")
    out = []
    for name, value in entries.items():
        if choice_func is not None and not choice_func(name):
            continue
        if integrated and getattr(value, "shard_layout", None) is not None:
            from ..parallel._param_shard import gather_full
            out.append((name, gather_full(value)))
            continue
        out.append((name, value if isinstance(value, str) else _as_array(value, name)))
    return out


def _append(entries, append_dict):
    if append_dict is None:
        return entries
    if not isinstance(append_dict, dict):
        raise TypeError("For 'save_checkpoint', the argument 'append_dict' should be a dict, "
                        f"but got {type(append_dict).__name__}.")
    for name, value in append_dict.items():
        if not isinstance(name, str) or not isinstance(value, (str, numbers.Number, Tensor)) or isinstance(value, complex):
            raise TypeError("For 'save_checkpoint', the type of dict 'append_info' must be key: string, value: int, "
                            f"float, bool, str or Tensor, but got {type(name).__name__}: {type(value).__name__}.")
        entries.append((name, value if isinstance(value, str) else _as_array(value, name)))
    # an appended name that is also a parameter's (append_info's "momentum" next to Momentum's own): the appended
    # value is the one written, as MindSpore's load_checkpoint then reads it, and the file holds each name once
    appended = set(append_dict)
    kept = [(name, value) for name, value in entries[:len(entries) - len(append_dict)] if name not in appended]
    return kept + entries[len(entries) - len(append_dict):]


# ---- writing --------------------------------------------------------------------------------------------
def _ckpt_bytes(entries, crc_check):
    chunks, crc = [], 0
    for name, value in entries:
        for message in fmt.encode_entry(name, value):
            chunks.append(message)
            if crc_check:
                crc = binascii.crc32(message, crc)
    if crc_check:
        chunks.append(fmt.crc_trailer(crc))
    return chunks


def _write(path, entries, format, crc_check, enc_key, enc_mode):
    if format == "safetensors":
        chunks = [fmt.encode_safetensors(entries, crc_check)]
    else:
        chunks = _ckpt_bytes(entries, crc_check)
        if enc_key is not None:
            chunks = [fmt.encrypt(b"".join(chunks), enc_key, enc_mode)]
    _write_atomic(path, chunks)


def _wait_pending(path=None):
    with _pending_lock:
        threads = [t for p, t in _pending.items() if path is None or p == path]
    for t in threads:
        t.join()


def _target_path(name, format, where):
    if not isinstance(name, str) or not name:
        raise TypeError(f"For '{where}', the argument 'ckpt_file_name' should be a non-empty str, but got {name!r}.")
    if not name.endswith(_SUFFIX[format]):
        name += _SUFFIX[format]
    path = os.path.realpath(name)
    if os.path.isdir(path):
        raise ValueError(f"For '{where}', the checkpoint path {path} is a directory.")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False, append_dict=None,
                    enc_key=None, enc_mode="AES-GCM", choice_func=None, crc_check=False, format="ckpt", **kwargs):
    """`save_checkpoint(save_obj, ckpt_file_name, ...)`: save a Cell's parameters (named by `param.name`), a list
    of Parameters / {"name", "data"} dicts, or a dict name → value. `append_dict` adds extra entries (ints become
    Int64 scalars, floats Float32, str "str" entries). The suffix `.ckpt` (`.safetensors`) is added if missing.
    Under semi-auto parallel, `integrated_save=True` (the default) writes sliced parameters whole (every rank must
    then save); `integrated_save=False` writes this rank's slices, the input of `transform_checkpoints`."""
    _check_format(format, "save_checkpoint")
    if choice_func is not None and not callable(choice_func):
        raise TypeError(f"For 'save_checkpoint', 'choice_func' should be callable, but got {type(choice_func).__name__}.")
    if enc_key is not None:
        if format == "safetensors":
            raise ValueError("For 'save_checkpoint', encryption is not supported for the safetensors format.")
        fmt._check_key(enc_key, enc_mode, "save_checkpoint")
    path = _target_path(ckpt_file_name, format, "save_checkpoint")
    _wait_pending(path)
    entries = _append(_collect(save_obj, choice_func, integrated=bool(integrated_save)), append_dict)
    if not async_save:
        _write(path, entries, format, crc_check, enc_key, enc_mode)
        return
    # the arrays may be views of live parameters that training keeps updating: snapshot them first
    entries = [(n, v if isinstance(v, str) else v.copy()) for n, v in entries]

    def run():
        try:
            _write(path, entries, format, crc_check, enc_key, enc_mode)
        except Exception:  # a background thread cannot raise to the caller
            logger.exception("Asynchronous save of checkpoint %s failed.", path)
        finally:
            with _pending_lock:
                if _pending.get(path) is threading.current_thread():
                    del _pending[path]

    thread = threading.Thread(target=run, name=f"save_checkpoint:{os.path.basename(path)}")
    with _pending_lock:
        _pending[path] = thread
    thread.start()


# ---- reading --------------------------------------------------------------------------------------------
def _prefixes(value, arg, where):
    if value is None:
        return ()
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(p, str) and p for p in items):
        raise TypeError(f"For '{where}', '{arg}' should be a non-empty str or a list/tuple of them, but got {value!r}.")
    return tuple(items)


def _source_path(name, format, where):
    if not isinstance(name, str):
        raise TypeError(f"For '{where}', the argument 'ckpt_file_name' should be a str, but got {type(name).__name__}.")
    if not name.endswith(_SUFFIX[format]):
        raise ValueError(f"For '{where}', the checkpoint file should end with '{_SUFFIX[format]}', please input the "
                         f"correct 'ckpt_file_name', but got {name!r}.")
    path = os.path.realpath(name)
    _wait_pending(path)
    if not os.path.exists(path):
        raise ValueError(f"For '{where}', the checkpoint file: {path} does not exist, please check whether the "
                         "'ckpt_file_name' is correct.")
    kind = _not_a_file(path)
    if kind:
        # never opened: a FIFO would block and a device such as /dev/zero would never end
        raise ValueError(f"For '{where}', the checkpoint path {path} is {kind}, not a regular file.")
    return path


def _not_a_file(path):
    """'a directory', 'a FIFO (named pipe)', ... for paths that are not regular files; '' for a regular file."""
    mode = os.stat(path).st_mode
    for test, kind in ((stat.S_ISREG, ""), (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"


def _read_entries(path, format, dec_key, dec_mode, crc_check):
    with open(path, "rb") as f:
        content = f.read()
    if not content:
        raise ValueError(f"Failed to read the checkpoint file {path}: the file is empty (0 bytes), it holds no "
                         "parameter.")
    try:
        if format == "safetensors":
            return fmt.decode_safetensors(content, crc_check)
        if dec_key is not None:
            content = fmt.decrypt(content, dec_key, dec_mode)
        elif fmt.is_encrypted(content):
            raise ValueError(f"The checkpoint file {path} is encrypted: pass 'dec_key' (and 'dec_mode').")
        content, crc = fmt.split_crc(content)
        if crc_check:
            if crc is None:
                raise fmt.CorruptError("the file has no crc_num trailer to check")
            if binascii.crc32(content) != crc:
                raise ValueError(f"For 'load_checkpoint', the crc check is failed, please check whether the ckpt file "
                                 f"{path} is damaged.")
        return fmt.decode(content)
    except fmt.CorruptError as exc:
        raise _read_failed(path, str(exc)) from None
    except fmt.UnsupportedEntry as exc:
        raise ValueError(f"Cannot load the checkpoint file {path}: {exc}.") from None


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None, dec_mode="AES-GCM",
                    specify_prefix=None, choice_func=None, crc_check=False, remove_redundancy=False, format="ckpt"):
    """`load_checkpoint(ckpt_file_name, net=None, ...)` → dict name → Parameter (string entries come back as str).
    With `net`, the values are also loaded into it (see `load_param_into_net`)."""
    _check_format(format, "load_checkpoint")
    specify = _prefixes(specify_prefix, "specify_prefix", "load_checkpoint")
    filtered = _prefixes(filter_prefix, "filter_prefix", "load_checkpoint")
    if choice_func is not None and not callable(choice_func):
        raise TypeError(f"For 'load_checkpoint', 'choice_func' should be callable, but got {type(choice_func).__name__}.")
    path = _source_path(ckpt_file_name, format, "load_checkpoint")
    entries = _read_entries(path, format, dec_key, dec_mode, crc_check)
    out = {}  # a plain dict (ordered), as MindSpore returns: printing it shows {'name': Parameter (...)}
    for name, value in entries.items():
        if specify and not name.startswith(specify):
            continue
        if filtered and name.startswith(filtered):
            continue
        if choice_func is not None and not choice_func(name):
            continue
        out[name] = value if isinstance(value, str) else Parameter(value, name=name)
    if not out:
        if entries:
            raise ValueError("The loaded parameter dict is empty after filter or specify, please check whether "
                             "'filter_prefix', 'specify_prefix' or 'choice_func' are set correctly.")
        raise ValueError(f"The checkpoint file {path} holds no parameter.")
    if net is not None:
        if strict_load:
            _check_complete(net, out, path)
        load_param_into_net(net, out, strict_load, remove_redundancy)
    return out


def _check_complete(net, loaded, path):
    """strict_load with a net: refuse (before changing any weight) a checkpoint that leaves parameters of the
    net unloaded, e.g. a file cut off between two records, which its own bytes cannot reveal."""
    if not isinstance(net, Cell):
        raise TypeError(f"For 'load_checkpoint', the argument 'net' should be a Cell, but got {type(net).__name__}.")
    params = list(net.get_parameters())
    missing = [p.name for p in params if not isinstance(loaded.get(p.name, ""), (Tensor, np.ndarray))]
    if missing:
        shown = ", ".join(missing[:10]) + (f", ... ({len(missing)} in all)" if len(missing) > 10 else "")
        raise ValueError(f"For 'load_checkpoint' with strict_load=True, the checkpoint file {path} lacks "
                         f"{len(missing)} of the net's {len(params)} parameters: {shown}. The file may "
                         "be truncated or belong to another network; no parameter was changed.")


# ---- loading into a network -----------------------------------------------------------------------------
def _update_param(param, new, strict_load):
    new_shape = tuple(new.shape)
    if new_shape != param.shape:
        logger.critical("Failed to combine the net and the parameters for param %s.", param.name)
        raise RuntimeError(f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same shape "
                           f"as {param.name} in the argument 'parameter_dict'. But got its shape {param.shape} in the "
                           f"argument 'net' and shape {new_shape} in the argument 'parameter_dict'. May you need to "
                           "check whether the checkpoint you loaded is correct or the batch size and so on in the 'net' "
                           "and 'parameter_dict' are same.")
    if new.dtype is not param.dtype:
        same_kind = {new.dtype.kind, param.dtype.kind} <= {"float"} or {new.dtype.kind, param.dtype.kind} <= {"int", "uint"}
        if strict_load or not same_kind:
            raise RuntimeError(f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same type "
                               f"as {param.name} in the argument 'parameter_dict'. But got its type {param.dtype} in the "
                               f"argument 'net' and type {new.dtype} in the argument 'parameter_dict'.")
    param.set_data(new)


def _as_tensor(value, name):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray):
        return Tensor(value)
    raise TypeError(f"For 'load_param_into_net', the value of '{name}' in 'parameter_dict' should be a Parameter or "
                    f"Tensor, but got {type(value).__name__}.")


def _find_prefix(missing, parameter_dict, used):
    """A prefix p such that p + name is an unused checkpoint entry for some not-yet-loaded net parameter."""
    for name in missing:
        for key in parameter_dict:
            if key not in used and key.endswith("." + name):
                return key[:-len(name)]
    return None


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy values (matched by `param.name`) into `net`'s parameters; returns `(param_not_load, ckpt_not_load)`.

    Without `strict_load`, parameters whose names differ from the checkpoint's by a common prefix are matched, and
    float (or int) values of another width are cast."""
    if not isinstance(net, Cell):
        raise TypeError(f"For 'load_param_into_net', the argument 'net' should be a Cell, but got {type(net).__name__}.")
    if not isinstance(parameter_dict, dict):
        raise TypeError("For 'load_param_into_net', the argument 'parameter_dict' should be a dict, "
                        f"but got {type(parameter_dict).__name__}.")
    used, missing = set(), []
    params = list(net.get_parameters())
    for param in params:
        if param.name in parameter_dict and not isinstance(parameter_dict[param.name], str):
            _update_param(param, _as_tensor(parameter_dict[param.name], param.name), strict_load)
            used.add(param.name)
        else:
            missing.append(param.name)
    if missing and not strict_load:
        prefix = _find_prefix(missing, parameter_dict, used)
        if prefix is not None:
            logger.warning("Loading parameters whose checkpoint names carry the extra prefix '%s'.", prefix)
            for param in params:
                key = prefix + param.name
                if param.name in missing and key in parameter_dict and key not in used:
                    _update_param(param, _as_tensor(parameter_dict[key], key), strict_load)
                    used.add(key)
                    missing.remove(param.name)
    ckpt_not_load = [k for k in parameter_dict if k not in used]
    if missing:
        logger.warning("For 'load_param_into_net', %d parameters in the 'net' are not loaded: %s", len(missing), missing)
    return missing, ckpt_not_load


# ---- format conversion ----------------------------------------------------------------------------------
def _convert(file_path, save_path, name_map, file_name_regex, src, dst, where):
    if not isinstance(file_path, str) or not os.path.exists(file_path):
        raise ValueError(f"For '{where}', the 'file_path' {file_path!r} does not exist.")
    if name_map is not None and not isinstance(name_map, dict):
        raise TypeError(f"For '{where}', 'name_map' should be a dict, but got {type(name_map).__name__}.")
    if os.path.isdir(file_path):
        sources = sorted(os.path.join(file_path, f) for f in os.listdir(file_path) if f.endswith(_SUFFIX[src])
                         and (file_name_regex is None or re.search(file_name_regex, f)))
    else:
        sources = [file_path]
    written = []
    for source in sources:
        entries = _read_entries(_source_path(source, src, where), src, None, "AES-GCM", False)
        renamed = [((name_map or {}).get(n, n), v) for n, v in entries.items()]
        out_dir = save_path or os.path.dirname(os.path.realpath(source))
        base = os.path.basename(source)[:-len(_SUFFIX[src])] + _SUFFIX[dst]
        target = _target_path(os.path.join(out_dir, base), dst, where)
        _write(target, renamed, dst, False, None, "AES-GCM")
        written.append(target)
    return written


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """Convert a .ckpt file (or every .ckpt in a directory) to .safetensors; returns the written paths."""
    return _convert(file_path, save_path, name_map, file_name_regex, "ckpt", "safetensors", "ckpt_to_safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """Convert a .safetensors file (or every one in a directory) to .ckpt; returns the written paths."""
    return _convert(file_path, save_path, name_map, file_name_regex, "safetensors", "ckpt", "safetensors_to_ckpt")


def _save_graph(network, file_name):
    """MindSpore's private `_save_graph(network, file_name)`: write a description of the network's graph.
    There is no compiled graph proto here, so the file holds the cell structure as text (readable, not a
    MindSpore graph file); written to a temporary name, then renamed."""
    if not isinstance(file_name, str):
        raise TypeError(f"For '_save_graph', 'file_name' must be a str, but got {type(file_name).__name__}.")
    folder = os.path.dirname(os.path.abspath(file_name))
    os.makedirs(folder, exist_ok=True)
    tmp = file_name + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(repr(network))
    os.replace(tmp, file_name)
    os.chmod(file_name, 0o400)


__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "ckpt_to_safetensors", "safetensors_to_ckpt"]


# MindSpore's `mindspore.train.serialization` module also holds MindIR export/load and the distributed-checkpoint
# helpers; here they live in openspore.serialization and openspore.train, which import this module, so they are
# looked up on first use (`from mindspore.train.serialization import export` goes through this hook).
_ELSEWHERE = {
    "export": "openspore.serialization", "load": "openspore.serialization",
    "build_searched_strategy": "openspore.train", "merge_sliced_parameter": "openspore.train",
    "load_distributed_checkpoint": "openspore.train", "async_ckpt_thread_status": "openspore.train",
    "restore_group_info_list": "openspore.train", "get_ckpt_path_with_strategy": "openspore.train",
    "load_checkpoint_async": "openspore.train",
    # names MindSpore's module imports and so also answers
    "load_mindir": "openspore", "sync_pipeline_shared_parameters": "openspore.parallel",
    "get_group_size": "openspore.communication", "get_rank": "openspore.communication",
    "initializer": "openspore.common.initializer",
}


def __getattr__(name):
    module = _ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'openspore.train.serialization' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(module), name)

