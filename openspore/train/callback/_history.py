"""`History()`: records the training loss (`net_output`) and the evaluation results of each epoch."""
from ...core.tensor import Tensor
from ._callback import Callback, loss_value


class History(Callback):
    """After training, `history.epoch == {'epoch': [1, 2, ...]}` and `history.history` maps 'net_output'
    (the loss: the first output, or the mean of an array output) and each evaluation result of
    `Model.fit` to a list with one value per epoch."""

    def __init__(self):
        super().__init__()
        self.epoch = None
        self.history = {}

    def on_train_begin(self, run_context):
        self.epoch = {"epoch": []}
        self.history = {}

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        if self.epoch is None:
            self.on_train_begin(run_context)
        self.epoch["epoch"].append(cb_params.cur_epoch_num)
        loss = loss_value(cb_params.get("net_outputs"))
        if loss is not None:
            self.history.setdefault("net_output", []).append(loss)
        for key, value in (cb_params.get("eval_results") or {}).items():
            if isinstance(value, Tensor):
                value = value.asnumpy()
            self.history.setdefault(key, []).append(value)
