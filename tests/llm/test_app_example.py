"""examples/llm end to end: `prepare.py` (a few training steps) writes a servable directory whose checkpoint
MindSpore's `load_checkpoint` reads, and `python -m openspore serve DIR` (a real child process on 127.0.0.1, an
ephemeral port) answers the official `openai` client: completions, chat completions and streaming; Ctrl-C stops
it with no process left behind."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import REPO, child_env
from tests.serving.example_support import Serve
from tests.serving.test_cli_serve import _processes_mentioning

EXAMPLE = os.path.join(REPO, "examples", "llm")
# A small model so the test trains, compiles and serves in seconds; the flags are prepare.py's own.
TINY = ["--steps", "3", "--batch-size", "4", "--context", "32", "--n-layer", "1", "--n-embd", "32", "--n-head", "2",
        "--n-positions", "128", "--vocab-size", "300", "--log-every", "1"]


def run_prepare(root, *args):
    """The repository's prepare.py (it trains on the repository's docs) writing into the servable dir `root`."""
    return subprocess.run([sys.executable, os.path.join(EXAMPLE, "prepare.py"), "--servable-dir", str(root), *args],
                          capture_output=True, text=True, env=child_env(), timeout=900)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """A copy of examples/llm with `prepare.py` run (a few steps, a couple of sample tokens) → (root, output)."""
    root = tmp_path_factory.mktemp("llm") / "servables"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", "[0-9]*", "serving_logs"))
    done = run_prepare(root, *TINY, "--sample-tokens", "4")
    assert done.returncode == 0, done.stdout + done.stderr
    return root, done.stdout


def test_prepare_writes_a_loadable_servable(prepared):
    import openspore as ms
    from openspore.llm import GPT, GPTConfig
    from openspore.llm.tokenizer import BPETokenizer, load_tokenizer
    root, output = prepared
    version = root / "gpt" / "1"
    assert sorted(os.listdir(version)) == ["config.json", "gpt.ckpt", "tokenizer"]
    config = GPTConfig.from_dict(json.loads((version / "config.json").read_text()))
    assert (config.n_layer, config.n_embd, config.n_positions, config.vocab_size) == (1, 32, 128, 300)
    tokenizer = load_tokenizer(str(version / "tokenizer"))
    assert isinstance(tokenizer, BPETokenizer) and tokenizer.vocab_size == config.vocab_size
    params = ms.load_checkpoint(str(version / "gpt.ckpt"))
    net = GPT(config)
    assert set(params) == set(net.parameters_dict())
    assert not ms.load_param_into_net(net, params)[0]  # nothing of the network left unloaded
    logits = net(ms.Tensor(np.array([tokenizer.encode("openspore serve")], np.int32))).asnumpy()
    assert logits.shape[-1] == 300 and np.isfinite(logits).all()
    # the training log: the loss each step, then samples from the engine, then how to serve it
    assert output.count("loss is") == 3
    assert "--- greedy" in output and "--- sampled" in output
    assert f"serve it: openspore serve {root}" in output


def test_prepare_byte_tokenizer_and_other_text(tmp_path):
    from openspore.llm.tokenizer import ByteTokenizer, load_tokenizer
    text = tmp_path / "corpus.txt"
    text.write_text("a small text to learn from, repeated. " * 40)
    shutil.copytree(EXAMPLE, tmp_path / "servables", ignore=shutil.ignore_patterns("__pycache__", "[0-9]*"))
    done = run_prepare(tmp_path / "servables", *TINY, "--tokenizer", "byte", "--text", str(text),
                       "--sample-tokens", "0", "--version", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    folder = tmp_path / "servables" / "gpt" / "2"
    assert isinstance(load_tokenizer(str(folder / "tokenizer")), ByteTokenizer)
    assert json.loads((folder / "config.json").read_text())["vocab_size"] == 257
    assert "1 documents" in done.stdout and "--- greedy" not in done.stdout


@pytest.mark.parametrize("args, message", [
    (["--steps", "0"], "--steps should be at least 1, but got 0"),
    (["--context", "600"], "--context (600) should not exceed --n-positions (512)"),
    (["--text", "/no/such/file.txt"], "--text file(s) not found: /no/such/file.txt"),
])
def test_prepare_refuses_bad_arguments(tmp_path, args, message):
    done = run_prepare(tmp_path, *args)
    assert done.returncode != 0
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "gpt").exists()


def test_openai_client_against_the_served_example(prepared, tmp_path):
    import openai
    root, _ = prepared
    serve = Serve([root, "--grpc", "none", "--rest", "127.0.0.1:0", "--log-dir", tmp_path / "logs"], cwd=tmp_path)
    try:
        output = serve.wait_for("ready; press Ctrl-C", timeout=300)
        address = next(line.rsplit(" ", 1)[1] for line in output.splitlines()
                       if "RESTful server start success, listening on" in line)
        assert address.startswith("127.0.0.1:") and not address.endswith(":1500")
        client = openai.OpenAI(base_url=f"http://{address}/v1", api_key="unused", max_retries=0, timeout=120)

        assert [m.id for m in client.models.list().data] == ["gpt"]

        done = client.completions.create(model="gpt", prompt="openspore serve", max_tokens=8, temperature=0.0)
        assert done.object == "text_completion" and done.model == "gpt"
        assert isinstance(done.choices[0].text, str) and done.choices[0].finish_reason in ("length", "stop")
        assert 1 <= done.usage.completion_tokens <= 8 and done.usage.prompt_tokens >= 1
        again = client.completions.create(model="gpt", prompt="openspore serve", max_tokens=8, temperature=0.0)
        assert again.choices[0].text == done.choices[0].text  # greedy: the same text each time

        chat = client.chat.completions.create(model="gpt", messages=[{"role": "user", "content": "What is Graph mode?"}],
                                              max_tokens=6, temperature=0.7, seed=3)
        assert chat.object == "chat.completion" and chat.choices[0].message.role == "assistant"
        assert isinstance(chat.choices[0].message.content, str) and 1 <= chat.usage.completion_tokens <= 6

        # streaming: the pieces make up what the non-streaming request returned (greedy, same prompt)
        pieces, reasons = [], []
        for chunk in client.completions.create(model="gpt", prompt="openspore serve", max_tokens=8, temperature=0.0,
                                               stream=True):
            pieces.append(chunk.choices[0].text)
            reasons.append(chunk.choices[0].finish_reason)
        assert "".join(pieces) == done.choices[0].text
        assert reasons[-1] in ("length", "stop") and all(r is None for r in reasons[:-1])

        deltas = []
        for chunk in client.chat.completions.create(model="gpt", stream=True, max_tokens=6, temperature=0.0,
                                                    messages=[{"role": "user", "content": "hello"}]):
            assert chunk.object == "chat.completion.chunk"
            if chunk.choices and chunk.choices[0].delta.content:
                deltas.append(chunk.choices[0].delta.content)
        greedy_chat = client.chat.completions.create(model="gpt", max_tokens=6, temperature=0.0,
                                                     messages=[{"role": "user", "content": "hello"}])
        assert "".join(deltas) == greedy_chat.choices[0].message.content

        with pytest.raises(openai.NotFoundError):
            client.completions.create(model="no-such-model", prompt="x", max_tokens=2)
        assert serve.interrupt() == 0
    finally:
        serve.kill()
        for pid in _processes_mentioning(str(root)):
            os.kill(pid, 9)
    assert not _processes_mentioning(str(root)), "worker processes left behind"
