"""`FlopsUtilizationCollector(data_size, computility=1, full_flops=True, enable_ma_collector=False)`: prints the
model-FLOPs and hardware-FLOPs utilisation (MFU / HFU) of each training or evaluation step.

The FLOPs of one step are counted once, on the graph the network compiled to (`openspore.flops_collection`:
matrix products and convolutions, forward and backward), and printed at the end of the first step:
`Full model flops is 6400.0, Full hardware flops is 6400.0, Shard model flops is 6400.0, Shard hardware flops is
6400.0.` Then every step but the last of each epoch prints `Train per step time: 1.317 ms mfu:48.59% hfu:48.59%`
with mfu = flops / (step seconds · computility), floored to two decimals; `computility` is the peak FLOP/s of one
device. Only GRAPH_MODE has a compiled graph: in PyNative the first step raises ValueError, as in MindSpore.
`enable_ma_collector` also writes the figures for ModelArts into `$MA_LOG_DIR` (flops_rank_0.txt,
time_step_rank_0.txt); with it and computility=1 nothing is printed.
"""
import math
import os
import time

from ... import context
from ...runtime.flops import graph_flops, network_graph
from ._callback import Callback

__all__ = ["FlopsUtilizationCollector"]


def _floored_percent(label, value):
    return f"{label}{math.floor(value * 10 ** 4) / 100:.2f}%"


class FlopsUtilizationCollector(Callback):
    """See the module text."""

    def __init__(self, data_size, computility=1, full_flops=True, enable_ma_collector=False):
        super().__init__()
        if isinstance(data_size, bool) or not isinstance(data_size, int):
            raise TypeError(f"For 'FlopsUtilizationCollector', 'data_size' must be an int, got {type(data_size)}.")
        if data_size <= 0:
            raise ValueError(f"The 'data_size' must be int and must > 0, but got '{data_size}' with type 'int'.")
        if isinstance(computility, bool) or not isinstance(computility, (int, float)) or computility <= 0:
            raise TypeError(f"For 'FlopsUtilizationCollector', 'computility' must be a positive number, got "
                            f"{computility!r}.")
        for name, value in (("full_flops", full_flops), ("enable_ma_collector", enable_ma_collector)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'FlopsUtilizationCollector', '{name}' must be a bool, got {type(value).__name__}.")
        self.data_size, self.computility = data_size, computility
        self.full_flops, self.ma = full_flops, enable_ma_collector
        self.verbose = not (computility == 1 and enable_ma_collector)
        self.full_model_flops = self.full_hardware_flops = 0.0
        self.shard_model_flops = self.shard_hardware_flops = 0.0
        self.mfu_calculated = False
        self._step_start = time.perf_counter()

    def on_train_step_begin(self, run_context):
        self._step_start = time.perf_counter()

    on_eval_step_begin = on_train_step_begin

    def on_train_step_end(self, run_context):
        self._step_end(run_context, "train")

    def on_eval_step_end(self, run_context):
        self._step_end(run_context, "eval")

    def _count(self, network):
        graph = network_graph(network) if context.get_context("mode") == context.GRAPH_MODE else None
        if graph is None:
            raise ValueError("FlopsUtilizationCollector now only support graph mode.")
        flops, dynamic = graph_flops(graph)
        if dynamic:
            raise ValueError("FlopsUtilizationCollector now do not support dynamic shape.")
        self.full_model_flops = self.full_hardware_flops = flops
        self.shard_model_flops = self.shard_hardware_flops = flops

    def _step_end(self, run_context, mode):
        step_ms = (time.perf_counter() - self._step_start) * 1000.0
        cb_params = run_context.original_args()
        if not self.mfu_calculated:
            self._count(cb_params.train_network if mode == "train" else cb_params.get("eval_network"))
            self.mfu_calculated = True
            if self.ma:
                self._write_ma("flops_rank_0.txt", "w",
                               f'flops{{type="model_flops", rank_id="0"}} {self.shard_model_flops} '
                               f'{int(time.time() * 1000)}\n'
                               f'flops{{type="hardware_flops", rank_id="0"}} {self.shard_hardware_flops} '
                               f'{int(time.time() * 1000)}\n')
            if self.verbose:
                head = (f"Full model flops is {self.full_model_flops}, Full hardware flops is "
                        f"{self.full_hardware_flops}, ") if self.full_flops else ""
                print(f"{head}Shard model flops is {self.shard_model_flops}, Shard hardware flops is "
                      f"{self.shard_hardware_flops}.", flush=True)
        if cb_params.get("dataset_sink_mode") and cb_params.get("sink_size", -1) > 0:
            step_ms /= cb_params.get("sink_size")
        if self.ma:
            self._write_ma("time_step_rank_0.txt", "a", f'time_monitor{{type="per_step_time", rank_id="0"}} '
                                                          f'{step_ms} {int(time.time() * 1000)}\n')
        if self.verbose and cb_params.cur_step_num % self.data_size:
            model = self.full_model_flops if self.full_flops else self.shard_model_flops
            hardware = self.full_hardware_flops if self.full_flops else self.shard_hardware_flops
            seconds = max(step_ms / 1000.0, 1e-12)
            print(f"{mode.title()} per step time: {step_ms:5.3f} ms"
                  + _floored_percent(" mfu:", model / self.computility / seconds)
                  + _floored_percent(" hfu:", hardware / self.computility / seconds), flush=True)

    @staticmethod
    def _write_ma(name, how, text):
        path = os.path.join(os.path.realpath(context.train_callback_env()["ma_log_dir"]), name)
        with open(path, how) as f:   # an append-only log, as ModelArts reads it
            f.write(text)
