"""Parameter-server context (`mindspore.set_ps_context`, `get_ps_context`, `context.reset_ps_context`).

The keys are MindSpore 2.10's: settable `enable_ps`, `config_file_path`, `enable_ssl`, `client_password`,
`server_password`; readable `enable_ps`, `config_file_path`, `enable_ssl` and the role keys a parameter-server
job takes from its launcher (`ms_role`, `worker_num`, `server_num`, `scheduler_ip`, `scheduler_port`). The
passwords can be set, never read back. `reset_ps_context()` turns `enable_ps` off again, the rest stays, as in
MindSpore. openspore trains data-parallel through torch.distributed and has no parameter-server runtime, so
`enable_ps=True` is recorded here and `Model` runs as without it.

>>> import openspore as ms
>>> ms.set_ps_context(enable_ssl=True, config_file_path="/tmp/ps.json")
>>> ms.get_ps_context("enable_ssl"), ms.get_ps_context("config_file_path")
(True, '/tmp/ps.json')
>>> ms.get_ps_context("ms_role")
'MS_NOT_PS'
>>> ms.set_ps_context(enable_ssl=False, config_file_path="")
"""
__all__ = ["set_ps_context", "get_ps_context", "reset_ps_context"]

_values = {"enable_ps": False, "config_file_path": "", "enable_ssl": False, "ms_role": "MS_NOT_PS",
           "worker_num": 0, "server_num": 0, "scheduler_ip": "127.0.0.1", "scheduler_port": 6667}
_secrets = {"client_password": "", "server_password": ""}
_SETTABLE = {"enable_ps": bool, "config_file_path": str, "enable_ssl": bool, "client_password": str,
             "server_password": str}


def set_ps_context(**kwargs):
    """Set parameter-server keys, e.g. `set_ps_context(enable_ps=True)`; an unknown key raises ValueError."""
    checked = {}
    for key, value in kwargs.items():
        if key not in _SETTABLE:
            raise ValueError(f"Set PS context keyword {key} is not recognized!")
        kind = _SETTABLE[key]
        if kind is str and not isinstance(value, str):
            raise TypeError(f"For 'set_ps_context', '{key}' must be a str, but got {type(value).__name__}.")
        checked[key] = bool(value) if kind is bool else value
    for key, value in checked.items():
        (_secrets if key in _secrets else _values)[key] = value


def get_ps_context(attr_key):
    """The value of a readable parameter-server key; others raise ValueError."""
    if attr_key not in _values:
        raise ValueError(f"Get PS context keyword {attr_key} is not recognized!")
    return _values[attr_key]


def reset_ps_context():
    """Turn the parameter-server mode off (`enable_ps=False`)."""
    _values["enable_ps"] = False
