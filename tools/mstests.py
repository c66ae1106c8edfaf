"""Run a local copy of MindSpore's own test files under real MindSpore 2.10 and under openspore, and compare.

A development tool (not run in CI) for issue 19's re-measurement: which of MindSpore's tests that pass on
MindSpore also pass, unchanged, on openspore. The corpus is a folder laid out like MindSpore's repository
(``CORPUS/tests/st/ops/cpu/test_abs_op.py``, ``CORPUS/tests/mark_utils.py``, ...), copied by hand from MindSpore's
public repository; it is never part of this repository.

    python tools/mstests.py run CORPUS [FILES or folders relative to CORPUS ...] [--framework both|mindspore|openspore]
                                [--jobs 2] [--timeout 300] [--rerun]
    python tools/mstests.py report CORPUS [--failures] [--under tests/st/ops/cpu]

Each file runs in its own pytest process (``python -m pytest FILE`` in CORPUS, so ``from tests.mark_utils import
arg_mark`` resolves); outcomes per test come from pytest's JUnit XML. openspore runs through the import alias in
``tools/_mindspore_alias.py``. Results are cached in ``CORPUS/.results/<framework>.json`` keyed by file and its
modification time, so MindSpore runs once per file; ``--rerun`` forces openspore's side again.

``report`` prints, per category (the folder under ``tests/``), how many tests pass on MindSpore and how many of
those pass on openspore, and with ``--failures`` the first error line of each failing test, grouped by message.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
PYTHONS = {"mindspore": "/work/msenv/bin/python", "openspore": sys.executable}


def _test_files(corpus, targets):
    found = []
    for target in targets or ["tests"]:
        path = os.path.join(corpus, target)
        if os.path.isfile(path):
            found.append(os.path.relpath(path, corpus))
            continue
        for dirpath, _, names in os.walk(path):
            found += [os.path.relpath(os.path.join(dirpath, n), corpus)
                      for n in names if n.startswith("test_") and n.endswith(".py")]
    return sorted(set(found))


def _run_file(framework, corpus, rel, timeout):
    """One file under one framework → {test id: (outcome, first error line)}."""
    env = dict(os.environ, GLOG_v="3", PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    cmd = [PYTHONS[framework], "-m", "pytest", "-q", "-p", "no:cacheprovider", rel]
    if framework == "openspore":
        env["PYTHONPATH"] = os.pathsep.join([TOOLS, ROOT])
        cmd[3:3] = ["-p", "_mindspore_alias"]
    with tempfile.TemporaryDirectory() as tmp:
        xml_path = os.path.join(tmp, "r.xml")
        cmd += ["--junitxml", xml_path, "-o", "junit_family=xunit1"]
        try:
            proc = subprocess.run(cmd, cwd=corpus, env=env, capture_output=True, text=True, timeout=timeout)
            tail = (proc.stdout + proc.stderr)[-1500:]
        except subprocess.TimeoutExpired:
            return {rel + "::<file>": ("timeout", f"timed out after {timeout}s")}
        if not os.path.exists(xml_path):
            return {rel + "::<file>": ("error", tail.strip().splitlines()[-1] if tail.strip() else "no output")}
        outcomes = {}
        for case in ET.parse(xml_path).getroot().iter("testcase"):
            name = f"{rel}::{case.get('name')}"
            outcome, message = "passed", ""
            for child in case:
                if child.tag in ("failure", "error"):
                    outcome = "failed"
                    text = (child.text or child.get("message") or "").strip().splitlines()
                    errors = [l for l in text if l.startswith("E ")]
                    message = (errors[0][1:].strip() if errors else (child.get("message") or "")[:300])
                    break
                if child.tag == "skipped":
                    outcome = "skipped"
            outcomes[name] = (outcome, message[:300])
        if not outcomes:
            outcomes[rel + "::<file>"] = ("error", tail.strip().splitlines()[-1] if tail.strip() else "no tests")
        return outcomes


def _load(corpus, framework):
    path = os.path.join(corpus, ".results", framework + ".json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {}


def _save(corpus, framework, results):
    folder = os.path.join(corpus, ".results")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, framework + ".json")
    with open(path + ".tmp", "w") as f:
        json.dump(results, f, indent=0, sort_keys=True)
    os.replace(path + ".tmp", path)


def run(args):
    files = _test_files(args.corpus, args.targets)
    frameworks = ["mindspore", "openspore"] if args.framework == "both" else [args.framework]
    for framework in frameworks:
        results = _load(args.corpus, framework)
        todo = []
        for rel in files:
            mtime = os.path.getmtime(os.path.join(args.corpus, rel))
            cached = results.get(rel)
            if cached and cached["mtime"] == mtime and not (args.rerun and framework == "openspore"):
                continue
            todo.append((rel, mtime))
        print(f"{framework}: {len(todo)} of {len(files)} files to run", flush=True)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(_run_file, framework, args.corpus, rel, args.timeout): (rel, m) for rel, m in todo}
            for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
                rel, mtime = futures[future]
                outcomes = future.result()
                results[rel] = {"mtime": mtime, "tests": outcomes}
                passed = sum(o == "passed" for o, _ in outcomes.values())
                print(f"  [{done}/{len(todo)}] {rel}: {passed}/{len(outcomes)} passed", flush=True)
                _save(args.corpus, framework, results)
    report(argparse.Namespace(corpus=args.corpus, failures=False, under=None, files=files))


def _category(rel):
    parts = rel.split("/")
    return "/".join(parts[1:-1]) or "."


def report(args):
    ms, ours = _load(args.corpus, "mindspore"), _load(args.corpus, "openspore")
    files = getattr(args, "files", None) or sorted(ms)
    per_cat = collections.defaultdict(lambda: [0, 0])
    failures = collections.defaultdict(list)
    for rel in files:
        if args.under and not rel.startswith(args.under):
            continue
        ms_tests = ms.get(rel, {}).get("tests", {})
        our_tests = ours.get(rel, {}).get("tests", {})
        for name, (outcome, _) in ms_tests.items():
            if outcome != "passed":
                continue
            cat = _category(rel)
            per_cat[cat][0] += 1
            our = our_tests.get(name)
            if our is None and rel + "::<file>" in our_tests:
                our = our_tests[rel + "::<file>"]
            if our is None:  # a collection error is one failed case named after the module
                stray = [v for k, v in our_tests.items() if k not in ms_tests and v[0] != "passed"]
                our = stray[0] if len(stray) == 1 else None
            if our and our[0] == "passed":
                per_cat[cat][1] += 1
            else:
                failures[(our or ("not run", "not run"))[1][:160]].append(name)
    total = [sum(v[0] for v in per_cat.values()), sum(v[1] for v in per_cat.values())]
    print(f"{'category':40s} {'pass on MS':>10s} {'pass here':>10s} {'share':>7s}")
    for cat, (n, k) in sorted(per_cat.items()):
        print(f"{cat:40s} {n:10d} {k:10d} {k / max(n, 1):7.1%}")
    print(f"{'total':40s} {total[0]:10d} {total[1]:10d} {total[1] / max(total[0], 1):7.1%}")
    if args.failures:
        for message, names in sorted(failures.items(), key=lambda kv: -len(kv[1])):
            print(f"\n[{len(names)}] {message}")
            for name in names[:6]:
                print(f"    {name}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run")
    p.add_argument("corpus")
    p.add_argument("targets", nargs="*")
    p.add_argument("--framework", choices=["both", "mindspore", "openspore"], default="both")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--rerun", action="store_true", help="run openspore's side again even if cached")
    p.set_defaults(func=run)
    r = sub.add_parser("report")
    r.add_argument("corpus")
    r.add_argument("--failures", action="store_true")
    r.add_argument("--under", default=None)
    r.set_defaults(func=report)
    args = parser.parse_args(argv)
    args.corpus = os.path.abspath(args.corpus)
    args.func(args)


if __name__ == "__main__":
    main()
