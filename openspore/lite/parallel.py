"""`ModelParallelRunner`: a pool of model instances answering concurrent `predict` calls.

Instances share the converted program and its weights (read-only at inference) but each has its own compiled
executable; a request takes a free instance from a queue, so `workers_num` requests run at once (numpy releases
the GIL inside its kernels, so they overlap on multi-core machines).
"""
import os
import queue

from .context import Context
from .model import Model


class ModelParallelRunner:
    def __init__(self):
        self._pool = None
        self._workers = 0
        self._first = None

    def build_from_file(self, model_path, context=None, model_type=None):
        from .types import ModelType
        context = context or Context()
        n = context.parallel.workers_num or min(4, os.cpu_count() or 1)
        path = os.fspath(model_path)
        kind = model_type or (ModelType.MINDIR if path.endswith(".mindir") else ModelType.MINDIR_LITE)
        first = Model()
        first.build_from_file(path, kind, context)
        self._pool = queue.Queue()
        self._pool.put(first)
        for _ in range(n - 1):
            m = Model()
            m.build_from_program(first._program, context)
            self._pool.put(m)
        self._workers, self._first = n, first

    @property
    def workers_num(self):
        return self._workers

    def _check(self, where):
        if self._pool is None:
            raise RuntimeError(f"ModelParallelRunner.{where}: call build_from_file first.")

    def get_inputs(self):
        self._check("get_inputs")
        return self._first.get_inputs()

    def get_outputs(self):
        self._check("get_outputs")
        return self._first.get_outputs()

    def predict(self, inputs, outputs=None):
        """Run one request on a free instance (blocks while all are busy); thread-safe."""
        self._check("predict")
        model = self._pool.get()
        try:
            return model.predict(inputs)
        finally:
            self._pool.put(model)
