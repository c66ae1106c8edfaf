"""Import directions from DESIGN.md, checked on the source with `ast`:

    common/context ← backends ← core ← ops ← ir/compiler/runtime ← nn ← train/amp

A module may import its own layer and the layers below it. Module-level imports are checked strictly; an import
inside a function (lazy) that goes upward must be listed, with its reason, in LAZY_ALLOWED below. Torch may be
imported at module level only where DESIGN.md lets backend choice appear (the torch backend, and packages not
listed in TORCH_FREE).
"""
import ast
import os
import subprocess
import sys

import pytest

from tests.conftest import child_env

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(REPO, "openspore")

RANK = {"version": 0, "common": 0, "context": 0, "backends": 1, "core": 2, "ops": 3,
        "ir": 4, "compiler": 4, "runtime": 4, "nn": 5, "train": 6, "amp": 6}
# Layers that may import only the ranked layers (no services, datasets, serialization...).
CLOSED = {"common", "context", "version", "backends", "core", "ops"}
# Packages where `import torch` may not run at import time (kernels receive torch as an argument).
TORCH_FREE = {"common", "context", "version", "core", "ops", "ir", "nn", "lite"}
TORCH_BACKEND = "openspore/backends/torch_backend.py"
# The curated public API imports everything. A public-path shim that only re-exports a higher layer under a
# MindSpore module path (say a future `common/api.py` re-exporting `jit`) belongs here too, with its reason.
EXEMPT = {"openspore/__init__.py", "openspore/__main__.py",
          "openspore/common/api.py",  # `mindspore.common.api.jit`: a public path re-exporting the runtime's jit
          # `mindspore.nn.metrics` / `mindspore.nn.Accuracy` (1.x paths) re-export the metrics that live in train
          "openspore/nn/metrics.py",
          # `mindspore.common.parameter` / `mindspore.common.tensor`: public module paths re-exporting core's classes
          "openspore/common/parameter.py", "openspore/common/tensor.py"}

# (importing file, imported module prefix): lazy imports that go against the layering, each with its reason.
LAZY_ALLOWED = {
    # `mindspore.common.initializer` is a public path in `common`, but `initializer(...)` returns a lazily
    # initialised Tensor and draws from the shared RNG stream that lives in core.
    ("openspore/common/initializer.py", "openspore.core.tensor"),
    ("openspore/common/initializer.py", "openspore.core.random"),
    # `mindspore.ops` re-exports the torch-style collectives (`ops.all_reduce`, `ops.init_process_group`), which
    # live in communication (they start the job through its rendezvous); ops/__init__ looks them up on first use.
    ("openspore/ops/__init__.py", "openspore.communication"),
}


def _modules():
    for root, dirs, files in os.walk(PACKAGE):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                yield os.path.relpath(path, REPO).replace(os.sep, "/"), path


def _module_name(rel):
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _package_of(rel):
    name = _module_name(rel)
    return name if rel.endswith("__init__.py") else name.rpartition(".")[0]


def _layer(module):
    """'openspore.core.tensor' → 'core'; 'openspore' → None."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "openspore" else None


class _Imports(ast.NodeVisitor):
    """Collects (module, line, lazy) for every import; `if TYPE_CHECKING:` blocks are skipped."""

    def __init__(self, package):
        self.package = package
        self.found = []
        self.depth = 0

    def _visit_scope(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _visit_scope

    def visit_If(self, node):
        test = node.test
        if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
                (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            self.found.append((alias.name, node.lineno, self.depth > 0))

    def visit_ImportFrom(self, node):
        if node.level:
            base = self.package.split(".")
            base = base[:len(base) - (node.level - 1)]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        if module == "openspore" or (node.level and not node.module and module.count(".") == 0):
            # `from openspore import ops` / `from .. import backends`: the layer is the imported name
            for alias in node.names:
                self.found.append((f"{module}.{alias.name}", node.lineno, self.depth > 0))
        else:
            self.found.append((module, node.lineno, self.depth > 0))


def _imports(rel, path):
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), filename=path)
    visitor = _Imports(_package_of(rel))
    visitor.visit(tree)
    return visitor.found


def _violation(rel, target):
    """Why importing `target` from `rel` breaks the layering, or None."""
    src = _layer(_module_name(rel)) if rel != "openspore/__init__.py" else None
    if src is None:
        return None
    dst = _layer(target) if target.startswith("openspore") else None
    if target.split(".")[0] != "openspore" or dst is None or dst == src:
        return None
    if src == "lite" and RANK.get(dst, 0) >= RANK["nn"]:
        return "lite runs exported IR without nn/train"
    if src in RANK and dst in RANK and RANK[dst] > RANK[src]:
        return f"'{src}' (layer {RANK[src]}) must not import '{dst}' (layer {RANK[dst]})"
    if src in CLOSED and dst not in RANK:
        return f"'{src}' must not import '{dst}', which is outside the core layers"
    return None


def _all_imports():
    return [(rel, module, line, lazy) for rel, path in _modules() if rel not in EXEMPT
            for module, line, lazy in _imports(rel, path)]


def test_the_package_is_found():
    rels = {rel for rel, _ in _modules()}
    assert {"openspore/core/tensor.py", "openspore/ops/defs/side_effect.py", "openspore/context.py"} <= rels


def test_module_level_imports_follow_the_layers():
    problems = [f"{rel}:{line} imports {module}: {why}" for rel, module, line, lazy in _all_imports()
                if not lazy and (why := _violation(rel, module))]
    assert not problems, "\n".join(problems)


def test_lazy_upward_imports_are_allow_listed():
    problems = []
    for rel, module, line, lazy in _all_imports():
        if lazy and (why := _violation(rel, module)):
            if not any(rel == f and (module == m or module.startswith(m + ".")) for f, m in LAZY_ALLOWED):
                problems.append(f"{rel}:{line} imports {module} inside a function: {why} (add it to LAZY_ALLOWED "
                                "with the reason, or move the code)")
    assert not problems, "\n".join(problems)


def test_allow_list_has_no_stale_entries():
    used = {(rel, m) for rel, module, _, lazy in _all_imports() if lazy
            for f, m in LAZY_ALLOWED if rel == f and (module == m or module.startswith(m + "."))}
    assert used == LAZY_ALLOWED, f"unused allow-list entries: {sorted(LAZY_ALLOWED - used)}"


def test_no_module_level_torch_outside_the_torch_backend():
    problems = []
    for rel, module, line, lazy in _all_imports():
        if lazy or module.split(".")[0] != "torch" or rel == TORCH_BACKEND:
            continue
        layer = _layer(_module_name(rel))
        if layer in TORCH_FREE or layer == "backends":
            problems.append(f"{rel}:{line} imports {module} at module level")
    assert not problems, "\n".join(problems)


def test_the_checker_resolves_relative_imports():
    found = dict((m, lazy) for m, _, lazy in _imports("openspore/core/tensor.py", os.path.join(PACKAGE, "core", "tensor.py")))
    assert "openspore.backends" in found and found["openspore.backends"] is False
    assert "openspore.common" in found or "openspore.common.dtype" in found
    assert found.get("openspore.common.initializer") is True
    assert _violation("openspore/core/x.py", "openspore.ops.defs") is not None
    assert _violation("openspore/ops/x.py", "openspore.core.tensor") is None
    assert _violation("openspore/backends/x.py", "openspore.core") is not None
    assert _violation("openspore/common/x.py", "openspore.context") is None
    assert _violation("openspore/nn/x.py", "openspore.train") is not None
    assert _violation("openspore/ops/x.py", "openspore.nn.cell") is not None


NUMPY_ONLY_SCRIPT = """
import sys
import numpy as np
import openspore as ms
from openspore import ops
assert ms.get_context('backend') == 'numpy'
x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
w = ms.Parameter(ms.Tensor(np.ones((3, 2), np.float32)), name='w')
loss, grads = ms.value_and_grad(lambda t: (ops.matmul(t, w) * 2 + 1).sum(), 0, [w])(x)
ops.assign(w, grads[1][0])
assert float(loss) == 64.0, loss
assert len(ms.ops.primitive_table()) > 10
print('torch' in sys.modules)
"""


def test_the_numpy_backend_never_imports_torch():
    env = child_env(OPENSPORE_BACKEND="numpy")
    res = subprocess.run([sys.executable, "-c", NUMPY_ONLY_SCRIPT], capture_output=True, text=True, env=env,
                         cwd=REPO, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "False", "importing openspore on the numpy backend pulled in torch"


@pytest.mark.parametrize("rel", ["openspore/backends/numpy_backend.py"])
def test_numpy_backend_file_has_no_torch_at_all(rel):
    assert not any(m.split(".")[0] == "torch" for m, _, _ in _imports(rel, os.path.join(REPO, rel)))
