"""`Callback`, `RunContext` and the list that dispatches callback events during `Model.train/eval/fit`.

Every method receives a `RunContext`; `run_context.original_args()` is the `cb_params` record Model keeps
up to date (`cur_epoch_num`, `cur_step_num`, `batch_num`, `net_outputs`, `train_network`, ...;
facts §1.14) and `run_context.request_stop()` ends training after the current step.
The legacy 1.x methods (`begin`, `epoch_begin`, `step_begin`, `step_end`, `epoch_end`, `end`) are what
the `on_train_*` and `on_eval_*` methods call by default.

>>> from openspore.train import Callback, RunContext
>>> class StopAtTwo(Callback):
...     def on_train_step_end(self, run_context):
...         if run_context.original_args().cur_step_num == 2:
...             run_context.request_stop()
>>> ctx = RunContext({"cur_step_num": 2})
>>> StopAtTwo().on_train_step_end(ctx); ctx.get_stop_requested()
True
"""
import numpy as np

from ...core.tensor import Tensor

_EVENTS = ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin", "on_train_step_end",
           "on_train_epoch_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin", "on_eval_step_begin",
           "on_eval_step_end", "on_eval_epoch_end", "on_eval_end")
LEGACY = ("begin", "epoch_begin", "step_begin", "step_end", "epoch_end", "end")


class Callback:
    """Base class of callbacks: override the `on_train_*` / `on_eval_*` methods you need.

    Callbacks are context managers: Model enters them when training starts and exits them at the end.
    """

    def __enter__(self):
        return self

    def __exit__(self, *err):
        return None

    # legacy (1.x) hooks: called for both training and evaluation
    def begin(self, run_context):
        """Called once before the network runs (legacy; see `on_train_begin` / `on_eval_begin`)."""

    def epoch_begin(self, run_context):
        """Called before each epoch (legacy)."""

    def epoch_end(self, run_context):
        """Called after each epoch (legacy)."""

    def step_begin(self, run_context):
        """Called before each step (legacy)."""

    def step_end(self, run_context):
        """Called after each step (legacy)."""

    def end(self, run_context):
        """Called once after the network ran (legacy)."""

    def on_train_begin(self, run_context):
        """Before training starts."""
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        """Before each training epoch."""
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        """After each training epoch (and after the evaluation of `Model.fit`, whose results are in
        `cb_params.eval_results`)."""
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        """Before each training step."""
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        """After each training step; `cb_params.net_outputs` holds the train network's outputs."""
        self.step_end(run_context)

    def on_train_end(self, run_context):
        """After training."""
        self.end(run_context)

    def on_eval_begin(self, run_context):
        """Before evaluation starts."""
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        """Before the evaluation pass over the dataset."""
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context):
        """After the evaluation pass over the dataset."""
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context):
        """Before each evaluation step."""
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context):
        """After each evaluation step."""
        self.step_end(run_context)

    def on_eval_end(self, run_context):
        """After evaluation; `cb_params.metrics` holds the results."""
        self.end(run_context)


def overridden_legacy_methods(callback):
    """Names of the legacy hooks a callback's class overrides (they would also fire during evaluation)."""
    cls = type(callback)
    return [name for name in LEGACY if getattr(cls, name, None) is not getattr(Callback, name)]


class InternalCallbackParam(dict):
    """`cb_params`: a dict whose keys are also attributes (`cb_params.cur_step_num`).

        >>> cb = InternalCallbackParam(cur_step_num=3)
        >>> cb.net_outputs = 0.5
        >>> cb.cur_step_num, cb["net_outputs"], cb.get("epoch_num")
        (3, 0.5, None)
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # the instance's attribute dict is the dict itself: `cb_params.cur_step_num` is a plain lookup. Through
        # `__getattr__` alone every read first failed the normal lookup (an AttributeError raised and caught),
        # ~1 us each and tens of them per step of Model's loop and its callbacks. (A key named like a dict method,
        # "get" or "items", would hide that method from attribute access; cb_params has none.)
        object.__setattr__(self, "__dict__", self)

    def __reduce__(self):  # copies and pickles are built through __init__ (their __dict__ is themselves too)
        return (type(self), (dict(self),))

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"'cb_params' has no attribute '{name}'.") from None

    def __setattr__(self, name, value):
        self[name] = value


class RunContext:
    """`RunContext(original_args)`: what Model hands to each callback method."""

    def __init__(self, original_args):
        if not isinstance(original_args, dict):
            raise TypeError("For 'RunContext', the argument 'original_args' must be a dict, "
                            f"but got {type(original_args).__name__}.")
        if not isinstance(original_args, InternalCallbackParam):
            original_args = InternalCallbackParam(original_args)
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self):
        """The `cb_params` record."""
        return self._original_args

    def request_stop(self):
        """Ask Model to stop training after the current step."""
        self._stop_requested = True

    def get_stop_requested(self):
        """Whether a stop was requested."""
        return self._stop_requested


def check_callbacks(callbacks, where):
    """None / a Callback / a list or tuple of Callbacks → a list of Callbacks."""
    if callbacks is None:
        return []
    items = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    for cb in items:
        if not isinstance(cb, Callback):
            raise TypeError(f"For '{where}', the 'callbacks' should be a Callback or a list of Callback, "
                            f"but got an element of type {type(cb).__name__}.")
    return items


class CallbackList(Callback):
    """Runs a list of callbacks in order; entering it enters each callback."""

    def __init__(self, callbacks):
        self._callbacks = check_callbacks(callbacks, "CallbackList")
        self._entered = []

    @property
    def callbacks(self):
        return list(self._callbacks)

    def __enter__(self):
        # looked up on the type, as the `with` statement does (a patched class method sees the callback as self)
        for cb in self._callbacks:
            type(cb).__enter__(cb)
            self._entered.append(cb)
        return self

    def __exit__(self, *err):
        while self._entered:
            cb = self._entered.pop()
            type(cb).__exit__(cb, *err)
        return None

    def __len__(self):
        return len(self._callbacks)


def _make_dispatch(event):
    def dispatch(self, run_context):
        for cb in self._callbacks:
            getattr(cb, event)(run_context)
    dispatch.__name__ = event
    dispatch.__doc__ = f"Call `{event}` of every callback in order."
    return dispatch


for _event in _EVENTS + LEGACY:
    setattr(CallbackList, _event, _make_dispatch(_event))


def loss_value(outputs):
    """A float for LossMonitor/History: the first element of tuple outputs, the mean of an array output;
    None when the outputs hold no number."""
    if isinstance(outputs, (tuple, list)):
        if not outputs:
            return None
        outputs = outputs[0]
    if isinstance(outputs, Tensor):
        outputs = outputs.asnumpy()
    if isinstance(outputs, (np.ndarray, np.generic)):
        if outputs.size == 0 or outputs.dtype.kind not in "fiub" and outputs.dtype.name != "bfloat16":
            return None
        return float(np.mean(outputs.astype(np.float64)))
    if isinstance(outputs, (int, float)) and not isinstance(outputs, bool):
        return float(outputs)
    return None
