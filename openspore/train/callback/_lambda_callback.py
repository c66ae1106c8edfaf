"""`LambdaCallback`: a callback built from plain functions, each taking `run_context`."""
from ._callback import Callback

_HOOKS = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin", "on_train_step_end",
          "on_train_begin", "on_train_end", "on_eval_epoch_begin", "on_eval_epoch_end", "on_eval_step_begin",
          "on_eval_step_end", "on_eval_begin", "on_eval_end")


class LambdaCallback(Callback):
    """`LambdaCallback(on_train_epoch_begin=None, on_train_epoch_end=None, on_train_step_begin=None,
    on_train_step_end=None, on_train_begin=None, on_train_end=None, on_eval_epoch_begin=None,
    on_eval_epoch_end=None, on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None, on_eval_end=None)`.

    >>> seen = []
    >>> cb = LambdaCallback(on_train_epoch_end=lambda ctx: seen.append(ctx.original_args()["cur_epoch_num"]))
    """

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None, on_train_step_begin=None,
                 on_train_step_end=None, on_train_begin=None, on_train_end=None, on_eval_epoch_begin=None,
                 on_eval_epoch_end=None, on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None):
        super().__init__()
        given = dict(zip(_HOOKS, (on_train_epoch_begin, on_train_epoch_end, on_train_step_begin, on_train_step_end,
                                  on_train_begin, on_train_end, on_eval_epoch_begin, on_eval_epoch_end,
                                  on_eval_step_begin, on_eval_step_end, on_eval_begin, on_eval_end)))
        for name, fn in given.items():
            if fn is None:
                fn = _nothing
            elif not callable(fn):
                raise TypeError(f"For 'LambdaCallback', the argument '{name}' must be callable or None, "
                                f"but got {type(fn).__name__}.")
            setattr(self, name, fn)


def _nothing(run_context):
    return None
