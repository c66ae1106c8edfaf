"""Load a declared model of one servable version and run it on lists of instances.

A model with a batch dim has batch size B (dim 0 of its first batched input). `predict` takes any number of
instances, runs them in chunks of at most B and slices the outputs back per instance. A model whose batch dim is
fixed in the file (MindIR exported with a static shape) gets every chunk padded to B with copies of the chunk's
first instance, as MindSpore Serving does; checkpoint networks run each chunk at its own size.
"""
import logging
import os

import numpy as np

from ...common.tensor import describe

logger = logging.getLogger("openspore.serving")

# A MindIR model exported with a dynamic batch dim (-1) runs chunks of at most this many instances.
DYNAMIC_BATCH_SIZE = 64


class ModelLoadError(RuntimeError):
    """A model that cannot be loaded or does not fit its declaration."""


def _without_leading_ones(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


class InstanceError(Exception):
    """One instance cannot run: the message says why."""


class _Subgraph:
    """One model file loaded: `run(list of batched numpy arrays) -> tuple of numpy arrays`, plus input infos."""

    def __init__(self, run, input_shapes, input_dtypes, source):
        self.run = run
        self.input_shapes = [tuple(s) for s in input_shapes]
        self.input_dtypes = [np.dtype(d) for d in input_dtypes]
        self.source = source
        self.output_shapes = None
        self.output_dtypes = None


def _to_numpy(outputs):
    items = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    result = []
    for item in items:
        if hasattr(item, "asnumpy"):
            item = item.asnumpy()
        result.append(np.asarray(item))
    return tuple(result)


def _cell_runner(cell):
    import openspore as ms

    def run(arrays):
        return _to_numpy(cell(*[ms.Tensor(a) for a in arrays]))
    return run


def _apply_engine(decl):
    """The declared model's `Context(inference_engine=...)`, applied in this worker process."""
    engine = getattr(decl.context, "options", {}).get("inference_engine") if decl.context is not None else None
    if engine is not None:
        import openspore as ms
        ms.set_context(inference_engine=engine)


def _load_mindir(path):
    import openspore as ms
    from openspore import nn
    if not hasattr(ms, "load") or not hasattr(nn, "GraphCell"):
        raise ModelLoadError(f"Cannot load the MindIR model {path}: this openspore has no 'openspore.load' / "
                             "'nn.GraphCell' yet; declare the model with model_format='Checkpoint' instead.")
    graph = ms.load(path)
    cell = nn.GraphCell(graph)
    cell.set_train(False)
    shapes = [tuple(int(d) for d in info.shape) for info in graph.inputs]
    dtypes = [ms.dtype_to_nptype(info.dtype) for info in graph.inputs]
    return _Subgraph(_cell_runner(cell), shapes, dtypes, path)


def _load_checkpoint(path, decl):
    import openspore as ms
    from openspore import nn
    net = decl.network()
    if not isinstance(net, nn.Cell):
        raise ModelLoadError(f"The 'network' of model '{decl.key}' should return an nn.Cell, but returned "
                             f"{type(net).__name__}.")
    params = ms.load_checkpoint(path)
    not_loaded, _ = ms.load_param_into_net(net, params)
    if not_loaded:
        raise ModelLoadError(f"The checkpoint {path} does not hold the network parameters {sorted(not_loaded)}.")
    net.set_train(False)
    shapes = [shape for shape, _ in decl.inputs]
    dtypes = [dtype for _, dtype in decl.inputs]
    return _Subgraph(_cell_runner(net), shapes, dtypes, path)


class LoadedModel:
    """A declared model loaded for one version: subgraphs (one per model file), batch size and input layout."""

    def __init__(self, decl, version_dir):
        self.decl = decl
        self.key = decl.key
        self.subgraphs = []
        for name in decl.files:
            path = os.path.join(version_dir, name)
            if not os.path.isfile(path):
                raise ModelLoadError(f"Load model failed, the model file {path} does not exist.")
            _apply_engine(decl)
            if decl.format == "MindIR":
                self.subgraphs.append(_load_mindir(path))
            elif decl.format == "Checkpoint":
                self.subgraphs.append(_load_checkpoint(path, decl))
            else:
                raise ModelLoadError(f"Load model {path} failed: model format {decl.format} is not supported by "
                                     "openspore, which loads MindIR and Checkpoint models.")
        self._layout()
        for index, sub in enumerate(self.subgraphs):
            self._warm_up(index, sub)

    def _layout(self):
        decl = self.decl
        first = self.subgraphs[0]
        count = len(first.input_shapes)
        bad = [i for i in decl.without_batch_dim_inputs if i >= count]
        if bad:
            raise ModelLoadError(f"Model '{self.key}': 'without_batch_dim_inputs' {list(bad)} out of range, the model "
                                 f"has {count} inputs.")
        self.batched = [decl.with_batch_dim and i not in decl.without_batch_dim_inputs for i in range(count)]
        self.fixed_batch = decl.format != "Checkpoint"
        self.batch_size = 1
        if decl.with_batch_dim:
            sizes = set()
            for sub in self.subgraphs:
                if len(sub.input_shapes) != count:
                    raise ModelLoadError(f"Model '{self.key}': every subgraph should have {count} inputs, but "
                                         f"{sub.source} has {len(sub.input_shapes)}.")
                for i, shape in enumerate(sub.input_shapes):
                    if not self.batched[i]:
                        continue
                    if not shape:
                        raise ModelLoadError(f"Model '{self.key}': input {i} of {sub.source} is a scalar, it has no "
                                             "batch dim (declare it in 'without_batch_dim_inputs').")
                    if shape[0] == -1:
                        self.fixed_batch = False
                        sizes.add(DYNAMIC_BATCH_SIZE)
                    elif shape[0] <= 0:
                        raise ModelLoadError(f"Model '{self.key}': the batch dim of input {i} of {sub.source} is "
                                             f"{shape[0]}, it should be > 0.")
                    else:
                        sizes.add(shape[0])
            if len(sizes) > 1:
                raise ModelLoadError(f"Model '{self.key}': the batch dims of the model inputs differ ({sorted(sizes)});"
                                     " every batched input (and every subgraph) should have the same batch size.")
            if sizes:
                self.batch_size = sizes.pop()

    def instance_shape(self, subgraph, i):
        shape = self.subgraphs[subgraph].input_shapes[i]
        return shape[1:] if self.batched[i] else shape

    def _warm_up(self, index, sub):
        arrays = []
        for shape, dtype in zip(sub.input_shapes, sub.input_dtypes):
            shape = tuple((self.batch_size if k == 0 else 1) if d == -1 else d for k, d in enumerate(shape))
            arrays.append(np.zeros(shape, dtype))
        try:
            outputs = sub.run(arrays)
        except Exception as exc:
            raise ModelLoadError(f"Model '{self.key}' ({sub.source}) failed its warm-up run with zero inputs "
                                 f"{[describe(a) for a in arrays]}: {type(exc).__name__}: {exc}") from exc
        if self.decl.with_batch_dim:
            for k, out in enumerate(outputs):
                if out.ndim == 0 or out.shape[0] != self.batch_size:
                    raise ModelLoadError(f"Model '{self.key}' ({sub.source}): output {k} has shape "
                                         f"{list(out.shape)}, its dim 0 should be the batch size {self.batch_size}.")
        sub.output_shapes = [tuple(o.shape[1:]) if self.decl.with_batch_dim else tuple(o.shape) for o in outputs]
        sub.output_dtypes = [o.dtype for o in outputs]

    def inputs_count(self, subgraph=0):
        return len(self.subgraphs[subgraph].input_shapes)

    def outputs_count(self, subgraph=0):
        return len(self.subgraphs[subgraph].output_shapes)

    def check_instance(self, subgraph, values):
        """The instance's inputs as arrays of the model's per-instance shapes; InstanceError if one does not fit."""
        sub = self.subgraphs[subgraph]
        if len(values) != len(sub.input_shapes):
            raise InstanceError(f"The inputs count {len(values)} not equal to the count {len(sub.input_shapes)} "
                                f"defined in model '{self.key}'")
        checked = []
        for i, value in enumerate(values):
            want_dtype = sub.input_dtypes[i]
            shape = self.instance_shape(subgraph, i)
            if not isinstance(value, (np.ndarray, np.generic)):
                got = describe(value) if isinstance(value, (str, bytes)) else type(value).__name__
                raise InstanceError(f"Given model input {i} should be a tensor of type {want_dtype.name} and shape "
                                    f"{list(shape)}, but got {got}")
            value = np.asarray(value)
            if value.dtype != want_dtype:
                raise InstanceError(f"Given model input {i} data type {value.dtype.name} not match the data type "
                                    f"{want_dtype.name} defined in model (input shape {list(value.shape)})")
            if -1 in shape:
                ok = len(shape) == value.ndim and all(w in (-1, s) for w, s in zip(shape, value.shape))
                if not ok:
                    raise InstanceError(f"Given model input {i} shape {list(value.shape)} not match the shape "
                                        f"{list(shape)} defined in model")
                checked.append(value)
                continue
            want = int(np.prod(shape, dtype=np.int64)) if shape else 1
            if value.size != want:
                raise InstanceError(f"Given model input {i} size {value.size * value.itemsize} not match the size "
                                    f"{want * want_dtype.itemsize} defined in model: got shape {list(value.shape)}, "
                                    f"the model expects shape {list(shape)} ({want_dtype.name}) per instance")
            # The size alone would let [1024] pass for [1, 32, 32]: the dims must agree too, apart from leading
            # dims of 1 (a client may send [32, 32] for [1, 32, 32], or a scalar as [1]).
            if _without_leading_ones(value.shape) != _without_leading_ones(shape):
                raise InstanceError(f"Given model input {i} shape {list(value.shape)} not match the shape "
                                    f"{list(shape)} defined in model ({want_dtype.name} per instance)")
            checked.append(value.reshape(shape))
        return checked

    def predict(self, subgraph, instances):
        """Run checked instances (lists of arrays) in chunks of the batch size → per-instance output tuples."""
        sub = self.subgraphs[subgraph]
        results = []
        for start in range(0, len(instances), self.batch_size):
            chunk = instances[start:start + self.batch_size]
            n = len(chunk)
            arrays = []
            for i in range(len(sub.input_shapes)):
                if not self.batched[i]:
                    arrays.append(chunk[0][i])
                    continue
                rows = [inst[i] for inst in chunk]
                if self.fixed_batch and n < self.batch_size:
                    rows.extend([chunk[0][i]] * (self.batch_size - n))
                arrays.append(np.stack(rows))
            outputs = sub.run(arrays)
            if not self.decl.with_batch_dim:
                results.append(outputs)
                continue
            for k in range(n):
                results.append(tuple(out[k] for out in outputs))
        return results

    def call_instances(self, instances, subgraph, where):
        """`Model.call`: check and run instances; any failure raises RuntimeError naming the call."""
        if not 0 <= subgraph < len(self.subgraphs):
            raise RuntimeError(f"{where} failed: The model does not have subgraph of index {subgraph}")
        try:
            checked = [self.check_instance(subgraph, list(inst)) for inst in instances]
            return self.predict(subgraph, checked)
        except InstanceError as exc:
            raise RuntimeError(f"{where} failed: {exc}") from None
