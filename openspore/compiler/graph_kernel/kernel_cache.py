"""openspore's own disk cache of fused kernels: a later process runs them without starting TorchInductor.

Inductor's FX-graph cache already skips the C++ compiler on a hit, but reaching it means importing Inductor
(5 to 20 s on a loaded 2-core machine) and re-tracing every cluster. So when a cluster is first compiled, its
result is also kept here, as what Inductor produced:

* `wrapper.py`: the generated wrapper module (its `call(args)` allocates the outputs and calls the kernels);
* `<name>.so`: each C++ kernel it calls, compiled (a Python extension module with one `kernel` function);
* `entry.json`: which global of the wrapper each `.so` is, and the measured choice (fused.py): `"fused"`, or
  `"op_by_op"` when the cluster ran faster unfused on this machine (later processes then load no kernel).

An entry's directory is written under a temporary name and renamed into place, so a reader sees a whole entry
or none. Its key holds everything the compiled code depends on besides the cluster and its input signature:
the torch version, the CPU's vector ISA (the kernels use its instructions), the thread count (baked into the
OpenMP loops), a digest of the source files of the cluster's primitives (their kernels were traced) and this
format's version. An entry is checked against op-by-op execution when it is kept, not when it is loaded.

On a hit the wrapper's source is executed with its `torch._inductor` imports replaced by stand-ins: a kernel
loader that hands back the cached `.so` functions, and lazy names that import the real Inductor object only if
the wrapper ever uses it (CPU wrappers of elementwise and reduction clusters do not).

>>> key = entry_key("Mul[]", ((4,), (1,), "float32", "cpu"))
>>> len(key)
40
"""
import ast
import hashlib
import importlib
import importlib.util
import json
import os
import platform
import shutil
import sys

from ... import context

FORMAT = 2  # 2: entry.json holds the measured choice
FUSED, OP_BY_OP = "fused", "op_by_op"
_INDUCTOR_PREFIX = "torch._inductor"


def entry_key(canonical, signature, sources=""):
    """The cache key of a cluster (its canonical text) compiled for one input signature, on this machine, from
    kernels whose source files have the digest `sources`."""
    import torch
    import torch.backends.cpu
    parts = (FORMAT, torch.__version__, platform.machine(), torch.backends.cpu.get_cpu_capability(),
             torch.get_num_threads(), sources, canonical, repr(signature))
    return hashlib.sha1(repr(parts).encode("utf-8")).hexdigest()


def entry_dir(key):
    return os.path.join(context.kernel_cache_dir(), "fused", key[:2], key)


def save(key, module):
    """Keep Inductor's wrapper `module` and the kernels it calls under `key`; returns the entry's directory, or
    None when the wrapper calls something that is not a compiled kernel file (nothing is written then)."""
    source_path = getattr(module, "__file__", None)
    if not source_path or not hasattr(module, "call"):
        return None
    kernels = {}
    for name, value in vars(module).items():
        owner = getattr(value, "__self__", None)
        path = getattr(owner, "__file__", "") or ""
        if type(value).__name__ == "builtin_function_or_method" and path.endswith(".so"):
            kernels[name] = path
    final = entry_dir(key)
    if os.path.isdir(final):
        return final
    os.makedirs(os.path.dirname(final), exist_ok=True)
    tmp = f"{final}.tmp{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        os.makedirs(tmp)
        shutil.copyfile(source_path, os.path.join(tmp, "wrapper.py"))
        for name, path in kernels.items():
            shutil.copyfile(path, os.path.join(tmp, f"{name}.so"))
        with open(os.path.join(tmp, "entry.json"), "w", encoding="utf-8") as f:
            json.dump({"format": FORMAT, "kernels": sorted(kernels), "choice": FUSED}, f)
        os.rename(tmp, final)  # atomic; fails if another process saved the same entry first (theirs is kept)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return final if os.path.isdir(final) else None
    return final


def load(key):
    """The cached wrapper's `call(args)` for `key`, or None on a miss. A broken entry is removed (so the next
    compile writes a good one) and reported as a miss."""
    directory = entry_dir(key)
    manifest = os.path.join(directory, "entry.json")
    if not os.path.isfile(manifest):
        return None
    try:
        with open(manifest, encoding="utf-8") as f:
            names = json.load(f)["kernels"]
        with open(os.path.join(directory, "wrapper.py"), encoding="utf-8") as f:
            source = f.read()
        namespace = _run_wrapper(source, os.path.join(directory, "wrapper.py"))
        for name in names:
            namespace[name] = _load_kernel(os.path.join(directory, f"{name}.so"), f"{key}_{name}")
        return namespace["call"]
    except Exception:  # noqa: BLE001 (a corrupt or foreign entry is a miss, never an error)
        remove(key)
        return None


def choice(key):
    """The choice kept for `key` (FUSED or OP_BY_OP), or None when there is no readable entry."""
    try:
        with open(os.path.join(entry_dir(key), "entry.json"), encoding="utf-8") as f:
            return json.load(f).get("choice", FUSED)
    except (OSError, ValueError, AttributeError):
        return None


def set_choice(key, value, timings=None):
    """Record the measured choice (and its timings, for the curious) in the entry of `key`: written to a
    temporary file and renamed over entry.json, so a reader sees the old manifest or the new one."""
    manifest = os.path.join(entry_dir(key), "entry.json")
    try:
        with open(manifest, encoding="utf-8") as f:
            data = json.load(f)
        data.update(choice=value, timings=timings or {})
        tmp = f"{manifest}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, manifest)
    except (OSError, ValueError):
        pass  # an entry removed meanwhile: the next process measures again


def remove(key):
    shutil.rmtree(entry_dir(key), ignore_errors=True)


def _run_wrapper(source, filename):
    """Execute the wrapper with stand-ins for what it imports from torch._inductor; returns its globals."""
    tree = ast.parse(source, filename)
    body, standins = [], {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith(_INDUCTOR_PREFIX):
            for alias in stmt.names:
                standins[alias.asname or alias.name] = (
                    _Precompiled if alias.name == "AsyncCompile" else _Lazy(stmt.module, alias.name))
            continue
        if isinstance(stmt, ast.If) and "__main__" in ast.dump(stmt.test):
            continue  # the benchmark entry point
        body.append(stmt)
    tree.body = body
    namespace = {"__name__": "openspore_fused_wrapper", "__file__": filename, **standins}
    exec(compile(tree, filename, "exec"), namespace)  # noqa: S102 (our own cache entry, written by save())
    return namespace


class _Precompiled:
    """Stands in for Inductor's AsyncCompile: the kernels are already compiled; load() sets them by name."""

    def cpp_pybinding(self, argtypes, source):
        return None

    def wait(self, scope):
        pass


class _Lazy:
    """A name the wrapper imported from Inductor, imported only when used."""

    def __init__(self, module, name):
        self._where = (module, name)

    def _target(self):
        module, name = self._where
        return getattr(importlib.import_module(module), name)

    def __call__(self, *args, **kwargs):
        return self._target()(*args, **kwargs)

    def __getattr__(self, attr):
        return getattr(self._target(), attr)


def _load_kernel(path, unique):
    """The `kernel` function of one compiled kernel extension module (its init reads where torch's
    tensor-to-data-pointer helper lives from the environment)."""
    import torch
    os.environ["_TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR"] = str(
        torch._C._dynamo.guards._torchinductor_pyobject_tensor_data_ptr)
    name = f"openspore_fused_{unique}.kernel"  # the last part must be `kernel`: the init function's name
    if name in sys.modules:
        return sys.modules[name].kernel
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module.kernel
