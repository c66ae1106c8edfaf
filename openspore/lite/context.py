"""`Context`: where and how a model runs (mindspore_lite.Context). This runtime computes on the CPU with numpy;
`cpu.thread_num` sets the BLAS threads numpy's matrix products use during the calls of the model built with
this context (threads.py; 0 leaves the process's count), `cpu.precision_mode='preferred_fp16'`
lets float32 models compute their convolutions and matrix products in float16.

>>> from openspore.lite import Context
>>> ctx = Context()
>>> ctx.target, ctx.cpu.thread_num
(['cpu'], 0)
>>> ctx.cpu.thread_num = 2
"""

_PRECISIONS = ("enforce_fp32", "preferred_fp16")
_TARGETS = ("cpu", "gpu", "ascend")


def _int(name, value, low=0):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"Context: '{name}' must be an int >= {low}, but got {value!r}.")
    return value


class _DeviceInfo:
    def __init__(self):
        self._precision_mode = "enforce_fp32"

    @property
    def precision_mode(self):
        return self._precision_mode

    @precision_mode.setter
    def precision_mode(self, value):
        if value not in _PRECISIONS:
            raise ValueError(f"Context: 'precision_mode' must be one of {list(_PRECISIONS)}, but got {value!r}.")
        self._precision_mode = value


class CPU(_DeviceInfo):
    def __init__(self):
        super().__init__()
        self._thread_num = 0
        self._inter_op_parallel_num = 0
        self.thread_affinity_mode = 0
        self.thread_affinity_core_list = []

    @property
    def thread_num(self):
        return self._thread_num

    @thread_num.setter
    def thread_num(self, value):
        self._thread_num = _int("thread_num", value)

    @property
    def inter_op_parallel_num(self):
        return self._inter_op_parallel_num

    @inter_op_parallel_num.setter
    def inter_op_parallel_num(self, value):
        self._inter_op_parallel_num = _int("inter_op_parallel_num", value)


class GPU(_DeviceInfo):
    def __init__(self):
        super().__init__()
        self.device_id = 0
        self.rank_id = 0
        self.group_size = 1


class Ascend(_DeviceInfo):
    def __init__(self):
        super().__init__()
        self.device_id = 0
        self.rank_id = 0
        self.provider = ""


class Parallel:
    """ModelParallelRunner settings: `workers_num` model instances (0 = one per CPU core, at most 4)."""

    def __init__(self):
        self._workers_num = 0
        self.config_info = {}
        self.config_path = ""

    @property
    def workers_num(self):
        return self._workers_num

    @workers_num.setter
    def workers_num(self, value):
        self._workers_num = _int("workers_num", value)


class Context:
    """Context(): `target` (['cpu']; 'gpu'/'ascend' fall back to the CPU, which is all this runtime has),
    `cpu`, `gpu`, `ascend` device settings and `parallel` (for ModelParallelRunner)."""

    def __init__(self):
        self._target = ["cpu"]
        self.cpu = CPU()
        self.gpu = GPU()
        self.ascend = Ascend()
        self.parallel = Parallel()
        self.group_info_file = ""

    @property
    def target(self):
        return list(self._target)

    @target.setter
    def target(self, value):
        if not isinstance(value, (list, tuple)) or not value or any(t not in _TARGETS for t in value):
            raise ValueError(f"Context: 'target' must be a non-empty list drawn from {list(_TARGETS)}, "
                             f"but got {value!r}.")
        targets = list(value)
        if "cpu" not in targets:
            targets.append("cpu")  # MindSpore Lite adds the CPU as the backup of an accelerator
        self._target = targets

    @property
    def fp16(self):
        return self.cpu.precision_mode == "preferred_fp16"

    def __repr__(self):
        return (f"Context(target={self._target}, thread_num={self.cpu.thread_num}, "
                f"precision_mode={self.cpu.precision_mode!r})")
