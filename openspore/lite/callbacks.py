"""Training-loop callbacks (MindSpore Lite's TrainLoop callbacks): LossMonitor, CkptSaver, AccuracyMetrics,
TrainAccuracy, LRScheduler with StepLRLambda / MultiplicativeLRLambda.

Each callback may define `begin`, `epoch_begin`, `step_begin`, `step_end`, `epoch_end`, `end`, receiving a
`TrainCallBackData` (`model`, `epoch`, `step`, `loss`, `outputs`, `labels`, `train`). An `epoch_end` returning
`StopTraining` ends the loop.
"""
import numpy as np

from .tensor import Tensor

StopTraining = "stop"


class TrainCallBackData:
    def __init__(self, model, train):
        self.model, self.train = model, train
        self.epoch = self.step = 0
        self.loss = None
        self.outputs = None
        self.labels = None


def run_loop(model, epochs, dataset, callbacks, train):
    data = TrainCallBackData(model, train)
    _call(callbacks, "begin", data)
    for epoch in range(int(epochs)):
        data.epoch = epoch
        _call(callbacks, "epoch_begin", data)
        for batch in dataset:
            arrays = [b.array() if isinstance(b, Tensor) else np.asarray(b) for b in
                      (batch if isinstance(batch, (list, tuple)) else [batch])]
            data.labels = arrays[-1] if len(arrays) > 1 else None
            _call(callbacks, "step_begin", data)
            if train:
                loss = model.run_step([Tensor(a) for a in arrays])
                data.loss, data.outputs = float(loss.get_data_to_numpy()), None
            else:
                out = model.predict([Tensor(a) for a in arrays])
                data.outputs = out[0].get_data_to_numpy()
            _call(callbacks, "step_end", data)
            data.step += 1
        results = _call(callbacks, "epoch_end", data)
        if StopTraining in results:
            break
    _call(callbacks, "end", data)
    metrics = {}
    for cb in callbacks:
        if hasattr(cb, "eval"):
            metrics[type(cb).__name__] = cb.eval()
    return metrics


def _call(callbacks, name, data):
    return [getattr(cb, name)(data) for cb in callbacks if hasattr(cb, name)]


class LossMonitor:
    """Records each step's loss (`losses`) and prints the epoch mean every `print_every` epochs (0: never)."""

    def __init__(self, print_every=1):
        self.print_every = print_every
        self.losses = []
        self._epoch = []

    def epoch_begin(self, data):
        self._epoch = []

    def step_end(self, data):
        if data.loss is not None:
            self.losses.append(data.loss)
            self._epoch.append(data.loss)

    def epoch_end(self, data):
        if self.print_every and (data.epoch + 1) % self.print_every == 0 and self._epoch:
            print(f"epoch {data.epoch + 1}: mean loss {np.mean(self._epoch):.6f}")


class CkptSaver:
    """Every `save_every_n` epochs, export the model (training model: continue training from it) as
    `<prefix>_epoch<k>.ms`."""

    def __init__(self, save_every_n, model_prefix):
        self.n, self.prefix = int(save_every_n), model_prefix
        self.saved = []

    def epoch_end(self, data):
        if self.n > 0 and (data.epoch + 1) % self.n == 0:
            self.saved.append(data.model.export(f"{self.prefix}_epoch{data.epoch + 1}", export_inference_only=False))


class AccuracyMetrics:
    """Classification accuracy of evaluation outputs against the labels (the last element of each batch)."""

    def __init__(self):
        self.correct = self.total = 0

    def begin(self, data):
        self.correct = self.total = 0

    def step_end(self, data):
        if data.outputs is not None and data.labels is not None:
            pred = np.argmax(data.outputs, axis=-1)
            self.correct += int((pred == data.labels.reshape(pred.shape)).sum())
            self.total += int(pred.size)

    def eval(self):
        return self.correct / self.total if self.total else 0.0


class TrainAccuracy(AccuracyMetrics):
    """Accuracy on the training data after each epoch (an evaluation pass over `dataset`)."""

    def __init__(self, dataset):
        super().__init__()
        self.dataset = dataset
        self.history = []

    def epoch_end(self, data):
        acc = data.model.evaluate(self.dataset, [AccuracyMetrics()])["AccuracyMetrics"]
        self.history.append(acc)

    def eval(self):
        return self.history[-1] if self.history else 0.0


class StepLRLambda:
    def __init__(self, step_size, gamma):
        self.step_size, self.gamma = int(step_size), float(gamma)

    def __call__(self, lr, epoch):
        return lr * self.gamma if (epoch + 1) % self.step_size == 0 else lr


class MultiplicativeLRLambda:
    def __init__(self, factor):
        self.factor = float(factor)

    def __call__(self, lr, epoch):
        return lr * self.factor


class LRScheduler:
    """After every `step` epochs, set the learning rate to `lambda_func(lr, epoch)`."""

    def __init__(self, lambda_func, step=1):
        self.fn, self.step = lambda_func, int(step)

    def epoch_end(self, data):
        if (data.epoch + 1) % self.step == 0:
            data.model.set_learning_rate(self.fn(data.model.get_learning_rate(), data.epoch))
