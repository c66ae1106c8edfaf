"""`SummaryCollector`: the `Model.train` callback that writes summaries (`mindspore.SummaryCollector`).

    >>> import tempfile
    >>> from openspore.train import SummaryCollector
    >>> SummaryCollector(tempfile.mkdtemp(), collect_freq=1, collect_specified_data={"collect_graph": False},
    ...                  custom_lineage_data={"lr": 0.01}).collect_specified_data["collect_graph"]
    False

Collected (MindSpore's defaults, fact sheet §2): the first network output, averaged, as scalar `loss/auto`;
the learning rate as scalar `learning_rate/auto` (an openspore addition: MindInsight shows it like any scalar);
histograms `<param>/auto` of the first five optimizer parameters (or those matching `histogram_regular`); the
first dataset column as image `input_data/auto` when it is 4-D; the train graph once; at the end, the train
lineage, the dataset graph and `custom_lineage_data` in the `_lineage` file. Loss landscapes are not computed
(`collect_landscape` is accepted and ignored, with a warning when asked for explicitly).

A collection goes the general way (`_collect`) until one has been posted by its ring layout; later ones take the
straight pass of `_summary_fast.FastCollection` while what that one found still holds (same records, less Python
and no numpy conversion on the training thread).

`TensorSummary` values are written at step 1 and every `collect_tensor_freq` steps; by default at most about 20
times in the run (every ceil(total steps / 20) steps) but never more often than the other summaries
(`collect_freq`), as MindSpore documents: tensors are large.
"""
import math
import json
import logging
import os
import re

import numpy as np

from ... import backends
from ...common.generations import CHANGES
from ...core.tensor import Tensor
from ._callback import Callback
from ._summary_fast import FastCollection

logger = logging.getLogger("openspore.summary")

_DEFAULTS = {"collect_metric": True, "collect_graph": True, "collect_train_lineage": True,
             "collect_eval_lineage": True, "collect_input_data": True, "collect_dataset_graph": True,
             "histogram_regular": None, "collect_landscape": None}
_HISTOGRAMS_BY_DEFAULT = 5


def _positive_int(name, value, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For 'SummaryCollector', the '{name}' should be int, but got {type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"For 'SummaryCollector', the '{name}' should be greater than 0, but got {value}.")
    return value


class SummaryCollector(Callback):
    """`SummaryCollector(summary_dir, collect_freq=10, num_process=32, collect_specified_data=None,
    keep_default_action=True, custom_lineage_data=None, collect_tensor_freq=None, max_file_size=None,
    export_options=None)`."""

    def __init__(self, summary_dir, collect_freq=10, num_process=32, collect_specified_data=None,
                 keep_default_action=True, custom_lineage_data=None, collect_tensor_freq=None, max_file_size=None,
                 export_options=None):
        super().__init__()
        if not isinstance(summary_dir, (str, os.PathLike)) or not str(summary_dir):
            raise TypeError(f"For 'SummaryCollector', the 'summary_dir' should be a non-empty str, got {summary_dir!r}.")
        self.summary_dir = os.fspath(summary_dir)
        self.collect_freq = _positive_int("collect_freq", collect_freq)
        self.collect_tensor_freq = _positive_int("collect_tensor_freq", collect_tensor_freq, allow_none=True)
        self.num_process = _positive_int("num_process", num_process)
        self.max_file_size = _positive_int("max_file_size", max_file_size, allow_none=True)
        self.export_options = export_options
        if not isinstance(keep_default_action, bool):
            raise TypeError(f"For 'SummaryCollector', the 'keep_default_action' should be bool, got "
                            f"{keep_default_action!r}.")
        self.collect_specified_data = self._specified(collect_specified_data, keep_default_action)
        self.custom_lineage_data = self._custom_lineage(custom_lineage_data)
        self._record = None
        self._opened_in_begin = False
        self._histogram_params = None
        self._graph_written = False
        self._last_loss = None
        self._input_checked = False
        self._lr_source = None  # (optimizer, CHANGES generation, _HostView of a fixed rate or None): `_lr`
        self._layout = None  # ((no loss, no lr), the arrays it was made for, RingLayout): `_layout_for`
        self._layouts = {}  # every RingLayout made, by what it describes
        self._fast = None  # FastCollection: what the last collection found, for the next ones (`step_end`)
        self._tensor_freq = collect_tensor_freq or collect_freq

    # ---- constructor checks -----------------------------------------------------------------------------
    @staticmethod
    def _specified(data, keep_default):
        if data is None:
            return dict(_DEFAULTS)
        if not isinstance(data, dict):
            raise TypeError(f"For 'SummaryCollector', the 'collect_specified_data' should be dict or None, got "
                            f"{type(data).__name__}.")
        for key, value in data.items():
            if key not in _DEFAULTS:
                raise ValueError(f"For 'SummaryCollector', the key {key!r} of 'collect_specified_data' is not "
                                 f"supported; expected one of {sorted(_DEFAULTS)}.")
            if key == "histogram_regular":
                if value is not None:
                    if not isinstance(value, str):
                        raise TypeError(f"For 'SummaryCollector', 'histogram_regular' should be str or None, got "
                                        f"{value!r}.")
                    try:
                        re.compile(value)
                    except re.error as exc:
                        raise ValueError(f"For 'SummaryCollector', 'histogram_regular' {value!r} is not a valid "
                                         f"regular expression: {exc}") from None
            elif key == "collect_landscape":
                if value is not None and not isinstance(value, dict):
                    raise TypeError("For 'SummaryCollector', 'collect_landscape' should be dict or None.")
                if value:
                    logger.warning("SummaryCollector: loss landscapes are not computed by openspore; "
                                   "'collect_landscape' is ignored.")
            elif not isinstance(value, bool):
                raise TypeError(f"For 'SummaryCollector', the value of {key!r} should be bool, got {value!r}.")
        if keep_default:
            return {**_DEFAULTS, **data}
        return {key: data.get(key, False if key not in ("histogram_regular", "collect_landscape") else None)
                for key in _DEFAULTS}

    @staticmethod
    def _custom_lineage(data):
        merged = {}
        env = os.environ.get("MINDINSIGHT_HYPER_CONFIG")
        if env and len(env) <= 100000:
            try:
                loaded = json.loads(env)
                if isinstance(loaded, dict):
                    merged.update(loaded.get("custom_lineage_data", loaded))
            except ValueError:
                logger.warning("MINDINSIGHT_HYPER_CONFIG is not valid JSON; it is ignored.")
        if data is None:
            return merged or None
        if not isinstance(data, dict):
            raise TypeError(f"For 'SummaryCollector', the 'custom_lineage_data' should be dict or None, got "
                            f"{type(data).__name__}.")
        for key, value in data.items():
            if not isinstance(key, str):
                raise TypeError(f"For 'SummaryCollector', the keys of 'custom_lineage_data' should be str, got {key!r}.")
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise TypeError(f"For 'SummaryCollector', the value of custom_lineage_data[{key!r}] should be "
                                f"int, float or str, got {type(value).__name__}.")
        merged.update(data)
        return merged

    # ---- the callback ---------------------------------------------------------------------------------
    def __enter__(self):
        from ..summary import SummaryRecord
        self._record = SummaryRecord(self.summary_dir, num_process=self.num_process,
                                     max_file_size=self.max_file_size, export_options=self.export_options)
        return self

    def __exit__(self, *err):
        if self._record is not None:
            self._record.close()

    def begin(self, run_context):
        cb = run_context.original_args()
        others = [c for c in getattr(cb.get("list_callback"), "callbacks", ()) or ()
                  if isinstance(c, SummaryCollector) and c is not self]
        if others:
            raise ValueError("For 'SummaryCollector', more than one SummaryCollector in the callbacks is not "
                             "allowed.")
        if self._record is None:  # used outside Model.train's `with`: open here
            self.__enter__()
            self._opened_in_begin = True
        self._fast = None  # another run: another optimizer, dataset, record
        if self.collect_tensor_freq is None:
            epochs, per_epoch = cb.get("epoch_num"), cb.get("batch_num")
            if isinstance(epochs, int) and isinstance(per_epoch, int) and epochs > 0 and per_epoch > 0:
                self._tensor_freq = max(self.collect_freq, math.ceil(epochs * per_epoch / 20))
        if self.collect_specified_data["collect_dataset_graph"] and cb.get("train_dataset") is not None:
            self._record.add_value("dataset_graph", "train_dataset", dataset_graph(cb.train_dataset))
        if self.custom_lineage_data:
            self._record.add_value("custom_lineage_data", "custom_lineage_data",
                                   user_defined_info(self.custom_lineage_data))

    def step_end(self, run_context):
        cb = run_context.original_args()
        # an item, not `cb.cur_step_num`: cb_params' __getattr__ is reached only through a failed attribute
        # lookup, an AttributeError raised and caught, which after a training step (code and data out of the
        # cache) cost ~20 us: most of what the collector cost a step that collects nothing
        step = cb["cur_step_num"]
        if step % self.collect_freq and step != 1:
            # most steps: a few attribute reads, unless summary ops in `construct` left values to write
            if self._record._has_pending():
                self._record.record(step, plugin_filter=_no_data_but_tensors if step % self._tensor_freq == 0
                                    else _no_data)
            return
        fast = self._fast
        if fast is not None and fast(cb, step):
            return
        self._collect(cb, step, step == 1 or step % self._tensor_freq == 0)

    def epoch_end(self, run_context):
        # no flush here: each record reaches the file as soon as the writer has packed it (a reader tailing the
        # file sees it then), and waiting for the writer at every epoch end cost the epoch up to ~0.1 s.
        # `close()` (leaving Model.train) waits for everything.
        del run_context

    def end(self, run_context):
        cb = run_context.original_args()
        if self.collect_specified_data["collect_train_lineage"]:
            self._record.add_value("train_lineage", "train_lineage", self._train_lineage(cb))
        self._record.record(cb.cur_step_num)
        if self._opened_in_begin:  # no `with` will close the record: make the run's data readable now
            self._record.flush()

    def on_eval_end(self, run_context):
        """`Model.eval` / `Model.fit` evaluation: the metrics and the validation set as `EvaluationLineage`."""
        if not self.collect_specified_data["collect_eval_lineage"]:
            return
        cb = run_context.original_args()
        from ..summary import lineage_pb2
        lineage = lineage_pb2.EvaluationLineage()
        metrics = cb.get("metrics") or {}
        lineage.metric = json.dumps({k: float(v) if isinstance(v, (int, float, np.number)) else str(v)
                                     for k, v in metrics.items()})
        dataset = cb.get("valid_dataset")
        if dataset is not None:
            size, batch = _call(dataset, "get_dataset_size"), _call(dataset, "get_batch_size")
            if isinstance(size, int):
                lineage.valid_dataset.valid_dataset_size = size * (batch if isinstance(batch, int) else 1)
            path = _dataset_path(dataset)
            if path:
                lineage.valid_dataset.valid_dataset_path = path
        opened_here = self._record is None
        if opened_here:  # Model.eval alone: the collector has no open record of a training run
            self.__enter__()
        self._record.add_value("eval_lineage", "eval_lineage", lineage)
        self._record.record(int(cb.get("cur_step_num") or 0))
        if opened_here or self._opened_in_begin:  # inside Model.fit's `with`, close() waits for it
            self._record.flush()

    # ---- collecting -------------------------------------------------------------------------------------
    def _collect(self, cb, step, tensors_now=True):
        # the training thread only takes what the next step would change: the loss as a float, host copies of
        # the input batch and the weights (into the writer process's shared memory, `_ring.py`); histograms,
        # PNG, protobuf and CRCs are the writer's work
        record = self._record
        spec = self.collect_specified_data
        if spec["collect_graph"] and not self._graph_written:
            self._graph_written = True
            self._add_graph(cb)
        loss = _first_output(cb.get("net_outputs")) if spec["collect_metric"] else None
        if loss is not None:
            self._last_loss = loss
        lr = self._lr(cb.get("optimizer"), step)
        image = self._input_image(cb) if spec["collect_input_data"] else None
        weights = self._histogram_params
        if weights is None:
            weights = self._params_for_histograms(cb.get("optimizer"), cb.get("train_network"))
        hosts = [entry.host() for entry in weights]
        if image is not None:
            hosts.insert(0, image)
        pending = record._has_pending()
        if not pending:  # the usual collection: a known layout, one copy into the ring, a message of numbers
            layout = self._layout_for(loss, lr, hosts)
            if layout is not None and record._post_collection(
                    step, layout, [v for v in (loss, lr) if v is not None], hosts):
                self._fast = FastCollection.make(self, record, layout, cb.get("train_dataset"))
                return
        scalars = [(name, value) for name, value in (("loss/auto", loss), ("learning_rate/auto", lr))
                   if value is not None]
        arrays = [("histogram", entry.tag, host) for entry, host in zip(weights, hosts[image is not None:])]
        if image is not None:
            arrays.insert(0, ("image", "input_data/auto", image))
        if not pending:
            record._record_collection(step, scalars, arrays)
            return
        for name, value in scalars:
            record._add_scalar(name, value)
        if arrays:
            record._add_arrays(arrays)
        record.record(step, plugin_filter=None if tensors_now else _no_tensors)

    def _layout_for(self, loss, lr, hosts):
        """The ring layout (`_ring.RingLayout`) of this collection: kept while the same scalars are collected and
        the arrays are the same buffers (weights) or of the same shape and dtype (the input batch, first when
        collected); None when the arrays are of several dtypes (they go the general way)."""
        cached = self._layout
        if cached is not None and cached[0] == (loss is None, lr is None) and len(cached[1]) == len(hosts):
            same = True
            for array, known in zip(hosts, cached[1]):
                if array is not known and (array.shape != known.shape or array.dtype != known.dtype):
                    same = False
                    break
            if same:
                return cached[2]
        if len({a.dtype for a in hosts}) > 1:
            self._layout = None
            return None
        image = self.collect_specified_data["collect_input_data"] and len(hosts) > len(self._histogram_params)
        # kept by what it describes: an epoch's smaller last batch and the next epoch's full ones take turns
        # without a new layout each time, and a layout stays known while its collections may wait in the ring
        signature = (loss is None, lr is None, image, tuple((a.shape, a.dtype.str) for a in hosts))
        layout = self._layouts.get(signature)
        if layout is None:
            from ..summary._ring import RingLayout
            tags = [("image", "input_data/auto")] if image else []
            tags += [("histogram", entry.tag) for entry in self._histogram_params]
            layout = self._layouts[signature] = RingLayout(
                [(plugin, tag, a.dtype, a.shape) for (plugin, tag), a in zip(tags, hosts)],
                [name for name, value in (("loss/auto", loss), ("learning_rate/auto", lr)) if value is not None])
        self._layout = ((loss is None, lr is None), list(hosts), layout)
        return layout

    def _add_graph(self, cb):
        from ..summary._graph_of import network_graph
        network = cb.get("train_network")
        inputs = cb.get("train_dataset_element")
        if isinstance(inputs, Tensor):
            inputs = (inputs,)
        graph = network_graph(network, inputs) if network is not None else None
        if graph is not None:
            self._record._add_graph_ir("train_network/auto", graph)  # converted on the writer thread

    def _input_image(self, cb):
        """The first dataset column's host array when it is an NCHW image batch (1 or 3 channels), else None
        (and `collect_input_data` is turned off, with a warning)."""
        element = cb.get("train_dataset_element")
        first = element[0] if isinstance(element, (list, tuple)) and element else element
        array = _host_array(first) if isinstance(first, Tensor) else None
        # the host array's shape: a C attribute (the Tensor's `shape` of a new batch builds a tuple in Python)
        if array is None or array.ndim != 4 or array.shape[1] not in (1, 3):
            if not self._input_checked:
                self._input_checked = True
                logger.warning("SummaryCollector: the first dataset column is not an NCHW image batch with 1 or 3 "
                               "channels; 'collect_input_data' is turned off.")
            self.collect_specified_data["collect_input_data"] = False
            return None
        return array

    def _lr(self, optimizer, step):
        """`_learning_rate(optimizer, step)`; a fixed rate (a scalar Parameter: schedulers assign to it in place)
        is read through a host view kept while no Cell attribute changed (`CHANGES`): each collection then makes
        no attribute lookup through `Cell.__getattr__` (an exception raised and caught) and no torch call, which
        after a training step, their code out of the cache, cost it tens of microseconds."""
        if optimizer is None:
            return None
        source = self._lr_source
        if source is None or source[0] is not optimizer or source[1] != CHANGES[0]:
            lr = getattr(optimizer, "learning_rate", None)
            view = _HostView(lr, "learning_rate") if isinstance(lr, Tensor) and lr.shape == () else None
            source = self._lr_source = (optimizer, CHANGES[0], view)
        if source[2] is None:
            return _learning_rate(optimizer, step)
        return float(source[2].host())

    def _params_for_histograms(self, optimizer, network):
        if self._histogram_params is None:
            params = list(getattr(optimizer, "parameters", None) or [])
            if not params and network is not None:
                params = list(network.trainable_params())
            regular = self.collect_specified_data["histogram_regular"]
            if regular is None:
                params = params[:_HISTOGRAMS_BY_DEFAULT]
            else:
                params = [p for p in params if re.match(regular, p.name)]
            self._histogram_params = [_HostView(p, f"{p.name}/auto") for p in params]
        return self._histogram_params


    def _train_lineage(self, cb):
        from ..summary import lineage_pb2
        lineage = lineage_pb2.TrainLineage()
        hp = lineage.hyper_parameters
        optimizer = cb.get("optimizer")
        if optimizer is not None:
            hp.optimizer = type(optimizer).__name__
            lr = _learning_rate(optimizer, 0)
            if lr is not None:
                hp.learning_rate = lr
        loss_fn = cb.get("loss_fn")
        if loss_fn is not None:
            hp.loss_function = type(loss_fn).__name__
        hp.epoch = int(cb.get("epoch_num") or 0)
        hp.parallel_mode = str(cb.get("parallel_mode") or "stand_alone")
        hp.device_num = int(cb.get("device_number") or 1)
        dataset = cb.get("train_dataset")
        if dataset is not None:
            batch = _call(dataset, "get_batch_size")
            if isinstance(batch, int):
                hp.batch_size = batch
            size = _call(dataset, "get_dataset_size")
            if isinstance(size, int):
                lineage.train_dataset.train_dataset_size = size * (batch if isinstance(batch, int) else 1)
            path = _dataset_path(dataset)
            if path:
                lineage.train_dataset.train_dataset_path = path
        network = cb.get("network")
        if network is not None:
            lineage.algorithm.network = type(network).__name__
        if self._last_loss is not None:
            lineage.algorithm.loss = self._last_loss
        ckpt = cb.get("latest_ckpt_file")
        if ckpt and os.path.isfile(ckpt):
            lineage.model.path = os.path.realpath(ckpt)
            lineage.model.size = os.path.getsize(ckpt)
        return lineage


def _call(obj, name):
    try:
        return getattr(obj, name)()
    except Exception:  # a dataset that cannot tell its size (a generator) simply has no lineage entry for it
        return None


def _dataset_path(dataset):
    stack = [dataset]
    while stack:
        ds = stack.pop()
        for attr in ("dataset_dir", "dataset_file", "dataset_files"):
            value = getattr(ds, attr, None)
            if isinstance(value, str):
                return value
            if isinstance(value, (list, tuple)) and value and isinstance(value[0], str):
                return value[0]
        stack.extend(getattr(ds, "children", []) or [])
    return ""


def _no_data(plugin):  # a step between collections: summary ops' tensors wait for their own frequency
    return plugin not in ("scalar", "image", "histogram", "tensor")


def _no_data_but_tensors(plugin):
    return plugin not in ("scalar", "image", "histogram")


def _no_tensors(plugin):
    return plugin != "tensor"


class _HostView:
    """A parameter's host array, kept between collections: on a CPU backend it is a view of the parameter's own
    buffer (optimizers update it in place), so a collection costs one copy and no conversion. Converted again
    when the parameter's buffer was replaced (`set_data`) or the backend keeps it off the host."""

    __slots__ = ("tensor", "tag", "_data", "_view")

    def __init__(self, tensor, tag):
        self.tensor, self.tag, self._data, self._view = tensor, tag, None, None

    def host(self):
        data = self.tensor._data  # the attribute: `data_ref()` (a backend lookup) only when it changed
        if data is self._data and data is not None:
            return self._view
        data = self.tensor.data_ref()
        if data is self._data:
            return self._view
        backend = backends.current()
        view = backend.to_numpy(data)
        if str(getattr(backend, "device", "cpu")) == "cpu":  # a view of the live buffer: reusable
            self._data, self._view = data, view
        return view


def _host_array(tensor):
    """`tensor.asnumpy()` with one torch call where it can: a CPU tensor that needs no grad gives its buffer
    (`asnumpy` first detaches and moves it, two more calls); anything else goes the general way."""
    # the attribute, not `data_ref()` (a backend lookup): what is not a CPU torch array fails `numpy()` and goes
    # the general way, which converts it (a lazily initialized tensor's None included)
    try:
        return tensor._data.numpy()
    except (AttributeError, RuntimeError, TypeError):  # not torch, needs grad, on a device, or bfloat16
        return tensor.asnumpy()


def _first_output(outputs):
    """The loss as a float: the mean of the first output (MindSpore's rule)."""
    if isinstance(outputs, (list, tuple)):
        outputs = outputs[0] if outputs else None
    if isinstance(outputs, Tensor):
        data = outputs._data  # a network's output is a native array (`data_ref()` only where it is not yet)
        if data is None or not hasattr(data, "ndim"):
            data = outputs.data_ref()
        if data.ndim == 0:  # the native array converts itself: a fifth of the numpy round trip's cost
            return float(data)
        return float(np.mean(outputs.asnumpy()))
    if isinstance(outputs, (int, float, np.number)):
        return float(outputs)
    return None


def _learning_rate(optimizer, step):
    if optimizer is None:
        return None
    lr = getattr(optimizer, "learning_rate", None)
    if isinstance(lr, Tensor) and lr.shape == ():  # a fixed rate (a Parameter): no numpy round trip
        return float(lr.data_ref())
    try:
        if callable(lr) and not isinstance(lr, Tensor):
            lr = lr(Tensor(np.int32(step)))
        value = lr.asnumpy() if isinstance(lr, Tensor) else np.asarray(lr)
        value = value.reshape(-1)
        return float(value[min(step, value.size - 1)] if value.size > 1 else value[0])
    except Exception:  # an optimizer whose rate is not a number, a Tensor or a schedule: no lr curve
        return None


def dataset_graph(dataset):
    """The pipeline as `DatasetGraph`: one node per dataset operation, children as in the pipeline."""
    from ..summary import lineage_pb2
    proto = lineage_pb2.DatasetGraph()
    _fill_dataset(proto, dataset)
    return proto


def _fill_dataset(proto, ds):
    param = proto.parameter
    param.mapStr["op_type"] = type(ds).__name__
    param.mapStr["op_module"] = type(ds).__module__.replace("openspore", "mindspore")
    for attr in ("batch_size", "num_parallel_workers", "num_samples", "num_shards", "shard_id", "count"):
        value = getattr(ds, attr, None)
        if isinstance(value, int) and not isinstance(value, bool):
            param.mapInt[attr] = value
    for attr in ("drop_remainder", "shuffle"):
        value = getattr(ds, attr, None)
        if isinstance(value, bool):
            param.mapBool[attr] = value
    for child in getattr(ds, "children", []) or []:
        _fill_dataset(proto.children.add(), child)


def user_defined_info(data):
    """`UserDefinedInfo` with one `user_info` entry per key (int → map_int32, float → map_double, else map_str)."""
    from ..summary import lineage_pb2
    info = lineage_pb2.UserDefinedInfo()
    for key, value in data.items():
        entry = info.user_info.add()
        if isinstance(value, int) and not isinstance(value, bool):
            entry.map_int32[key] = value
        elif isinstance(value, float):
            entry.map_double[key] = value
        else:
            entry.map_str[key] = str(value)
    return info
