"""`set_fl_context(**kwargs)` / `get_fl_context(key)`: the federated-learning keys of MindSpore 1.3–1.7, with their
defaults, checked on the way in; or a YAML file of the same keys (`load_fl_config`).

The values live in one `FLContext` object so that a server process can be handed a copy (`fl_context()`), and so
that tests can build several servers with different settings in one process.

>>> from openspore.federated import set_fl_context, get_fl_context
>>> set_fl_context(start_fl_job_threshold=4, encrypt_type="PW_ENCRYPT")
>>> get_fl_context("start_fl_job_threshold"), get_fl_context("update_model_ratio")
(4, 1.0)
>>> reset_fl_context()
"""
import copy
import math

ENCRYPT_TYPES = ("NOT_ENCRYPT", "DP_ENCRYPT", "PW_ENCRYPT", "STABLE_PW_ENCRYPT", "SIGNDS")
UPLOAD_COMPRESS = ("NO_COMPRESS", "DIFF_SPARSE_QUANT")
DOWNLOAD_COMPRESS = ("NO_COMPRESS", "QUANT")
AGGREGATIONS = ("FedAvg", "FedAdam", "FedProx")

# key: (type, default, check or None, what the check expects)
_KEYS = {
    "enable_fl": (bool, False, None, ""),
    "server_mode": (str, "FEDERATED_LEARNING", lambda v: v in ("FEDERATED_LEARNING", "HYBRID_TRAINING"),
                    "'FEDERATED_LEARNING' or 'HYBRID_TRAINING'"),
    "ms_role": (str, "MS_SERVER", lambda v: v in ("MS_SERVER", "MS_WORKER", "MS_SCHED"),
                "'MS_SERVER', 'MS_WORKER' or 'MS_SCHED'"),
    "worker_num": (int, 0, lambda v: v >= 0, ">= 0"),
    "server_num": (int, 0, lambda v: v >= 0, ">= 0"),
    "scheduler_ip": (str, "0.0.0.0", None, ""),
    "scheduler_port": (int, 6667, lambda v: 0 <= v < 65536, "a port number"),
    "fl_server_port": (int, 6668, lambda v: 0 <= v < 65536, "a port number (0: any free port)"),
    "fl_server_ip": (str, "127.0.0.1", None, ""),
    "start_fl_job_threshold": (int, 1, lambda v: v >= 1, ">= 1"),
    "start_fl_job_time_window": (int, 3000, lambda v: v > 0, "> 0 (milliseconds)"),
    "update_model_ratio": (float, 1.0, lambda v: 0 < v <= 1, "in (0, 1]"),
    "update_model_time_window": (int, 3000, lambda v: v > 0, "> 0 (milliseconds)"),
    "share_secrets_ratio": (float, 1.0, lambda v: 0 < v <= 1, "in (0, 1]"),
    "cipher_time_window": (int, 300000, lambda v: v > 0, "> 0 (milliseconds)"),
    "reconstruct_secrets_threshold": (int, 0, lambda v: v >= 0, ">= 0"),
    "fl_name": (str, "", None, ""),
    "fl_iteration_num": (int, 20, lambda v: v >= 1, ">= 1"),
    "client_epoch_num": (int, 25, lambda v: v >= 1, ">= 1"),
    "client_batch_size": (int, 32, lambda v: v >= 1, ">= 1"),
    "client_learning_rate": (float, 0.001, lambda v: v > 0, "> 0"),
    "worker_step_num_per_iteration": (int, 65, lambda v: v >= 1, ">= 1"),
    "dp_eps": (float, 50.0, lambda v: v > 0, "> 0"),
    "dp_delta": (float, 0.01, lambda v: 0 < v < 1, "in (0, 1)"),
    "dp_norm_clip": (float, 1.0, lambda v: v > 0, "> 0"),
    "encrypt_type": (str, "NOT_ENCRYPT", lambda v: v in ENCRYPT_TYPES, " or ".join(ENCRYPT_TYPES)),
    "config_file_path": (str, "", None, ""),
    "scheduler_manage_port": (int, 11202, lambda v: 0 <= v < 65536, "a port number"),
    "enable_ssl": (bool, False, None, ""),
    "client_password": (str, "", None, ""),
    "server_password": (str, "", None, ""),
    "server_cert_path": (str, "", None, ""),
    "server_key_path": (str, "", None, ""),
    "sign_k": (float, 0.01, lambda v: 0 < v <= 0.25, "in (0, 0.25]"),
    "sign_eps": (float, 100.0, lambda v: 0 < v <= 100, "in (0, 100]"),
    "sign_thr_ratio": (float, 0.6, lambda v: 0.5 <= v <= 1, "in [0.5, 1]"),
    "sign_global_lr": (float, 1.0, lambda v: v > 0, "> 0"),
    "sign_dim_out": (int, 0, lambda v: 0 <= v <= 50, "in [0, 50]"),
    "pki_verify": (bool, False, None, ""),
    "replay_attack_time_diff": (int, 600000, lambda v: v > 0, "> 0 (milliseconds)"),
    "http_url_prefix": (str, "", lambda v: v == "" or (v.startswith("/") and not v.endswith("/")),
                        "'' or a path like '/fl' (leading slash, none at the end)"),
    "global_iteration_time_window": (int, 3600000, lambda v: v > 0, "> 0 (milliseconds)"),
    "checkpoint_dir": (str, "", None, ""),
    "upload_compress_type": (str, "NO_COMPRESS", lambda v: v in UPLOAD_COMPRESS, " or ".join(UPLOAD_COMPRESS)),
    "upload_sparse_rate": (float, 0.4, lambda v: 0 < v <= 1, "in (0, 1]"),
    "download_compress_type": (str, "NO_COMPRESS", lambda v: v in DOWNLOAD_COMPRESS, " or ".join(DOWNLOAD_COMPRESS)),
    # later federated repo / openspore additions
    "metrics_file": (str, "metrics.json", None, ""),
    "aggregation_type": (str, "FedAvg", lambda v: v in AGGREGATIONS, " or ".join(AGGREGATIONS)),
    "fedadam_lr": (float, 0.01, lambda v: v > 0, "> 0"),
    "fedadam_beta1": (float, 0.9, lambda v: 0 <= v < 1, "in [0, 1)"),
    "fedadam_beta2": (float, 0.99, lambda v: 0 <= v < 1, "in [0, 1)"),
    "fedadam_tau": (float, 1e-3, lambda v: v > 0, "> 0"),
    "fedprox_mu": (float, 0.01, lambda v: v >= 0, ">= 0"),
    "max_request_bytes": (int, 64 << 20, lambda v: v > 0, "> 0"),
    "job_secret": (str, "", None, ""),
}


class FLContext:
    """The federated keys as attributes (`ctx.start_fl_job_threshold`) plus the thresholds derived from them."""

    def __init__(self, **kwargs):
        for key, (_, default, _, _) in _KEYS.items():
            setattr(self, key, default)
        self.update(**kwargs)

    def update(self, **kwargs):
        for key, value in kwargs.items():
            setattr(self, key, _checked(key, value))
        return self

    def as_dict(self):
        return {k: getattr(self, k) for k in _KEYS}

    def copy(self):
        return copy.copy(self)

    @property
    def update_model_threshold(self):
        """ceil(start_fl_job_threshold × update_model_ratio): updateModel requests needed per iteration."""
        return max(1, math.ceil(self.start_fl_job_threshold * self.update_model_ratio - 1e-9))

    @property
    def exchange_keys_threshold(self):
        share = math.ceil(self.start_fl_job_threshold * self.share_secrets_ratio - 1e-9)
        return max(share, self.update_model_threshold)

    @property
    def reconstruct_threshold(self):
        """Shares needed to rebuild one secret (t of Shamir's t-of-n): `reconstruct_secrets_threshold`, or a
        majority of the key holders when it is 0; an iteration needs t + 1 survivors (each one's own mask seed is
        rebuilt from the shares the *others* hold)."""
        t = self.reconstruct_secrets_threshold or (self.exchange_keys_threshold // 2 + 1)
        return max(1, min(t, self.exchange_keys_threshold - 1))


def _checked(key, value):
    if key not in _KEYS:
        raise ValueError(f"set_fl_context: unknown key {key!r}; the keys are: {', '.join(sorted(_KEYS))}.")
    typ, _, check, expect = _KEYS[key]
    if typ is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if typ is bool and isinstance(value, str) and value.lower() in ("true", "false"):
        value = value.lower() == "true"
    if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
        raise TypeError(f"set_fl_context: {key!r} must be {typ.__name__}, but got {type(value).__name__} {value!r}.")
    if check is not None and not check(value):
        raise ValueError(f"set_fl_context: {key!r} must be {expect}, but got {value!r}.")
    return value


_GLOBAL = FLContext()


def set_fl_context(**kwargs):
    """Set federated-learning keys (MindSpore's names); an unknown key or a bad value raises, naming it."""
    _GLOBAL.update(**kwargs)


def get_fl_context(attr_key):
    if attr_key not in _KEYS:
        raise ValueError(f"get_fl_context: unknown key {attr_key!r}.")
    return getattr(_GLOBAL, attr_key)


def reset_fl_context():
    global _GLOBAL
    _GLOBAL = FLContext()


def fl_context():
    """A copy of the current process-wide context (what a server started now would use)."""
    return _GLOBAL.copy()


def load_fl_config(path):
    """An FLContext from a YAML file of the same keys (top level, or nested one level under any section)."""
    import yaml
    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    if not isinstance(data, dict):
        raise ValueError(f"load_fl_config: {path} must hold a mapping of set_fl_context keys.")
    flat = {}
    for k, v in data.items():
        if isinstance(v, dict) and k not in _KEYS:
            flat.update(v)
        else:
            flat[k] = v
    return FLContext(**flat)
