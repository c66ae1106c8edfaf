"""`CheckpointConfig` and `ModelCheckpoint`: save checkpoints while training (facts §1.14).

Files are `{prefix}-{epoch}_{step_in_epoch}.ckpt` in `directory` (default: the working directory). If
checkpoints with the same prefix are already there, this run uses `{prefix}_{n}` so nothing is overwritten.
At most `keep_checkpoint_max` files of the run are kept (the oldest is removed first). Writes go through
`save_checkpoint` (temp file + rename), so an interrupted save never leaves a broken file. The saved object
is `config.saved_network` or the train network, so optimizer state (moments, global_step) is included.

>>> from openspore.train import CheckpointConfig
>>> CheckpointConfig(save_checkpoint_steps=10, keep_checkpoint_max=3).get_checkpoint_policy()['keep_checkpoint_max']
3
"""
import os
import re
import time
from collections import deque

from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...nn.cell import Cell
from ..serialization import save_checkpoint
from ._callback import Callback

_APPEND_KEYS = ("epoch_num", "step_num")


def _optional_count(arg, value, allow_zero=True):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For 'CheckpointConfig', the argument '{arg}' must be an int or None, but got "
                        f"{type(value).__name__} {value!r}.")
    if value < (0 if allow_zero else 1):
        raise ValueError(f"For 'CheckpointConfig', the argument '{arg}' must be a non-negative int or None, "
                         f"but got {value!r}.")
    return value


class CheckpointConfig:
    """`CheckpointConfig(save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
    keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False, saved_network=None,
    append_info=None, enc_key=None, enc_mode='AES-GCM', exception_save=False, crc_check=False,
    remove_redundancy=False, format='ckpt', **kwargs)`.

    Steps take precedence over seconds, and `keep_checkpoint_max` over `keep_checkpoint_per_n_minutes`.
    `append_info` is a list of 'epoch_num' / 'step_num' and at most one dict of extra values to store.
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False, saved_network=None,
                 append_info=None, enc_key=None, enc_mode="AES-GCM", exception_save=False, crc_check=False,
                 remove_redundancy=False, format="ckpt", **kwargs):
        steps = _optional_count("save_checkpoint_steps", save_checkpoint_steps)
        seconds = _optional_count("save_checkpoint_seconds", save_checkpoint_seconds)
        keep_max = _optional_count("keep_checkpoint_max", keep_checkpoint_max)
        per_n = keep_checkpoint_per_n_minutes
        if per_n is not None and (isinstance(per_n, bool) or not isinstance(per_n, (int, float))):
            raise TypeError("For 'CheckpointConfig', the argument 'keep_checkpoint_per_n_minutes' must be a number "
                            f"or None, but got {type(per_n).__name__} {per_n!r}.")
        if per_n is not None and per_n < 0:
            raise ValueError("For 'CheckpointConfig', the argument 'keep_checkpoint_per_n_minutes' must be a "
                             f"non-negative number or None, but got {per_n!r}.")
        if not steps and not seconds and not keep_max and not per_n:
            raise ValueError("The input arguments 'save_checkpoint_steps', 'save_checkpoint_seconds', "
                             "'keep_checkpoint_max' and 'keep_checkpoint_per_n_minutes' can't be all None or 0.")
        if steps:
            seconds = None
        if keep_max:
            per_n = None
        elif not per_n:
            keep_max = 1  # nothing said how many to keep: keep the newest one
        if saved_network is not None and not isinstance(saved_network, Cell):
            raise TypeError("For 'CheckpointConfig', the argument 'saved_network' must be a Cell or None, "
                            f"but got {type(saved_network).__name__}.")
        for arg, value in (("integrated_save", integrated_save), ("async_save", async_save),
                           ("exception_save", exception_save), ("crc_check", crc_check),
                           ("remove_redundancy", remove_redundancy)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'CheckpointConfig', the argument '{arg}' must be a bool, "
                                f"but got {type(value).__name__}.")
        if format not in ("ckpt", "safetensors"):
            raise ValueError(f"For 'CheckpointConfig', the argument 'format' must be 'ckpt' or 'safetensors', "
                             f"but got {format!r}.")
        self._save_checkpoint_steps = steps
        self._save_checkpoint_seconds = seconds
        self._keep_checkpoint_max = keep_max
        self._keep_checkpoint_per_n_minutes = per_n
        self._integrated_save = integrated_save
        self._async_save = async_save
        self._saved_network = saved_network
        self._append_info = self._check_append_info(append_info)
        self._enc_key = enc_key
        self._enc_mode = enc_mode
        self._exception_save = exception_save
        self._crc_check = crc_check
        self._remove_redundancy = remove_redundancy
        self._format = format
        self._kwargs = dict(kwargs)

    @staticmethod
    def _check_append_info(append_info):
        if append_info is None or append_info == []:
            return None
        if not isinstance(append_info, list):
            raise TypeError("For 'CheckpointConfig', the argument 'append_info' must be a list, "
                            f"but got {type(append_info).__name__}.")
        names, extra = [], {}
        for item in append_info:
            if isinstance(item, str) and item in _APPEND_KEYS:
                names.append(item)
            elif isinstance(item, dict) and not extra:
                for key, value in item.items():
                    if not isinstance(key, str) or not isinstance(value, (int, float, bool, str, Tensor)):
                        raise TypeError("For 'CheckpointConfig', the dict in 'append_info' must map str to int, "
                                        f"float, bool, str or Tensor, but got {key!r}: {type(value).__name__}.")
                extra = dict(item)
            else:
                raise ValueError("For 'CheckpointConfig', 'append_info' may hold 'epoch_num', 'step_num' and one "
                                 f"dict, but got {item!r}.")
        return names, extra

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps)
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes)
    integrated_save = property(lambda self: self._integrated_save)
    async_save = property(lambda self: self._async_save)
    saved_network = property(lambda self: self._saved_network)
    enc_key = property(lambda self: self._enc_key)
    enc_mode = property(lambda self: self._enc_mode)
    exception_save = property(lambda self: self._exception_save)
    crc_check = property(lambda self: self._crc_check)
    remove_redundancy = property(lambda self: self._remove_redundancy)
    format = property(lambda self: self._format)

    @property
    def append_dict(self):
        """The extra entries named in `append_info` (values of epoch_num/step_num are filled at save time)."""
        if self._append_info is None:
            return None
        names, extra = self._append_info
        out = {name: 0 for name in names}
        out.update(extra)
        return out

    def get_checkpoint_policy(self):
        """The saving/keeping policy as a dict."""
        return {"save_checkpoint_steps": self._save_checkpoint_steps,
                "save_checkpoint_seconds": self._save_checkpoint_seconds,
                "keep_checkpoint_max": self._keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self._keep_checkpoint_per_n_minutes,
                "saved_network": self._saved_network}


def unused_prefix(directory, prefix):
    """`prefix`, or `prefix_{n}` with n one past the highest suffix already used by .ckpt files there."""
    pattern = re.compile(re.escape(prefix) + r"(?:_(\d+))?-.*\.(?:ckpt|safetensors)$")
    suffix = 0
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return prefix
    for name in names:
        match = pattern.fullmatch(name)
        if match:
            suffix = max(suffix, int(match.group(1)) + 1 if match.group(1) else 1)
    return f"{prefix}_{suffix}" if suffix else prefix


def _chg_ckpt_file_name_if_same_exist(directory, prefix, exception=False):
    """MindSpore's private name for `unused_prefix` (its tests import it from this module)."""
    del exception  # the flag for exception-time checkpoints does not change the naming here
    return unused_prefix(directory, prefix)


class ModelCheckpoint(Callback):
    """`ModelCheckpoint(prefix='CKP', directory=None, config=None)`: save checkpoints during training."""

    def __init__(self, prefix="CKP", directory=None, config=None):
        super().__init__()
        if not isinstance(prefix, str) or not prefix or "/" in prefix or os.sep in prefix:
            raise ValueError("For 'ModelCheckpoint', the argument 'prefix' must be a non-empty str without path "
                             f"separators, but got {prefix!r}.")
        if directory is not None and not isinstance(directory, str):
            raise TypeError(f"For 'ModelCheckpoint', the argument 'directory' must be a str or None, "
                            f"but got {type(directory).__name__}.")
        if config is None:
            config = CheckpointConfig()
        elif not isinstance(config, CheckpointConfig):
            raise TypeError("For 'ModelCheckpoint', the argument 'config' must be a CheckpointConfig, "
                            f"but got {type(config).__name__}.")
        self._directory = os.path.realpath(directory if directory is not None else os.getcwd())
        os.makedirs(self._directory, exist_ok=True)
        self._base_prefix = prefix
        self._prefix = prefix
        self._config = config
        self._latest_ckpt_file_name = ""
        self._last_triggered_step = 0
        self._last_time = time.time()
        self._kept = deque()  # (path, save time) of this run's files, oldest first
        self._last_kept_minute_time = None
        self._prefix_chosen = False

    @property
    def latest_ckpt_file_name(self):
        """Path of the newest checkpoint written by this callback ('' before the first save)."""
        return self._latest_ckpt_file_name

    def on_train_begin(self, run_context):
        if not self._prefix_chosen:
            self._prefix = unused_prefix(self._directory, self._base_prefix)
            self._prefix_chosen = True
        self._last_time = time.time()
        # _last_triggered_step carries over to a later train() with the same callback, whose steps count from 1
        # again: MindSpore 2.10 then saves only at the end of that run (and not at all when it ends on the step
        # last saved), which is how the fault-recovery tutorial's resumed run writes one checkpoint

    def on_train_step_end(self, run_context):
        cb_params = run_context.original_args()
        if self._should_save(cb_params.cur_step_num):
            self._save(cb_params)

    def on_train_end(self, run_context):
        cb_params = run_context.original_args()
        if cb_params.get("cur_step_num", 0) != self._last_triggered_step:
            self._save(cb_params)

    def _should_save(self, step):
        cfg = self._config
        if cfg.save_checkpoint_steps:
            return step - self._last_triggered_step >= cfg.save_checkpoint_steps
        if cfg.save_checkpoint_seconds:
            return time.time() - self._last_time >= cfg.save_checkpoint_seconds
        return False

    def _save(self, cb_params):
        cfg = self._config
        step = cb_params.cur_step_num
        step_in_epoch = (step - 1) % cb_params.batch_num + 1
        suffix = ".safetensors" if cfg.format == "safetensors" else ".ckpt"
        path = os.path.join(self._directory, f"{self._prefix}-{cb_params.cur_epoch_num}_{step_in_epoch}{suffix}")
        network = cfg.saved_network if cfg.saved_network is not None else cb_params.train_network
        append = self._append_values(cfg, cb_params)
        now = time.time()
        self._make_room(now)
        save_checkpoint(network, path, integrated_save=cfg.integrated_save, async_save=cfg.async_save,
                        append_dict=append, enc_key=cfg.enc_key, enc_mode=cfg.enc_mode, crc_check=cfg.crc_check,
                        format=cfg.format)
        self._kept = deque((p, t) for p, t in self._kept if p != path)
        self._kept.append((path, now))
        self._latest_ckpt_file_name = path
        self._last_triggered_step = step
        self._last_time = now
        cb_params.last_save_ckpt_step = step
        cb_params.latest_ckpt_file = path

    @staticmethod
    def _append_values(cfg, cb_params):
        append = cfg.append_dict
        if append is None:
            return None
        if "epoch_num" in append:
            append["epoch_num"] = int(cb_params.cur_epoch_num)
        if "step_num" in append:
            append["step_num"] = int(cb_params.cur_step_num)
        return {k: (v if not isinstance(v, Parameter) else Tensor(v)) for k, v in append.items()}

    def _make_room(self, now):
        """Delete old files of this run before writing a new one, per the keep policy."""
        cfg = self._config
        if cfg.keep_checkpoint_max:
            while len(self._kept) >= cfg.keep_checkpoint_max:
                self._remove(self._kept.popleft()[0])
        elif cfg.keep_checkpoint_per_n_minutes and self._kept:
            # keep one file per n minutes: the previous file survives only if it opens a new n-minute window
            path, saved = self._kept[-1]
            window = cfg.keep_checkpoint_per_n_minutes * 60.0
            if self._last_kept_minute_time is not None and saved - self._last_kept_minute_time < window:
                self._kept.pop()
                self._remove(path)
            else:
                self._last_kept_minute_time = saved

    @staticmethod
    def _remove(path):
        try:
            os.chmod(path, 0o600)
            os.remove(path)
        except FileNotFoundError:
            pass
