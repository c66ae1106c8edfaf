"""The device's local training, on `openspore.lite` (no torch): a `.ms` training model (converter_lite
--trainModel=true) built with `TrainCfg()`, trained for the plan's epochs on the device's own arrays.

The federated weights are the model's trainable parameters. Optimiser state (momentum accumulators) is reset to its
value at load at the start of every iteration, so a device carries nothing from one round to the next and two
devices given the same weights and data produce the same upload.

>>> LiteTrainer.__name__
'LiteTrainer'
"""
import numpy as np


class LiteTrainer:
    def __init__(self, model_or_path, x, y, batch_size=None, shuffle=False, seed=0, thread_num=1):
        from .. import lite as mslite
        self._lite = mslite
        if isinstance(model_or_path, str):
            context = mslite.Context()
            context.cpu.thread_num = thread_num
            model = mslite.Model()
            model.build_from_file(model_or_path, mslite.ModelType.MINDIR_LITE, context, train_cfg=mslite.TrainCfg())
        else:
            model = model_or_path
        self.model = model
        self.x, self.y = np.asarray(x), np.asarray(y)
        if len(self.x) != len(self.y) or len(self.y) == 0:
            raise ValueError(f"LiteTrainer: x and y must hold the same non-zero number of samples, got "
                             f"{len(self.x)} and {len(self.y)}.")
        self.batch = batch_size or int(model.get_inputs()[0].shape[0])
        if self.batch != int(model.get_inputs()[0].shape[0]):
            raise ValueError(f"LiteTrainer: the model was exported for batch {model.get_inputs()[0].shape[0]}, "
                             f"not {self.batch}; export it at the plan's client_batch_size.")
        self.shuffle = shuffle
        self.rng = np.random.default_rng(seed)
        self._trainable = [t.name for t in model.get_trainable_params()]
        self._initial_state = [t for t in model.get_feature_maps() if t.name not in set(self._trainable)]

    @property
    def data_size(self):
        return len(self.y)

    def get_weights(self):
        return {t.name: t.get_data_to_numpy() for t in self.model.get_trainable_params()}

    def set_weights(self, weights):
        T = self._lite.Tensor
        self.model.update_weights([T(np.ascontiguousarray(v, np.float32), name=k) for k, v in weights.items()])

    def reset_optimizer(self):
        self.model.update_weights(self._initial_state)

    def batches(self):
        """Full batches over the data; the last one wraps around to the start (the model's batch is fixed)."""
        n = len(self.y)
        order = self.rng.permutation(n) if self.shuffle else np.arange(n)
        count = -(-n // self.batch)
        idx = np.resize(order, count * self.batch)
        return [(self.x[idx[i * self.batch:(i + 1) * self.batch]], self.y[idx[i * self.batch:(i + 1) * self.batch]])
                for i in range(count)]

    def train(self, epochs, lr=None, prox_mu=0.0, global_weights=None):
        """`epochs` passes over the data; with prox_mu > 0 (FedProx) each step is followed by the proximal pull
        w ← w − lr · μ · (w − w_global). Returns the mean loss of the last epoch."""
        if lr is not None:
            self.model.set_learning_rate(float(lr))
        losses = []
        for _ in range(int(epochs)):
            losses = []
            for bx, by in self.batches():
                loss = self.model.run_step([self._lite.Tensor(bx), self._lite.Tensor(by)])
                losses.append(float(loss.get_data_to_numpy()))
                if prox_mu > 0 and global_weights is not None:
                    rate = self.model.get_learning_rate() * prox_mu
                    w = self.get_weights()
                    self.set_weights({k: (v - rate * (v - global_weights[k])).astype(np.float32) for k, v in w.items()})
        return float(np.mean(losses)) if losses else float("nan")

    def evaluate(self, x, y):
        """Accuracy on (x, y), in batches of the model's size (the tail wraps; only real rows are counted)."""
        was = self.model.get_train_mode()
        self.model.set_train(False)
        try:
            correct = 0
            for i in range(0, len(y), self.batch):
                idx = np.resize(np.arange(i, min(i + self.batch, len(y))), self.batch)
                out = self.model.predict([self._lite.Tensor(np.asarray(x)[idx])])[0].get_data_to_numpy()
                real = min(self.batch, len(y) - i)
                correct += int((out.argmax(1)[:real] == np.asarray(y)[idx][:real]).sum())
            return correct / len(y)
        finally:
            self.model.set_train(was)
