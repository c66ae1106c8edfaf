"""Differential test: run one script under real MindSpore 2.10 and under openspore, and diff what each produced.

A development tool (not run in CI). MindSpore is a black box in its own environment (``--mindspore-python``,
default ``/work/msenv/bin/python``); openspore runs the *unchanged* script through an import hook that answers
``import mindspore`` / ``from mindspore.nn import ...`` with the matching ``openspore`` modules — only inside
this tool's child process.

    python tools/difftest.py script.py [more.py ...] [--rtol 1e-4] [--atol 1e-5] [--timeout 600]
                             [--mindspore-pythonpath DIR]

Set-up of the MindSpore side: ``python -m venv /work/msenv && /work/msenv/bin/pip install mindspore==2.10.0
"numpy<2"`` (MindSpore 2.10 fails on NumPy 2 at the first tensor operation).

Each script runs in a fresh temporary directory (its working directory) under each framework. Compared:

* printed values: stdout line by line; numbers inside a line are compared with ``rtol``/``atol``, the text
  around them exactly (whitespace-normalised);
* saved tensors: every ``*.npy`` / ``*.npz`` file the script wrote into its working directory;
* exceptions: the type of an uncaught exception (openspore's may be a subclass of MindSpore's; the messages are
  shown, not compared).

Exit status 0 when every script agrees, 1 otherwise. ``--keep DIR`` keeps both runs' directories.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXC_FILE = "_difftest_exception.json"

# Runs the script as __main__ and records an uncaught exception's type and message for the comparison.
_RUNNER = r"""
import json, runpy, sys, traceback
script = sys.argv[1]
sys.argv = sys.argv[1:]
{hook}
try:
    runpy.run_path(script, run_name="__main__")
except SystemExit as exc:
    if exc.code not in (None, 0):
        raise
except BaseException as exc:
    traceback.print_exc()
    with open({exc_file!r}, "w") as f:
        json.dump({{"type": type(exc).__name__, "message": str(exc)[:2000],
                   "mro": [c.__name__ for c in type(exc).__mro__]}}, f)
    sys.exit(1)
"""

# The `mindspore` → `openspore` alias (tools/_mindspore_alias.py), installed only in openspore's child process.
_OPENSPORE_HOOK = r"""
import sys
sys.path[:0] = [{root!r}, {root!r} + "/tools"]
import _mindspore_alias
"""

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)\b", re.IGNORECASE)


def run_one(python, script, workdir, hook, timeout, pythonpath=None):
    code = _RUNNER.format(hook=hook, exc_file=EXC_FILE)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    env.setdefault("GLOG_v", "3")  # MindSpore's C++ log level: errors only
    try:
        proc = subprocess.run([python, "-c", code, os.path.abspath(script)], cwd=workdir, env=env,
                              capture_output=True, text=True, timeout=timeout)
        stdout, stderr, rc = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        stderr, rc = f"timed out after {timeout}s", -1
    exc_path = os.path.join(workdir, EXC_FILE)
    exception = None
    if os.path.exists(exc_path):
        with open(exc_path) as f:
            exception = json.load(f)
        os.remove(exc_path)
    return {"stdout": stdout, "stderr": stderr, "rc": rc, "exception": exception}


def _split(line):
    """A line as (text with numbers replaced by '#', [numbers])."""
    numbers = [float(m.group()) for m in _NUMBER.finditer(line)]
    text = " ".join(_NUMBER.sub("#", line).split())
    return text, numbers


def _close(a, b, rtol, atol):
    import math
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= atol + rtol * abs(b)


def diff_stdout(ms_out, os_out, rtol, atol):
    problems = []
    ms_lines, os_lines = ms_out.splitlines(), os_out.splitlines()
    for i, (a, b) in enumerate(zip(ms_lines, os_lines), 1):
        (ta, na), (tb, nb) = _split(a), _split(b)
        if ta != tb or len(na) != len(nb):
            problems.append(f"line {i} text differs:\n    mindspore: {a.strip()[:200]}\n    openspore: {b.strip()[:200]}")
        elif not all(_close(y, x, rtol, atol) for x, y in zip(na, nb)):
            problems.append(f"line {i} values differ:\n    mindspore: {a.strip()[:200]}\n    openspore: {b.strip()[:200]}")
    if len(ms_lines) != len(os_lines):
        problems.append(f"mindspore printed {len(ms_lines)} lines, openspore {len(os_lines)}")
    return problems


def _arrays(workdir):
    import numpy as np
    found = {}
    for dirpath, _, files in os.walk(workdir):
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, workdir)
            if name.endswith(".npy"):
                found[rel] = np.load(path, allow_pickle=False)
            elif name.endswith(".npz"):
                with np.load(path, allow_pickle=False) as z:
                    for key in z.files:
                        found[f"{rel}:{key}"] = z[key]
    return found


def diff_arrays(ms_dir, os_dir, rtol, atol):
    import numpy as np
    ms_arrays, os_arrays = _arrays(ms_dir), _arrays(os_dir)
    problems = [f"saved only under {who}: {k}" for who, a, b in (("mindspore", ms_arrays, os_arrays),
                                                                  ("openspore", os_arrays, ms_arrays))
                for k in sorted(set(a) - set(b))]
    for key in sorted(set(ms_arrays) & set(os_arrays)):
        a, b = ms_arrays[key], os_arrays[key]
        if a.shape != b.shape or a.dtype != b.dtype:
            problems.append(f"{key}: mindspore {a.dtype}{list(a.shape)}, openspore {b.dtype}{list(b.shape)}")
        elif a.dtype.kind in "biuO?SU":
            if not np.array_equal(a, b):
                problems.append(f"{key}: values differ at {int((a != b).sum())} of {a.size} positions")
        elif not np.allclose(b.astype(np.float64), a.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True):
            err = np.abs(b.astype(np.float64) - a.astype(np.float64))
            problems.append(f"{key}: values differ, max abs error {np.nanmax(err):.3g}")
    return problems


def diff_exceptions(ms_exc, os_exc):
    if ms_exc is None and os_exc is None:
        return []
    # openspore may raise a subclass of MindSpore's type (GraphSyntaxError is a RuntimeError): that matches,
    # as `except RuntimeError` / `pytest.raises(RuntimeError)` in the script would catch it.
    if ms_exc is None or os_exc is None or ms_exc["type"] not in os_exc.get("mro", [os_exc["type"]]):
        def show(e):
            return "no exception" if e is None else f"{e['type']}: {e['message'][:300]}"
        return [f"exceptions differ:\n    mindspore: {show(ms_exc)}\n    openspore: {show(os_exc)}"]
    return []


def difftest(script, mindspore_python, rtol=1e-4, atol=1e-5, timeout=600, keep=None, mindspore_pythonpath=None):
    """Run `script` under both frameworks; returns the list of differences (empty when they agree)."""
    base = tempfile.mkdtemp(prefix="difftest_")
    try:
        ms_dir, os_dir = os.path.join(base, "mindspore"), os.path.join(base, "openspore")
        os.makedirs(ms_dir)
        os.makedirs(os_dir)
        ms = run_one(mindspore_python, script, ms_dir, "", timeout, mindspore_pythonpath)
        ours = run_one(sys.executable, script, os_dir, _OPENSPORE_HOOK.format(root=ROOT), timeout)
        problems = diff_exceptions(ms["exception"], ours["exception"])
        if ms["rc"] != 0 and ms["exception"] is None:
            problems.append(f"mindspore run failed (rc {ms['rc']}): {ms['stderr'][-500:]}")
        if ours["rc"] != 0 and ours["exception"] is None:
            problems.append(f"openspore run failed (rc {ours['rc']}): {ours['stderr'][-500:]}")
        problems += diff_stdout(ms["stdout"], ours["stdout"], rtol, atol)
        problems += diff_arrays(ms_dir, os_dir, rtol, atol)
        if ours["exception"] and problems:
            problems.append("openspore stderr tail:\n" + ours["stderr"][-1500:])
        return problems
    finally:
        if keep:
            dest = os.path.join(keep, os.path.splitext(os.path.basename(script))[0])
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(base, dest)
        shutil.rmtree(base, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scripts", nargs="+")
    parser.add_argument("--mindspore-python", default="/work/msenv/bin/python")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-5)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--keep", help="copy both runs' working directories here")
    parser.add_argument("--mindspore-pythonpath", help="PYTHONPATH for the MindSpore side only, e.g. a folder "
                        "linking torch for the model-migration pages, which compare against PyTorch")
    args = parser.parse_args(argv)
    failed = 0
    for script in args.scripts:
        problems = difftest(script, args.mindspore_python, args.rtol, args.atol, args.timeout, args.keep,
                            args.mindspore_pythonpath)
        print(f"{'SAME' if not problems else 'DIFF'}  {script}")
        for p in problems:
            print("   ", p.replace("\n", "\n    "))
        failed += bool(problems)
    print(f"{len(args.scripts) - failed} of {len(args.scripts)} scripts agree")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
