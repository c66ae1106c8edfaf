"""`mindspore.profiler` / `mindspore.Profiler`: an op-level profiler over the PyNative dispatcher and the graph
executor (profiler/recorder.py), writing MindSpore's CPU profile files and a readable summary
(profiler/report.py).

>>> import os, tempfile, numpy as np, openspore as ms
>>> out = tempfile.mkdtemp()
>>> prof = ms.Profiler(output_path=out)
>>> x = ms.Tensor(np.ones((2, 4), np.float32))
>>> _ = ms.ops.relu(ms.ops.matmul(x, x.T))
>>> prof.analyse()
>>> summary = open(os.path.join(prof.run_dir, "op_summary.txt")).read()
>>> "MatMul" in summary and "ReLU" in summary
True
"""
import enum
import os

from .recorder import Recorder
from .report import run_folder, write_reports

__all__ = ["Profiler", "ProfilerLevel", "ProfilerActivity", "ExportType", "AicoreMetrics", "HostSystem",
           "schedule", "tensorboard_trace_handler", "profile"]


class ProfilerLevel(enum.Enum):
    LevelNone = "LevelNone"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class ProfilerActivity(enum.Enum):
    CPU = "CPU"
    NPU = "NPU"
    GPU = "GPU"


class ExportType(enum.Enum):
    Db = "db"
    Text = "text"


class AicoreMetrics(enum.Enum):
    """Ascend AI-core counters: there is no AI core here, so only the choice is recorded."""
    PipeUtilization = "PipeUtilization"
    ArithmeticUtilization = "ArithmeticUtilization"
    Memory = "Memory"
    MemoryL0 = "MemoryL0"
    MemoryUB = "MemoryUB"
    ResourceConflictRatio = "ResourceConflictRatio"
    L2Cache = "L2Cache"
    MemoryAccess = "MemoryAccess"
    AiCoreNone = "None"


class HostSystem(enum.Enum):
    CPU = "cpu"
    MEM = "mem"
    DISK = "disk"
    NETWORK = "network"
    OSRT = "osrt"


_KNOWN = {"output_path", "profiler_level", "activities", "aic_metrics", "with_stack", "profile_memory",
          "data_process", "parallel_strategy", "start_profile", "hbm_ddr", "pcie", "sync_enable", "data_simplification",
          "l2_cache", "mstx", "export_type", "schedule", "on_trace_ready", "record_shapes", "host_sys",
          "profile_framework", "op_time", "timeline_limit", "mstx_domain_include", "mstx_domain_exclude"}


class Profiler:
    """`Profiler(output_path='./data', start_profile=True, record_shapes=True, ...)`: time every kernel call
    from `start()` (at construction unless start_profile=False) to `stop()`; `analyse()` stops and writes the
    files (see profiler/report.py) into `run_dir`. `step()` marks a training step (per-step frequencies).
    Options about Ascend/GPU hardware counters are accepted and recorded; there are no such counters here."""

    def __init__(self, **kwargs):
        unknown = sorted(set(kwargs) - _KNOWN)
        if unknown:
            raise TypeError(f"For 'Profiler', got unexpected keyword arguments {unknown}; known ones: "
                            f"{sorted(_KNOWN)}.")
        self.options = dict(kwargs)
        self.output_path = os.path.abspath(kwargs.get("output_path", "./data"))
        self._recorder = Recorder(record_shapes=bool(kwargs.get("record_shapes", True)))
        self.run_dir = None
        self.files = {}
        self._steps = 0
        if kwargs.get("start_profile", True):
            self.start()

    def start(self):
        self._recorder.start()

    def stop(self):
        self._recorder.stop()

    def step(self):
        self._steps += 1

    @property
    def events(self):
        """The kernel calls timed so far (op_type, op_name, start_ns, dur_ns, mode, shapes)."""
        return list(self._recorder.events)

    def analyse(self, offline_path=None, pretty=False, step_list=None, mode="sync"):
        """Stop profiling and write the profile files; returns None as MindSpore's does (see `files`)."""
        self.stop()
        self.run_dir = run_folder(offline_path or self.output_path)
        steps = max(self._steps, self._recorder.steps, 1)
        self.files = write_reports(self.run_dir, self._recorder.events, steps, self._recorder.pid)

    def op_analyse(self, op_name, device_id=None):
        """{op type: {'calls', 'total_ms', 'avg_ms'}} for the op types named (a string or a list)."""
        names = [op_name] if isinstance(op_name, str) else list(op_name)
        out = {}
        for name in names:
            group = [e for e in self._recorder.events if e.op_type == name]
            total = sum(e.dur_ns for e in group) / 1e6
            out[name] = {"calls": len(group), "total_ms": total, "avg_ms": total / len(group) if group else 0.0}
        return out

    def add_metadata(self, key, value):
        self.options.setdefault("metadata", {})[str(key)] = str(value)

    def add_metadata_json(self, key, value):
        self.add_metadata(key, value)

    @classmethod
    def offline_analyse(cls, path, pretty=False, step_list=None, data_simplification=True):
        raise ValueError("For 'Profiler.offline_analyse', openspore keeps no raw profile data to analyse later; "
                         "call analyse() on the Profiler that collected it.")

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.analyse()
        return False


class schedule:  # noqa: N801  (MindSpore's name)
    """`schedule(wait, active, warmup=0, repeat=0, skip_first=0)`: which steps `profile` records: after
    skip_first, cycles of wait (idle), warmup (idle here) and active (recorded) steps, `repeat` times (0: always)."""

    def __init__(self, *, wait, active, warmup=0, repeat=0, skip_first=0):
        for name, v in (("wait", wait), ("active", active), ("warmup", warmup), ("repeat", repeat),
                        ("skip_first", skip_first)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"For 'schedule', '{name}' must be a non-negative int, but got {v!r}.")
        if active < 1:
            raise ValueError("For 'schedule', 'active' must be at least 1.")
        self.wait, self.active, self.warmup, self.repeat, self.skip_first = wait, active, warmup, repeat, skip_first

    def records(self, step):
        """Whether step number `step` (from 0) is recorded."""
        if step < self.skip_first:
            return False
        cycle = self.wait + self.warmup + self.active
        k = step - self.skip_first
        if self.repeat and k // cycle >= self.repeat:
            return False
        return k % cycle >= self.wait + self.warmup

    def cycle_ends(self, step):
        cycle = self.wait + self.warmup + self.active
        return step >= self.skip_first and (step - self.skip_first) % cycle == cycle - 1


def tensorboard_trace_handler(dir_name=None, worker_name=None, analyse_flag=True, async_mode=False):
    """on_trace_ready callback: write the profile of each finished cycle under `dir_name`."""
    def handler(prof):
        prof.output_path = os.path.abspath(dir_name or "./data")
        if analyse_flag:
            prof.analyse()
    return handler


class profile(Profiler):  # noqa: N801
    """`profile(activities=None, schedule=None, on_trace_ready=None, ...)`: as Profiler, recording only the
    steps the schedule selects (`step()` advances); on_trace_ready(prof) runs when a cycle of active steps ends."""

    def __init__(self, **kwargs):
        kwargs.setdefault("start_profile", False)
        super().__init__(**kwargs)
        self.schedule = kwargs.get("schedule")
        self.on_trace_ready = kwargs.get("on_trace_ready")
        self._step_num = 0

    def start(self):
        if self.schedule is None or self.schedule.records(self._step_num):
            self._recorder.start()

    def step(self):
        super().step()
        if self.schedule is not None:
            done = self.schedule.cycle_ends(self._step_num) and self.schedule.records(self._step_num)
            self._step_num += 1
            if done and self.on_trace_ready is not None:
                self.on_trace_ready(self)
            elif self.schedule.records(self._step_num):
                self._recorder.start()
            else:
                self._recorder.stop()
        else:
            self._step_num += 1
