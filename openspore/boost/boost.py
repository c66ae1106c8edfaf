"""`mindspore.boost.AutoBoost`: the boost configuration (one per process) and the network processing it implies.

The level picks the algorithms ("O0": none; "O1": LessBN and gradient freezing; "O2": those and AdaSum);
`boost_config_dict["boost"]["mode"]` then keeps them ("auto"), overrides them by the given keys ("manual"), or
switches all on or off ("enable_all", "disable_all"). As in MindSpore, the first AutoBoost made in a process is
the configuration: later `AutoBoost(...)` calls return it unchanged (the train cells read it with `AutoBoost()`).

>>> from openspore.boost import AutoBoost
>>> AutoBoost.reset()      # forget an earlier configuration (openspore addition, for tests and notebooks)
>>> AutoBoost("O1", {"boost": {"mode": "manual", "grad_freeze": False}}).boost_config["less_bn"]
True
>>> AutoBoost("O0") is AutoBoost()
True
>>> AutoBoost.reset()
"""
import json

from .base import OptimizerProcess, ParameterProcess
from .grad_freeze import GradientFreeze
from .less_batch_normalization import LessBN

__all__ = ["AutoBoost"]

_FUNCTIONS = ("less_bn", "grad_freeze", "adasum", "grad_accumulation", "dim_reduce", "loss_scale_group")
_LEVELS = {"O0": (), "O1": ("less_bn", "grad_freeze"), "O2": ("less_bn", "grad_freeze", "adasum")}
_MODES = ["auto", "manual", "enable_all", "disable_all"]
# (section, key, attribute, default) of the hyper-parameters, as the documented config dict lays them out
_SETTINGS = (("less_bn", "fn_flag", "_fn_flag", True), ("less_bn", "gc_flag", "_gc_flag", True),
             ("grad_freeze", "param_groups", "_param_groups", 10), ("grad_freeze", "freeze_type", "_freeze_type", 1),
             ("grad_freeze", "freeze_p", "_freeze_p", 0.7), ("grad_freeze", "total_steps", "_total_steps", 65536),
             ("common", "gradient_split_groups", "gradient_groups", None), ("common", "device_number", "device_number", 8),
             ("grad_accumulation", "grad_accumulation_step", "grad_accumulation_step", 1),
             ("dim_reduce", "rho", "rho", 0.55), ("dim_reduce", "gamma", "gamma", 0.9),
             ("dim_reduce", "alpha", "alpha", 0.001), ("dim_reduce", "sigma", "sigma", 0.4),
             ("dim_reduce", "n_components", "n_components", 32), ("dim_reduce", "pca_mat_path", "pca_mat_path", None),
             ("dim_reduce", "weight_load_dir", "weight_load_dir", None), ("dim_reduce", "timeout", "timeout", 1800))


class AutoBoost:
    """`AutoBoost(level='O0', boost_config_dict='')`: `boost_config_dict` is a dict or the path of a JSON file."""

    _instance = None

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __init__(self, level="O0", boost_config_dict=""):
        if self.__dict__.get("_configured"):
            return
        if level not in _LEVELS:
            raise ValueError(f"For 'AutoBoost', the 'level' must be one of {list(_LEVELS)}, but got {level!r}.")
        if isinstance(boost_config_dict, str):
            if boost_config_dict:
                with open(boost_config_dict, encoding="utf-8") as fp:
                    boost_config_dict = json.load(fp)
            else:
                boost_config_dict = {}
        if not isinstance(boost_config_dict, dict):
            raise TypeError("For 'AutoBoost', the 'boost_config_dict' must be a dict or a JSON file path, "
                            f"but got {type(boost_config_dict).__name__}.")
        self.level = level
        self.boost_config_dict = boost_config_dict
        for section, key, attr, default in _SETTINGS:
            setattr(self, attr, boost_config_dict.get(section, {}).get(key, default))
        self.local_pca_mat_path = None
        self.boost_config = self._functions(level, boost_config_dict.get("boost", {}))
        self._param_processer = ParameterProcess()
        self._configured = True

    @classmethod
    def reset(cls):
        """Drop the process's configuration, so that the next `AutoBoost(...)` configures afresh."""
        cls._instance = None

    @staticmethod
    def _functions(level, boost):
        mode = boost.get("mode", "auto")
        if mode not in _MODES:
            raise ValueError(f"The boost mode must be in {_MODES}, but got {mode}")
        if mode == "enable_all":
            return dict.fromkeys(_FUNCTIONS, True)
        if mode == "disable_all":
            return dict.fromkeys(_FUNCTIONS, False)
        config = {name: name in _LEVELS[level] for name in _FUNCTIONS}
        if mode == "manual":
            for name in _FUNCTIONS:
                if name in boost:
                    config[name] = bool(boost[name])
        return config

    def network_auto_process_train(self, network, optimizer):
        """(network, optimizer) with the configured algorithms applied: dimension reduction alone when set;
        otherwise LessBN (with grad-centralization groups in the optimizer), then gradient freezing."""
        config = self.boost_config
        if config["dim_reduce"]:
            raise NotImplementedError("AutoBoost: the 'dim_reduce' algorithm (mindspore.boost.DimReduce) is not "
                                      "implemented in openspore; turn it off in boost_config_dict.")
        if config["less_bn"]:
            network = LessBN(network, fn_flag=self._fn_flag)
            process = OptimizerProcess(optimizer)
            if self._gc_flag:
                process.add_grad_centralization(network)
            optimizer = process.generate_new_optimizer()
        if config["grad_freeze"]:
            freeze = GradientFreeze(self._param_groups, self._freeze_type, self._freeze_p, self._total_steps)
            network, optimizer = freeze.freeze_generate(network, optimizer)
        if self.gradient_groups is not None or config["adasum"]:
            params = [p for p in getattr(optimizer, "parameters", ())]
            if params:
                self._param_processer.assign_parameter_group(params, self.gradient_groups)
        return network, optimizer

    def network_auto_process_eval(self, network):
        """The inference network: with LessBN configured, the same head replacement as in training."""
        if self.boost_config["less_bn"]:
            network = LessBN(network, fn_flag=self._fn_flag)
        return network
