"""`Model`: train / evaluate / predict a network with a dataset and callbacks (facts §1.14).

    model = Model(net, loss_fn=nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'),
                  optimizer=nn.Momentum(net.trainable_params(), 0.01, 0.9), metrics={'acc'})
    model.train(2, train_ds, callbacks=[LossMonitor()])
    model.eval(test_ds)          # {'acc': 0.97}
    model.fit(5, train_ds, test_ds, callbacks=[LossMonitor()])   # prints "Eval result: epoch 1, metrics: ..."

The train network comes from `amp.build_train_network` (WithLossCell + TrainOneStepCell, or
TrainOneStepWithLossScaleCell with a loss-scale update cell); the eval network is
`nn.WithEvalCell(network, loss_fn)` whose outputs `(loss, logits, label)` feed the metrics.
"""
import numpy as np

from .. import nn
from ..amp import build_train_network
from ..core.tensor import Tensor
from ..nn.cell import Cell
from ._feed import Feeder, check_dataset, one_pass
from .callback._callback import (CallbackList, InternalCallbackParam, RunContext, check_callbacks,
                                 overridden_legacy_methods)
from .callback._progress import ProgressBar, wants_progress_bar
from .loss_scale_manager import DynamicLossScaleManager, LossScaleManager
from .metrics import Loss, get_metrics

_AMP_LEVELS = ("O0", "O1", "O2", "O3", "auto")
_KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict")


def _positive_int(value, arg, where, allow_zero=False):
    # MindSpore's validator: not an int (bool included) is a TypeError, an int out of range a ValueError
    kind = "non-negative" if allow_zero else "positive"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{where}', the '{arg}' must be a {kind} int, but got {value!r} of type "
                        f"{type(value).__name__}.")
    if value < (0 if allow_zero else 1):
        raise ValueError(f"For '{where}', the '{arg}' must be a {kind} int, but got {value!r}.")
    return int(value)


def _plain(value):
    """numpy scalars → Python numbers, so printed results read `{'acc': 0.96875}`."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray) and value.shape == ():
        return value.item()
    return value


class Model:
    """`Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, eval_indexes=None,
    amp_level='O0', boost_level='O0', **kwargs)`; kwargs: `loss_scale_manager`, `keep_batchnorm_fp32`."""

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, eval_indexes=None,
                 amp_level="O0", boost_level="O0", **kwargs):
        if not isinstance(network, Cell):
            raise TypeError(f"For 'Model', the argument 'network' must be a Cell, but got {type(network).__name__}.")
        for key in kwargs:
            if key not in _KWARGS:
                raise ValueError(f"For 'Model', the keyword argument '{key}' is not supported; "
                                 f"the supported ones are {list(_KWARGS)}.")
        if amp_level not in _AMP_LEVELS:
            raise ValueError(f"For 'Model', the 'amp_level' must be one of {list(_AMP_LEVELS)}, but got {amp_level!r}.")
        if boost_level not in ("O0", "O1", "O2"):
            raise ValueError(f"For 'Model', the 'boost_level' must be 'O0', 'O1' or 'O2', but got {boost_level!r}.")
        if optimizer is None and amp_level != "O0":
            raise ValueError("Auto mixed precision will not work because 'optimizer' is None.Please set "
                             "amp_level='O0' to disable auto mixed precision or set 'optimizer' not be None to use "
                             "auto mixed precision.")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._amp_level = amp_level
        self._boost_level = boost_level
        self._metric_fns = get_metrics(metrics)
        self._loss_scale_manager = self._pick_loss_scale_manager(kwargs)
        self._keep_bn_fp32 = kwargs.get("keep_batchnorm_fp32")
        self._train_network = self._build_train_network()
        self._eval_network, self._eval_indexes = self._build_eval_network(eval_network, eval_indexes)
        self._predict_network = network

    # ---- construction ------------------------------------------------------------------------------------
    def _pick_loss_scale_manager(self, kwargs):
        if "loss_scale_manager" in kwargs:
            lsm = kwargs["loss_scale_manager"]
            if lsm is not None and not isinstance(lsm, LossScaleManager):
                raise TypeError("For 'Model', the 'loss_scale_manager' must be a LossScaleManager or None, "
                                f"but got {type(lsm).__name__}.")
            return lsm
        # O2's default; MindSpore refuses it on CPU because its overflow check needs an NPU op, ours does not
        return DynamicLossScaleManager() if self._amp_level == "O2" and self._optimizer is not None else None

    def _build_train_network(self):
        if self._optimizer is not None:
            options = {"loss_scale_manager": self._loss_scale_manager}
            if self._keep_bn_fp32 is not None:
                options["keep_batchnorm_fp32"] = self._keep_bn_fp32
            return build_train_network(self._network, self._optimizer, self._loss_fn, level=self._amp_level,
                                       boost_level=self._boost_level, **options)
        if self._loss_fn is not None:
            return nn.WithLossCell(self._network, self._loss_fn)
        return self._network

    def _build_eval_network(self, eval_network, eval_indexes):
        if eval_network is not None and not isinstance(eval_network, Cell):
            raise TypeError("For 'Model', the argument 'eval_network' must be a Cell, "
                            f"but got {type(eval_network).__name__}.")
        if eval_indexes is not None and (not isinstance(eval_indexes, list) or len(eval_indexes) != 3
                                         or not all(isinstance(i, int) for i in eval_indexes)):
            raise ValueError("The argument 'eval_indexes' must be a list or None. If it's a list, its length "
                             f"should be 3, but got {eval_indexes!r}.")
        if not self._metric_fns:
            return eval_network, eval_indexes
        if eval_network is not None:
            return eval_network, eval_indexes
        if self._loss_fn is None:
            raise ValueError("If `metrics` is set, `eval_network` must not be None, do not set `metrics` if you "
                             "don't want an evaluation.")
        add_cast = self._amp_level in ("O2", "O3", "auto")
        return nn.WithEvalCell(self._network, self._loss_fn, add_cast), [0, 1, 2]

    @property
    def train_network(self):
        """The network `train` runs each step."""
        return self._train_network

    @property
    def predict_network(self):
        """The network `predict` runs."""
        return self._predict_network

    @property
    def eval_network(self):
        """The network `eval` runs (None without metrics)."""
        return self._eval_network

    # ---- callbacks ------------------------------------------------------------------------------------------
    @staticmethod
    def _callback_list(callbacks, where):
        items = check_callbacks(callbacks, where)
        if wants_progress_bar() and not any(isinstance(cb, ProgressBar) for cb in items):
            items.append(ProgressBar())
        return CallbackList(items)

    def _train_params(self, epoch, dataset, list_callback, feeder, sink_mode, sink_size, initial_epoch):
        # cur_step_num counts this call's steps from 0 whatever initial_epoch is, as MindSpore 2.10's does (a run
        # resumed at epoch 7 of 20-step epochs sees epoch 7, step 1)
        initial_step = 0
        return InternalCallbackParam(
            train_network=self._train_network, network=self._network, loss_fn=self._loss_fn,
            optimizer=self._optimizer, epoch_num=epoch, batch_num=feeder.steps_per_epoch,
            cur_epoch_num=initial_epoch, cur_step_num=initial_step, initial_step=initial_step,
            initial_epoch=initial_epoch, net_outputs=None, mode="train", parallel_mode="stand_alone",
            device_number=1, train_dataset=dataset, list_callback=list_callback, train_dataset_element=None,
            last_save_ckpt_step=None, latest_ckpt_file=None, loss_scale_mananger=self._loss_scale_manager,
            sink_size=sink_size, dataset_sink_mode=bool(sink_mode), dataset_helper=feeder,
            eval_network=self._eval_network, valid_dataset=None, metrics=None, eval_results={})

    # ---- training -------------------------------------------------------------------------------------------
    def _check_train_args(self, epoch, sink_size, initial_epoch, where):
        epoch = _positive_int(epoch, "epoch", where)
        initial_epoch = _positive_int(initial_epoch, "initial_epoch", where, allow_zero=True)
        if initial_epoch >= epoch:
            raise ValueError(f"For '{where}', the 'initial_epoch' must be less than 'epoch', "
                             f"but got initial_epoch {initial_epoch} and epoch {epoch}.")
        if isinstance(sink_size, bool) or not isinstance(sink_size, int):
            raise TypeError(f"For '{where}', the 'sink_size' must be -1 or a positive int, but got {sink_size!r} of "
                            f"type {type(sink_size).__name__}.")
        if sink_size <= 0 and sink_size != -1:
            raise ValueError(f"For '{where}', the 'sink_size' must be -1 or a positive int, but got {sink_size!r}.")
        return epoch, initial_epoch

    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """Train for `epoch` epochs (starting after `initial_epoch`); `sink_size` steps make an epoch in sink mode."""
        epoch, initial_epoch = self._check_train_args(epoch, sink_size, initial_epoch, "Model.train")
        list_callback = self._callback_list(callbacks, "Model.train")
        with list_callback:
            self._run_train(epoch, train_dataset, list_callback, dataset_sink_mode, sink_size, initial_epoch)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """Train, evaluating on `valid_dataset` every `valid_frequency` epochs (an int, or a list of epochs);
        the results reach callbacks as `cb_params.metrics` / `cb_params.eval_results` (plus 'eval_loss')."""
        epoch, initial_epoch = self._check_train_args(epoch, sink_size, initial_epoch, "Model.fit")
        if isinstance(valid_frequency, list):
            if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in valid_frequency):
                raise ValueError("For 'Model.fit', a list 'valid_frequency' must hold positive epoch numbers, "
                                 f"but got {valid_frequency!r}.")
        else:
            _positive_int(valid_frequency, "valid_frequency", "Model.fit")
        items = check_callbacks(callbacks, "Model.fit")
        if valid_dataset is not None:
            if not self._metric_fns:
                raise ValueError("For 'Model.fit', the model argument 'metrics' can not be None or empty when "
                                 "'valid_dataset' is given, you should set the argument 'metrics' for model.")
            for cb in items:
                legacy = overridden_legacy_methods(cb)
                if legacy:
                    raise ValueError(f"For 'Model.fit', the callback {type(cb).__name__} overrides {legacy}, which "
                                     "would also run during evaluation; override the methods prefixed with "
                                     "'on_train' or 'on_eval' instead.")
        list_callback = self._callback_list(items, "Model.fit")
        valid = None if valid_dataset is None else (valid_dataset, valid_frequency)
        with list_callback:
            self._run_train(epoch, train_dataset, list_callback, dataset_sink_mode, sink_size, initial_epoch, valid)

    def _run_train(self, epoch, dataset, list_callback, sink_mode, sink_size, initial_epoch, valid=None):
        feeder = Feeder(dataset, epoch - initial_epoch, sink_mode, sink_size, "Model.train")
        cb_params = self._train_params(epoch, dataset, list_callback, feeder, sink_mode, sink_size, initial_epoch)
        if valid is not None:
            cb_params.valid_dataset = valid[0]
        run_context = RunContext(cb_params)
        try:
            self._train_epochs(epoch, initial_epoch, feeder, list_callback, cb_params, run_context, valid)
        finally:
            feeder.close()

    def _train_epochs(self, epoch, initial_epoch, feeder, list_callback, cb_params, run_context, valid):
        list_callback.on_train_begin(run_context)
        # a callback restoring an interrupted run (BackupAndRestore) moves the counters on: continue from there
        initial_epoch = max(initial_epoch, cb_params.cur_epoch_num)
        for cur_epoch in range(initial_epoch + 1, epoch + 1):
            cb_params.cur_epoch_num = cur_epoch
            cb_params.metrics, cb_params.eval_results = None, {}  # set again by this epoch's evaluation, if any
            self._train_network.set_train(True)
            list_callback.on_train_epoch_begin(run_context)
            for data in feeder.epoch():
                cb_params.cur_step_num += 1
                cb_params.train_dataset_element = data
                list_callback.on_train_step_begin(run_context)
                outputs = self._train_network(*data)
                cb_params.net_outputs = outputs
                self._update_loss_scale(outputs)
                list_callback.on_train_step_end(run_context)
                if run_context.get_stop_requested():
                    break
            if valid is not None and self._eval_due(cur_epoch, valid[1]):
                self._eval_in_fit(valid[0], list_callback, cb_params)
            list_callback.on_train_epoch_end(run_context)
            if run_context.get_stop_requested():
                break
        list_callback.on_train_end(run_context)

    def _update_loss_scale(self, outputs):
        lsm = self._loss_scale_manager
        if lsm is None or not getattr(lsm, "get_drop_overflow_update", lambda: False)():
            return
        if isinstance(outputs, tuple) and len(outputs) == 3:
            overflow = outputs[1]
            overflow = overflow.asnumpy() if isinstance(overflow, Tensor) else np.asarray(overflow)
            lsm.update_loss_scale(bool(np.all(overflow)))

    @staticmethod
    def _eval_due(cur_epoch, frequency):
        return cur_epoch in frequency if isinstance(frequency, list) else cur_epoch % frequency == 0

    def _eval_in_fit(self, valid_dataset, list_callback, train_params):
        params = self._eval_params(valid_dataset, list_callback)
        params.cur_epoch_num = train_params.cur_epoch_num
        params.epoch_num = train_params.epoch_num
        metrics = self._eval_process(valid_dataset, list_callback, params, add_eval_loss=True)
        train_params.metrics = metrics
        train_params.eval_results = dict(params.eval_results)

    # ---- evaluation -----------------------------------------------------------------------------------------
    def _eval_params(self, valid_dataset, list_callback):
        return InternalCallbackParam(
            eval_network=self._eval_network, network=self._network, valid_dataset=valid_dataset,
            list_callback=list_callback, mode="eval", cur_epoch_num=1, epoch_num=1, cur_step_num=0, batch_num=0,
            net_outputs=None, metrics=None, eval_results={}, eval_dataset_element=None)

    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """Run the eval network over `valid_dataset` once; returns {metric name: value}."""
        if not self._metric_fns:
            raise ValueError("For 'Model.eval', the model argument 'metrics' can not be None or empty, you should "
                             "set the argument 'metrics' for model.")
        if self._eval_network is None:
            raise ValueError("For 'Model.eval', the eval network is None: give 'eval_network' or 'loss_fn'.")
        list_callback = self._callback_list(callbacks, "Model.eval")
        with list_callback:
            return self._eval_process(valid_dataset, list_callback, self._eval_params(valid_dataset, list_callback))

    def _eval_process(self, valid_dataset, list_callback, cb_params, add_eval_loss=False):
        size, batches = one_pass(valid_dataset)
        cb_params.batch_num = size
        run_context = RunContext(cb_params)
        list_callback.on_eval_begin(run_context)
        for metric in self._metric_fns.values():
            metric.clear()
        eval_loss = Loss() if add_eval_loss and self._eval_indexes is not None else None
        self._eval_network.set_train(False)
        list_callback.on_eval_epoch_begin(run_context)
        for data in batches:
            cb_params.cur_step_num += 1
            cb_params.eval_dataset_element = data
            list_callback.on_eval_step_begin(run_context)
            outputs = self._eval_network(*data)
            cb_params.net_outputs = outputs
            self._update_metrics(outputs)
            if eval_loss is not None:
                eval_loss.update(outputs[self._eval_indexes[0]])
            list_callback.on_eval_step_end(run_context)
        list_callback.on_eval_epoch_end(run_context)
        metrics = {name: _plain(metric.eval()) for name, metric in self._metric_fns.items()}
        cb_params.metrics = metrics
        cb_params.eval_results = dict(metrics)
        if eval_loss is not None:
            cb_params.eval_results["eval_loss"] = eval_loss.eval()
        list_callback.on_eval_end(run_context)
        return metrics

    def _update_metrics(self, outputs):
        if not isinstance(outputs, (tuple, list)):
            outputs = (outputs,)
        indexes = self._eval_indexes
        if indexes is not None and len(outputs) <= max(indexes):
            raise ValueError(f"For 'Model.eval', the eval network returned {len(outputs)} outputs, but "
                             f"'eval_indexes' {indexes} needs at least {max(indexes) + 1}.")
        for metric in self._metric_fns.values():
            if indexes is None or metric.indexes is not None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[indexes[0]])
            else:
                metric.update(outputs[indexes[1]], outputs[indexes[2]])

    # ---- prediction ------------------------------------------------------------------------------------------
    def predict(self, *predict_data, backend=None, config=None):
        """Run the predict network (in inference mode) on the given inputs; numpy arrays become Tensors."""
        if backend is not None:
            raise ValueError(f"For 'Model.predict', the 'backend' {backend!r} is not available; use backend=None.")
        data = tuple(Tensor(x) if isinstance(x, np.ndarray) else x for x in predict_data)
        self._predict_network.set_train(False)
        return self._predict_network(*data)

    def build(self, train_dataset=None, valid_dataset=None, sink_size=-1, epoch=1, sink_mode=True):
        """Prepare the networks ahead of `train`/`eval` (checks the datasets; PyNative has nothing to compile)."""
        _positive_int(epoch, "epoch", "Model.build")
        if train_dataset is not None:
            check_dataset(train_dataset, "train_dataset", "Model.build")
            self._train_network.set_train(True)
        if valid_dataset is not None:
            check_dataset(valid_dataset, "valid_dataset", "Model.build")
