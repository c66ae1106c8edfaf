"""Load one servable version in the worker: import its servable_config.py, load its models, check its methods."""
import importlib
import os
import sys

from ..register import registry
from .executor import MethodRunner
from .model_loader import LoadedModel


def import_config(directory, name):
    """Import `<name>.servable_config` from `directory` (once per process) → its ServableDef."""
    module = f"{name}.servable_config"
    if module not in sys.modules:
        if directory not in sys.path:
            sys.path.append(directory)
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - the user's config: report it with the import failure
            raise RuntimeError(f"import {module} failed, {type(exc).__name__}: {exc}") from exc
    spec = registry.SERVABLES.get(name)
    if spec is None or not spec.methods:
        raise RuntimeError(f"There is no method registered in {os.path.join(directory, name, 'servable_config.py')}"
                           ": register one with @register_method.")
    return spec


def _tensor_spec(shape, dtype):
    return {"dims": [int(d) for d in shape], "dtype": dtype.name, "known": True}


def _missing_models_hint(directory, name, models):
    """Where the model files go, and the script that writes them when the directory ships one (the example's
    prepare.py: a first `openspore serve examples/serving` before it ran lands here)."""
    files = sorted({f for decl in models.values() for f in ([decl.files] if isinstance(decl.files, str)
                                                           else decl.files)})
    hint = f"The model files {files} belong in a version folder such as '{os.path.join(directory, name, '1')}'."
    for script in ("prepare.py", os.path.join(name, "prepare.py")):
        path = os.path.join(directory, script)
        if os.path.isfile(path):
            hint += f" This servable directory has {script}: run `python {path}` first to write them."
            break
    return hint


class LoadedServable:
    """A servable version ready to run: `definition` (ServableDef), `models` and the method runner."""

    def __init__(self, directory, name, version, max_batch_size=None):
        self.directory, self.name, self.version = directory, name, version
        self.definition = import_config(directory, name)
        self.llm = None
        if self.definition.llm is not None:
            self._load_llm(max_batch_size)
            return
        version_dir = os.path.join(directory, name, str(version))
        if self.definition.models and version == 0:
            raise RuntimeError(f"There is no valid version directory of models while there are models declared in "
                               f"servable_config.py, servable directory: '{directory}', servable name: '{name}'. "
                               + _missing_models_hint(directory, name, self.definition.models))
        if self.definition.models and not os.path.isdir(version_dir):
            raise RuntimeError(f"Start servable failed: There is no specified version directory of models, specified "
                               f"version number: {version}, servable directory: '{directory}', servable name: "
                               f"'{name}'")
        self.models = {key: LoadedModel(decl, version_dir) for key, decl in self.definition.models.items()}
        self.runner = MethodRunner(self.definition, self.models)
        self.batch_size = max((m.batch_size for m in self.models.values()), default=1)

    def _load_llm(self, max_running):
        """A generation servable: the engine and its scheduler (one version per worker process: the declaration,
        and the `generate` method that reaches the runtime through it, are per servable name)."""
        from .llm_runtime import LLMRuntime
        decl = self.definition.llm
        if decl.runtime is not None:
            raise RuntimeError(f"Generation servable '{self.name}': a worker serves one version of it; serve version "
                               f"{decl.runtime.version} and {self.version} on different device ids.")
        self.llm = decl.runtime = LLMRuntime(decl, self.directory, self.name, self.version, max_running)
        self.models = {}
        self.runner = MethodRunner(self.definition, self.models)
        self.batch_size = self.llm.max_running

    def method_specs(self):
        """What the master needs per method: names and, where a value goes straight to or from a model, its
        per-instance shape and dtype."""
        specs = []
        for method in self.definition.methods.values():
            inputs = [None] * len(method.input_names)
            for stage in method.stages:
                if stage.kind != "model":
                    continue
                loaded = self.models[stage.target.key]
                sub = loaded.subgraphs[0]
                for j, (tag, index) in enumerate(stage.args):
                    if tag == 0 and inputs[index] is None:
                        inputs[index] = _tensor_spec(loaded.instance_shape(0, j), sub.input_dtypes[j])
            outputs = []
            for tag, index in method.outputs:
                spec = None
                if tag > 0 and method.stages[tag - 1].kind == "model":
                    loaded = self.models[method.stages[tag - 1].target.key]
                    sub = loaded.subgraphs[0]
                    spec = _tensor_spec(sub.output_shapes[index], sub.output_dtypes[index])
                elif tag == 0:
                    spec = inputs[index]
                outputs.append(spec)
            specs.append({"name": method.name, "input_names": list(method.input_names),
                          "output_names": list(method.output_names), "inputs": inputs, "outputs": outputs})
        return specs
