"""MindSpore 2.10 public-API coverage of openspore (a development tool, not run in CI).

Two steps:

1. ``collect`` walks the public modules of a *real* MindSpore installed in a separate environment (a black box:
   this file is run by that environment's Python, which imports ``mindspore``; openspore never does) and writes
   ``tools/mindspore_2_10_public_names.json``: ``{module: [public names]}``.

       python tools/api_coverage.py collect --mindspore-python /work/msenv/bin/python

2. ``report`` (the default) maps every ``mindspore.X`` module onto ``openspore.X``, counts which names openspore
   has, and writes ``docs/api_coverage.md`` (counts per module, totals for the headline groups, missing names).

       python tools/api_coverage.py report

A module's public names are its ``__all__`` when it has one, otherwise its non-underscore attributes that are
not modules. A name ``__all__`` lists that the module itself lacks (MindSpore 2.10's top level lists
``register_op_infer``, ``CustomPassType`` and others it does not define) is nobody's API: ``collect`` keeps such
names apart (``listed_but_absent``) and they are not counted. A name counts as present when
``hasattr(openspore_module, name)`` is true.
"""
import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NAMES_FILE = os.path.join(HERE, "mindspore_2_10_public_names.json")
REPORT_FILE = os.path.join(ROOT, "docs", "api_coverage.md")

# The public modules of MindSpore 2.10's API reference (and the 1.x paths that still import in 2.x).
MODULES = [
    "mindspore", "mindspore.common", "mindspore.common.dtype", "mindspore.common.initializer",
    "mindspore.common.tensor", "mindspore.common.parameter",
    "mindspore.ops", "mindspore.ops.functional", "mindspore.ops.composite", "mindspore.ops.operations",
    "mindspore.nn", "mindspore.nn.probability", "mindspore.nn.probability.distribution",
    "mindspore.nn.probability.bijector", "mindspore.nn.probability.bnn_layers",
    "mindspore.dataset", "mindspore.dataset.vision", "mindspore.dataset.transforms", "mindspore.dataset.text",
    "mindspore.dataset.audio",
    "mindspore.train", "mindspore.train.callback", "mindspore.train.metrics", "mindspore.train.serialization",
    "mindspore.numpy", "mindspore.numpy.fft",
    "mindspore.scipy", "mindspore.scipy.linalg", "mindspore.scipy.optimize", "mindspore.scipy.fft",
    "mindspore.mint", "mindspore.mint.nn", "mindspore.mint.nn.functional", "mindspore.mint.optim",
    "mindspore.mint.linalg", "mindspore.mint.special", "mindspore.mint.distributed",
    "mindspore.communication", "mindspore.communication.management", "mindspore.amp",
    "mindspore.experimental", "mindspore.experimental.optim", "mindspore.experimental.optim.lr_scheduler",
    "mindspore.mindrecord", "mindspore.log", "mindspore.runtime", "mindspore.device_context",
    "mindspore.boost", "mindspore.rewrite", "mindspore.hal", "mindspore.profiler", "mindspore.utils",
    "mindspore.parallel", "mindspore.ops.primitive",
    # device_context has only submodules (no names of its own): its API is in these
    "mindspore.device_context.cpu", "mindspore.device_context.cpu.op_tuning", "mindspore.device_context.gpu",
    "mindspore.device_context.gpu.op_precision", "mindspore.device_context.gpu.op_tuning",
    "mindspore.device_context.ascend", "mindspore.device_context.ascend.op_precision",
    "mindspore.device_context.ascend.op_tuning", "mindspore.device_context.ascend.op_debug",
]

# The groups the "Done when" measures (≥ 90% each): a group is the module and its listed submodules.
HEADLINE = {
    "mindspore": ["mindspore"],
    "mindspore.ops": ["mindspore.ops"],
    "mindspore.nn": ["mindspore.nn"],
    "mindspore.dataset": ["mindspore.dataset", "mindspore.dataset.vision", "mindspore.dataset.transforms",
                          "mindspore.dataset.text", "mindspore.dataset.audio"],
    "mindspore.train": ["mindspore.train"],
}


def _public_names(module):
    """`__all__` when the module declares it, else its non-underscore, non-module attributes (identifiers only:
    MindSpore's top-level `__all__` carries a few stray strings such as '.')."""
    import types
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")
                 and not isinstance(getattr(module, n, None), types.ModuleType)]
    return sorted({str(n) for n in names if str(n).isidentifier() and not str(n).startswith("_")})


def collect_here(out_path):
    """Runs inside the MindSpore environment: import each module and record its public names."""
    import warnings
    warnings.filterwarnings("ignore")
    result, failed, absent = {}, {}, {}
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # a module this MindSpore build does not have: recorded, not fatal
            failed[name] = f"{type(exc).__name__}: {exc}"[:300]
            continue
        names = _public_names(module)
        result[name] = [n for n in names if hasattr(module, n)]
        if len(result[name]) != len(names):
            absent[name] = [n for n in names if not hasattr(module, n)]
    import mindspore
    data = {"mindspore_version": mindspore.__version__, "modules": result, "not_importable": failed,
            "listed_but_absent": absent}
    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, out_path)
    print(f"wrote {sum(len(v) for v in result.values())} names from {len(result)} modules to {out_path}")


def collect(mindspore_python):
    """Run `collect_here` under the MindSpore environment's Python, from a neutral directory."""
    with tempfile.TemporaryDirectory() as cwd:
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env["GLOG_v"] = "3"
        subprocess.run([mindspore_python, os.path.abspath(__file__), "_collect_here", NAMES_FILE],
                       cwd=cwd, env=env, check=True)


def _openspore_module(ms_name):
    target = "openspore" + ms_name[len("mindspore"):]
    try:
        return importlib.import_module(target), None
    except ImportError as exc:
        return None, str(exc).splitlines()[0][:160]


def _present(module, name):
    try:
        return hasattr(module, name)
    except Exception:  # a lazy attribute that fails to load counts as missing
        return False


def measure(data):
    """{module: (present names, missing names, import error or None)} for every collected module."""
    sys.path.insert(0, ROOT)
    rows = {}
    for ms_name, names in sorted(data["modules"].items()):
        module, error = _openspore_module(ms_name)
        have = [n for n in names if module is not None and _present(module, n)]
        missing = [n for n in names if n not in set(have)]
        rows[ms_name] = (have, missing, error)
    return rows


def render(data, rows):
    def pct(a, b):
        return f"{100.0 * a / b:.1f}%" if b else "—"
    lines = ["# MindSpore public-API coverage", "",
             f"Generated by `python tools/api_coverage.py report` from the public names of MindSpore "
             f"{data['mindspore_version']} (`tools/mindspore_2_10_public_names.json`, written by "
             "`tools/api_coverage.py collect` in a separate MindSpore environment). A name is present when "
             "`hasattr(openspore.<module>, name)` is true.", "",
             "## Headline groups (target ≥ 90%)", "", "| group | present | total | coverage |", "|---|---:|---:|---:|"]
    for group, members in HEADLINE.items():
        have = sum(len(rows[m][0]) for m in members if m in rows)
        total = sum(len(rows[m][0]) + len(rows[m][1]) for m in members if m in rows)
        lines.append(f"| `{group}` | {have} | {total} | {pct(have, total)} |")
    all_have = sum(len(r[0]) for r in rows.values())
    all_total = sum(len(r[0]) + len(r[1]) for r in rows.values())
    lines += ["", f"All collected modules: **{all_have} / {all_total} ({pct(all_have, all_total)})**.", "",
              "## Per module", "", "| module | present | total | coverage | note |", "|---|---:|---:|---:|---|"]
    for name, (have, missing, error) in rows.items():
        note = f"import fails: {error}" if error else ""
        lines.append(f"| `{name}` | {len(have)} | {len(have) + len(missing)} | "
                     f"{pct(len(have), len(have) + len(missing))} | {note.replace('|', '/')} |")
    if data.get("not_importable"):
        lines += ["", "Modules listed in the tool that this MindSpore build does not import: "
                  + ", ".join(f"`{m}`" for m in sorted(data["not_importable"])) + "."]
    if data.get("listed_but_absent"):
        lines += ["", "Not counted: names a MindSpore module's `__all__` lists that the module itself does not have "
                  "(`getattr` fails on MindSpore too): " + "; ".join(
                      f"`{m}`: " + ", ".join(names) for m, names in sorted(data["listed_but_absent"].items())) + "."]
    lines += ["", "## Missing names", ""]
    for name, (_have, missing, _error) in rows.items():
        if missing:
            lines.append(f"- `{name}` ({len(missing)}): " + ", ".join(missing))
    return "\n".join(lines) + "\n"


def report():
    with open(NAMES_FILE) as f:
        data = json.load(f)
    rows = measure(data)
    text = render(data, rows)
    os.makedirs(os.path.dirname(REPORT_FILE), exist_ok=True)
    tmp = REPORT_FILE + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, REPORT_FILE)
    for line in text.splitlines()[6:13]:
        print(line)
    print(f"wrote {REPORT_FILE}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_collect_here"]:
        return collect_here(argv[1])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", nargs="?", default="report", choices=["collect", "report"])
    parser.add_argument("--mindspore-python", default="/work/msenv/bin/python",
                        help="the Python of the separate environment that has MindSpore 2.10 installed")
    args = parser.parse_args(argv)
    if args.step == "collect":
        collect(args.mindspore_python)
    else:
        report()


if __name__ == "__main__":
    main()
