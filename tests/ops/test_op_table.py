"""Tests generated from the primitive table (OpInfo style): each primitive's samples drive forward checks
against a float64 numpy reference, inference, backend agreement and gradients against finite differences."""
import numpy as np
import pytest

import openspore as ms
from openspore.core.primitive import PRIMITIVES, AbstractTensor, Primitive
from tests.device import use_backend

from .op_harness import all_samples, as_tuple, grad_indices, numeric_grad, numpy_outputs, run, vjp_numpy64

SAMPLES = all_samples()
IDS = [f"{name}-{k}{'-' + s.name if s.name else ''}" for name, k, _, s in SAMPLES]
DIFF_SAMPLES = [(n, k, c, s) for n, k, c, s in SAMPLES if c.differentiable and grad_indices(c, s)]
DIFF_IDS = [f"{name}-{k}" for name, k, _, _ in DIFF_SAMPLES]


def test_completeness():
    """Every primitive has inference, a backward rule or a reason, kernels on both backends, and samples."""
    problems = []
    for name, cls in PRIMITIVES.items():
        if cls.infer is Primitive.infer:
            problems.append(f"{name}: no infer")
        if cls.differentiable and cls.bprop is Primitive.bprop:
            problems.append(f"{name}: no bprop and not marked non-differentiable")
        if not cls.differentiable and not cls.nondiff_reason:
            problems.append(f"{name}: non-differentiable without a reason")
        for backend in ("numpy", "torch"):
            if not callable(getattr(cls, backend, None)):
                problems.append(f"{name}: no {backend} kernel")
        if not list(cls.samples(np.random.default_rng(0))):
            problems.append(f"{name}: no samples")
    assert not problems, "\n".join(problems)


def _export_states():
    """{format: {primitive name: 'written' | 'decomposed' | 'marked' | None}} for every primitive."""
    from openspore.serialization.mindir_write_ops import supported
    from openspore.serialization.onnx_ops import CONVERTERS
    writers = {"MINDIR": lambda name: supported(name) or name == "Depend",  # Depend: written as MindIR plumbing
               "ONNX": lambda name: name in CONVERTERS}
    states = {}
    for fmt, writes in writers.items():
        states[fmt] = {}
        for name, cls in PRIMITIVES.items():
            marked = fmt in getattr(cls, "not_exportable", {})
            if writes(name):
                states[fmt][name] = "written" if not marked else "written and marked"
            elif callable(getattr(cls, "export_decomposition", None)):
                states[fmt][name] = "decomposed" if not marked else "decomposed and marked"
            else:
                states[fmt][name] = "marked" if marked else None
    return states


def test_every_primitive_is_exported_or_marked_with_a_reason():
    """For each file format, every primitive has a converter, a decomposition (`export_decomposition`) or an
    explicit `not_exportable` mark with its reason (ops/defs/_export.py); prints the export coverage."""
    problems = []
    states = _export_states()
    for fmt, by_name in states.items():
        for name, state in by_name.items():
            if state is None:
                problems.append(f"{name}: no {fmt} converter, no export_decomposition and no not_exportable mark")
            elif "and marked" in state:
                problems.append(f"{name}: marked not exportable to {fmt} but it is {state.split()[0]}")
            elif state == "marked" and len(PRIMITIVES[name].not_exportable[fmt]) < 20:
                problems.append(f"{name}: the {fmt} mark needs a reason, got {PRIMITIVES[name].not_exportable[fmt]!r}")
    summary = ", ".join(f"{fmt} {sum(s == 'written' for s in v.values())} written + "
                        f"{sum(s == 'decomposed' for s in v.values())} decomposed, "
                        f"{sum(s == 'marked' for s in v.values())} marked" for fmt, v in states.items())
    print(f"\nexport coverage of {len(PRIMITIVES)} primitives: {summary}")
    assert not problems, "\n".join(problems)


def _unimported_primitive_modules(folder, registered):
    """Modules in `folder` defining @register primitive classes whose module name is not in `registered`."""
    import ast
    import os
    out = []
    for f in sorted(os.listdir(folder)):
        if not f.endswith(".py") or f.startswith("__"):
            continue
        tree = ast.parse(open(os.path.join(folder, f), encoding="utf-8").read())
        defines = any(isinstance(n, ast.ClassDef) and any(isinstance(d, ast.Name) and d.id == "register"
                                                          for d in n.decorator_list) for n in tree.body)
        if defines and f[:-3] not in registered:
            out.append(f)
    return out


def test_every_primitive_module_is_imported(tmp_path):
    """A primitive file added to ops/defs without an import in ops/defs/__init__.py would register nothing and go
    unnoticed by the table-driven tests: every module there defining @register classes must have registered."""
    import os
    import openspore.ops.defs as defs
    registered = {cls.__module__.rsplit(".", 1)[1] for cls in PRIMITIVES.values()}
    assert _unimported_primitive_modules(os.path.dirname(defs.__file__), registered) == []
    (tmp_path / "math_new.py").write_text("@register\nclass Frobnicate(Primitive):\n    pass\n")
    (tmp_path / "_helpers.py").write_text("def helper():\n    pass\n")
    assert _unimported_primitive_modules(str(tmp_path), registered) == ["math_new.py"]


@pytest.mark.parametrize("name,k,cls,sample", SAMPLES, ids=IDS)
def test_forward_matches_float64_reference(name, k, cls, sample):
    reference = numpy_outputs(run(cls, sample, "numpy", upcast=True))
    for backend in ("numpy", "torch"):
        got = numpy_outputs(run(cls, sample, backend))
        assert len(got) == len(reference)
        for g, r in zip(got, reference):
            assert g.shape == r.shape, f"{backend}: shape {g.shape} vs reference {r.shape}"
            if g.dtype.kind in "fc":
                np.testing.assert_allclose(g.astype(np.complex128 if g.dtype.kind == "c" else np.float64), r,
                                           rtol=max(sample.rtol, 1e-4 if g.dtype != np.float64 else 1e-7),
                                           atol=max(sample.atol, 1e-5 if g.dtype != np.float64 else 1e-8),
                                           err_msg=f"{name} on {backend}")
            else:
                np.testing.assert_array_equal(g, r.astype(g.dtype), err_msg=f"{name} on {backend}")


@pytest.mark.parametrize("name,k,cls,sample", SAMPLES, ids=IDS)
def test_infer_matches_kernels_and_backends_agree(name, k, cls, sample):
    outs = {}
    for backend in ("numpy", "torch"):
        use_backend(backend)
        from .op_harness import to_args
        args = to_args(sample.args)
        prim = cls(**sample.attrs)
        inferred = as_tuple(prim.infer(*args))
        ms.set_seed(1234)
        out = as_tuple(prim(*args))
        assert len(inferred) == len(out)
        for a, o in zip(inferred, out):
            assert isinstance(a, AbstractTensor)
            assert len(a.shape) == len(o.shape) and all(d in (-1, e) for d, e in zip(a.shape, o.shape)), \
                f"{backend}: inferred {a.shape}, kernel gave {o.shape}"  # -1: a value-dependent size
            assert a.dtype is o.dtype, f"{backend}: inferred {a.dtype}, kernel gave {o.dtype}"
        outs[backend] = [o.asnumpy() for o in out]
    for t, n in zip(outs["torch"], outs["numpy"]):
        if t.dtype.kind in "fc":  # complex results (FFT) compare with the same float tolerance
            wide = np.complex128 if t.dtype.kind == "c" else np.float64
            np.testing.assert_allclose(t.astype(wide), n.astype(wide), rtol=1e-4, atol=1e-5)
        else:
            np.testing.assert_array_equal(t, n)


@pytest.mark.parametrize("name,k,cls,sample", DIFF_SAMPLES, ids=DIFF_IDS)
def test_gradient_matches_finite_differences(name, k, cls, sample):
    analytic, cots, idx = vjp_numpy64(cls, sample)
    numeric = numeric_grad(cls, sample, cots, idx)
    for i, a, n in zip(idx, analytic, numeric):
        np.testing.assert_allclose(a, n, rtol=1e-4, atol=1e-6, err_msg=f"{name}: gradient of input {i}")


@pytest.mark.parametrize("name,k,cls,sample", DIFF_SAMPLES, ids=DIFF_IDS)
def test_gradient_backends_agree(name, k, cls, sample):
    from .op_harness import to_args
    results = {}
    for backend in ("numpy", "torch"):
        use_backend(backend)
        idx = grad_indices(cls, sample)
        args = to_args(sample.args)
        prim = cls(**sample.attrs)

        def f(*diff):
            full = list(args)
            for i, a in zip(idx, diff):
                full[i] = a
            ms.set_seed(1234)
            total = None
            for r in as_tuple(prim(*full)):
                if r.dtype.kind == "float":
                    s = (r * r).sum()
                    total = s if total is None else total + s
            return total
        grads = ms.grad(f, grad_position=tuple(range(len(idx))))(*[args[i] for i in idx])
        grads = grads if isinstance(grads, tuple) else (grads,)  # MindSpore unwraps a one-element position tuple
        results[backend] = [g.asnumpy().astype(np.float64) for g in grads]
    for t, n in zip(results["torch"], results["numpy"]):
        np.testing.assert_allclose(t, n, rtol=1e-3, atol=1e-4)
