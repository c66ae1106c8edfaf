"""What a newcomer meets first (issue 20, item 6), each run for real: the docs' commands against the shipped
example, serving before prepare.py, bad addresses, where the worker logs go, which openspore the workers import,
the ready line of examples/serving/serve.py."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import requests

from tests.conftest import child_env
from tests.serving.conftest import REPO, RunningServer
from tests.serving.example_support import EXAMPLE, Serve, prepared_example
from tests.serving.test_hardening import make_servables

DOCS = os.path.join(REPO, "docs", "serving.md")


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """The prepared example served by `openspore serve` on ephemeral ports, started from another directory."""
    base = tmp_path_factory.mktemp("example")
    root = prepared_example(base / "servables")
    elsewhere = base / "cwd"
    elsewhere.mkdir()
    serve = Serve([root, "--grpc", "127.0.0.1:0", "--rest", "127.0.0.1:0"], cwd=elsewhere)
    try:
        text = serve.wait_for("ready; press Ctrl-C")
        addresses = dict(re.findall(r"Serving: Serving (gRPC|RESTful) server start success, listening on (\S+)", text))
        yield {"root": root, "cwd": elsewhere, "grpc": addresses["gRPC"], "rest": addresses["RESTful"],
               "serve": serve}
        assert serve.interrupt() == 0
    finally:
        serve.kill()


def _doc_blocks(language):
    text = open(DOCS, encoding="utf-8").read()
    return [m.group(1) for m in re.finditer(rf"```{language}\n(.*?)```", text, re.S)]


def _for_the_test(text, example):
    text = text.replace("127.0.0.1:1500", example["rest"]).replace("127.0.0.1:5500", example["grpc"])
    return text.replace("python -c", f"{sys.executable} -c")


def _shell_commands():
    commands = []
    for block in _doc_blocks("bash"):
        for command in block.replace("\\\n", " ").splitlines():
            if command.strip():
                commands.append(command.strip())
    return commands


def test_docs_have_runnable_commands_for_the_example():
    commands = _shell_commands()
    assert len(commands) >= 5 and all("127.0.0.1:1500" in c for c in commands)
    for block in _doc_blocks("bash") + _doc_blocks("python"):
        assert not re.search(r"(^|[\s\[(,])\.\.\.($|[\s\]),])", block), f"a placeholder in:\n{block}"
        assert "/model/add" not in block


@pytest.mark.parametrize("index", range(5))
def test_docs_shell_command_runs_against_the_example(example, index):
    command = _shell_commands()[index]
    run = subprocess.run(["bash", "-c", _for_the_test(command, example)], capture_output=True, text=True,
                         timeout=60, env=child_env())
    assert run.returncode == 0, (command, run.stderr)
    if "/metrics" in command:
        assert 'openspore_serving_workers{state="ready"} 1.0' in run.stdout, run.stdout[-2000:]
        return
    reply = json.loads(run.stdout)
    assert "error_msg" not in json.dumps(reply) and "error" not in reply, (command, reply)


def test_docs_client_snippet_runs_against_the_example(example):
    [snippet] = [b for b in _doc_blocks("python") if "Client(" in b]
    run = subprocess.run([sys.executable, "-c", _for_the_test(snippet, example)], capture_output=True, text=True,
                         timeout=120, env=child_env())
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 3 and "'label'" in lines[0] and "'error'" in lines[1] and "'label'" in lines[2], lines


def test_worker_logs_go_to_the_servable_directory_not_the_cwd(example):
    assert f"Serving: worker logs in {example['root'] / 'serving_logs'}" in "".join(example["serve"].output)
    assert (example["root"] / "serving_logs" / "log_worker_device0.log").is_file()
    assert not os.listdir(example["cwd"])


def test_serving_the_example_before_prepare_says_to_run_it(tmp_path):
    import shutil
    root = tmp_path / "servables"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", "[0-9]", "serving_logs"))
    run = subprocess.run([sys.executable, "-m", "openspore", "serve", str(root), "--grpc", "127.0.0.1:0", "--rest",
                          "127.0.0.1:0"], capture_output=True, text=True, env=child_env(), timeout=120, cwd=tmp_path)
    assert run.returncode == 1
    assert f"This servable directory has prepare.py: run `python {root / 'prepare.py'}` first" in run.stderr


def test_bad_addresses_are_refused_before_anything_starts(tmp_path):
    run = subprocess.run([sys.executable, "-m", "openspore", "serve", EXAMPLE, "--rest", "localhost"],
                         capture_output=True, text=True, env=child_env(), timeout=60, cwd=tmp_path)
    assert run.returncode != 0 and "openspore serve: --rest should be 'ip:port' or 'none'" in run.stderr, run.stderr
    assert "Serving:" not in run.stdout and not os.listdir(tmp_path)


@pytest.mark.parametrize("option, value, text", [
    ("--rest", "1500", "should be 'ip:port'"), ("--rest", "127.0.0.1:99999", "should be 'ip:port'"),
    ("--rest", "example.com:1500", "should name an IP address"), ("--grpc", "127.0.0.1", "should be 'ip:port', "
                                                                                        "'unix:PATH' or 'none'"),
    ("--rest", "unix:/tmp/x", "should be 'ip:port' or 'none'"), ("--grpc", "::1:5500", "goes in brackets")])
def test_bad_address_forms(option, value, text, capsys):
    from openspore import cli
    from openspore.serving import server
    with pytest.raises(SystemExit, match=re.escape(text)):
        cli.main(["serve", EXAMPLE, option, value])
    assert server._server._MASTER is None   # nothing was started


def test_workers_import_the_servers_openspore_whatever_the_cwd_holds(tmp_path, monkeypatch):
    decoy = tmp_path / "cwd" / "openspore"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise ImportError('this is not the openspore the server runs')\n")
    configs = make_servables(str(tmp_path / "servables"))[1:]   # pyfunc only: no model to load
    monkeypatch.chdir(tmp_path / "cwd")
    running = RunningServer(configs, tmp_path / "logs", grpc=False)
    try:
        reply = requests.post(f"http://{running.rest}/model/pyfunc:sqrt", json={"instances": [{"x": 4.0}]},
                              timeout=30)
        assert reply.json() == {"instances": [{"y": 2.0}]}
    finally:
        running.stop()


def test_example_serve_script_prints_a_ready_line(example, tmp_path):
    script = Serve(["--grpc", "127.0.0.1:0", "--rest", "127.0.0.1:0"], cwd=tmp_path,
                   command=[sys.executable, str(example["root"] / "serve.py")])
    try:
        text = script.wait_for("ready on gRPC", timeout=120)
        found = re.search(r"Serving: lenet ready on gRPC (127\.0\.0\.1:\d+) and REST (127\.0\.0\.1:\d+); press Ctrl-C",
                          text)
        assert found, text
        reply = requests.post(f"http://{found.group(2)}/model/lenet:classify",
                              json={"instances": [{"image": np.zeros((32, 32), int).tolist()}]}, timeout=30)
        assert "label" in reply.json()["instances"][0]
        assert script.interrupt() == 0
    finally:
        script.kill()
