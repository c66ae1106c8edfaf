"""A generation servable served for real (master + worker process, 127.0.0.1, ephemeral ports): the OpenAI-compatible
routes (also through the official `openai` client), streaming under 16 concurrent clients, the gRPC stream, the
MindSpore-style method, errors naming the field, queue-full refusal, and cancellation on client disconnect."""
import json
import threading
import time

import grpc
import pytest
import requests

from openspore.llm.generate import generate
from openspore.llm.sampling import SamplingParams
from openspore.serving import server
from openspore.serving.client import GenerateClient
from openspore.serving.proto import ms_generate_pb2 as gpb
from openspore.serving.proto import ms_generate_pb2_grpc as ggrpc
from tests.llm.serve_support import ByteTokenizer, load_engine, mixed_requests, save_tiny_model, write_llm_servable
from tests.serving.conftest import RunningServer

TOK = ByteTokenizer()
ENGINE_KW = {"block_size": 8, "num_blocks": 512, "max_batch_size": 16, "max_model_len": 512}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("tiny_gpt"))
    save_tiny_model(folder)
    return folder


@pytest.fixture(scope="module")
def running(tmp_path_factory, model_dir):
    root = str(tmp_path_factory.mktemp("servables"))
    write_llm_servable(root, "gpt", model_dir, max_queue=64, **ENGINE_KW)
    write_llm_servable(root, "gpt_one", model_dir, model_name="tiny-one", max_queue=1, max_running=1,
                       **ENGINE_KW)
    configs = [server.ServableStartConfig(root, name) for name in ("gpt", "gpt_one")]
    srv = RunningServer(configs, tmp_path_factory.mktemp("logs"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def solo(model_dir):
    """prompt text → the token ids the engine generates for it alone (greedy, no eos)."""
    engine = load_engine(model_dir, **ENGINE_KW)

    def run(prompt, max_tokens):
        return generate(engine, [TOK.encode(prompt)], SamplingParams(max_tokens=max_tokens, temperature=0.0))[0]
    return run


def _url(running, path):
    return f"http://{running.rest}{path}"


def _events(response):
    """The `data:` payloads of a server-sent-events response, in order."""
    out = []
    for line in response.iter_lines():
        if line.startswith(b"data: "):
            out.append(line[6:].decode())
    return out


def _stream_completion(running, prompt, max_tokens, timings=None):
    body = {"model": "gpt", "prompt": prompt, "max_tokens": max_tokens, "temperature": 0, "stream": True,
            "ignore_eos": True, "stream_options": {"include_usage": True}}
    start = time.perf_counter()
    with requests.post(_url(running, "/v1/completions"), json=body, stream=True, timeout=120) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = []
        for line in r.iter_lines():
            if line.startswith(b"data: "):
                if timings is not None and not events:
                    timings.append(time.perf_counter() - start)
                events.append(line[6:].decode())
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["text"] for c in chunks if c["choices"])
    finish = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1]
    return text, finish, chunks[-1]["usage"]


def test_sixteen_concurrent_streaming_clients_get_complete_outputs(running, solo):
    requests_ = mixed_requests(16, seed=3)
    results, errors, ttft = {}, [], []
    barrier = threading.Barrier(len(requests_))

    def client(prompt, max_tokens):
        barrier.wait()
        try:
            results[prompt] = _stream_completion(running, prompt, max_tokens, ttft)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    threads = [threading.Thread(target=client, args=r) for r in requests_]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    assert not errors, errors
    assert len(results) == 16 and len(ttft) == 16
    for prompt, max_tokens in requests_:
        text, finish, usage = results[prompt]
        ids = solo(prompt, max_tokens)
        assert text == TOK.decode(ids), prompt
        assert finish == "length"
        assert usage == {"prompt_tokens": len(TOK.encode(prompt)), "completion_tokens": max_tokens,
                         "total_tokens": len(TOK.encode(prompt)) + max_tokens}
    metrics = requests.get(_url(running, "/metrics"), timeout=30).text
    assert 'openspore_llm_time_to_first_token_seconds_count{servable="gpt"}' in metrics
    assert 'openspore_llm_scheduler{servable="gpt",stat="running"} 0.0' in metrics


def test_openai_client(running, solo):
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=f"http://{running.rest}/v1", api_key="unused", max_retries=0)
    assert {m.id for m in client.models.list().data} == {"gpt", "tiny-one"}
    completion = client.completions.create(model="gpt", prompt="hello world", max_tokens=9, temperature=0,
                                           extra_body={"ignore_eos": True})
    assert completion.choices[0].text == TOK.decode(solo("hello world", 9))
    assert completion.choices[0].finish_reason == "length"
    assert completion.usage.completion_tokens == 9 and completion.usage.prompt_tokens == 11
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi there"}]
    chat = client.chat.completions.create(model="gpt", messages=messages, max_tokens=7, temperature=0,
                                          extra_body={"ignore_eos": True})
    prompt = TOK.apply_chat_template(messages)
    assert chat.choices[0].message.role == "assistant"
    assert chat.choices[0].message.content == TOK.decode(solo(prompt, 7))
    assert chat.usage.prompt_tokens == len(TOK.encode(prompt))
    pieces = list(client.chat.completions.create(model="gpt", messages=messages, max_tokens=7, temperature=0,
                                                 stream=True, extra_body={"ignore_eos": True}))
    assert "".join(p.choices[0].delta.content or "" for p in pieces) == chat.choices[0].message.content
    assert pieces[-1].choices[0].finish_reason == "length"
    streamed = client.completions.create(model="gpt", prompt="hello world", max_tokens=9, temperature=0,
                                         stream=True, extra_body={"ignore_eos": True})
    assert "".join(c.choices[0].text for c in streamed) == completion.choices[0].text
    with pytest.raises(openai.NotFoundError, match="model"):
        client.completions.create(model="nope", prompt="x", max_tokens=2)
    with pytest.raises(openai.BadRequestError, match="temperature"):
        client.completions.create(model="gpt", prompt="x", max_tokens=2, temperature=7)


def test_stop_strings_and_finish_reason_stop(running, solo):
    full = TOK.decode(solo("stop here", 30))
    stop = next(c for c in full[3:] if c != "\ufffd")     # the text ends before its first occurrence
    r = requests.post(_url(running, "/v1/completions"), timeout=60, json={
        "model": "gpt", "prompt": "stop here", "max_tokens": 30, "temperature": 0, "stop": [stop],
        "ignore_eos": True}).json()
    assert r["choices"][0]["text"] == full[:full.index(stop)] and r["choices"][0]["finish_reason"] == "stop"


@pytest.mark.parametrize("body, field", [
    ({"prompt": "x"}, "model"),
    ({"model": "gpt"}, "prompt"),
    ({"model": "gpt", "prompt": "x", "max_tokens": 0}, "max_tokens"),
    ({"model": "gpt", "prompt": "x", "max_tokens": "8"}, "max_tokens"),
    ({"model": "gpt", "prompt": "x", "top_p": 0}, "top_p"),
    ({"model": "gpt", "prompt": "x", "stream": "yes"}, "stream"),
    ({"model": "gpt", "prompt": "x", "n": 3}, "n"),
    ({"model": "gpt", "prompt": "x", "stop": [1]}, "stop"),
    ({"model": "gpt", "prompt": [1, 99999]}, "prompt"),
    ({"model": "gpt", "prompt": "x" * 600}, "prompt"),
])
def test_bad_completion_fields_name_the_field(running, body, field):
    r = requests.post(_url(running, "/v1/completions"), json=body, timeout=60)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["message"].startswith(f"{field}:"), error
    assert error["type"] == "invalid_request_error"


def test_bad_chat_fields_and_unknown_routes(running):
    for messages, field in (([], "messages"), ([{"role": "robot", "content": "x"}], "messages[0].role"),
                            ([{"role": "user", "content": 5}], "messages[0].content")):
        r = requests.post(_url(running, "/v1/chat/completions"), json={"model": "gpt", "messages": messages},
                          timeout=60)
        assert r.status_code == 400 and r.json()["error"]["param"] == field
    r = requests.post(_url(running, "/v1/completions"), data=b"{not json", timeout=60)
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]["message"]
    r = requests.post(_url(running, "/v1/completions"), json={"model": "nope", "prompt": "x"}, timeout=60)
    assert r.status_code == 404 and "'nope'" in r.json()["error"]["message"]
    assert requests.get(_url(running, "/v1/embeddings"), timeout=60).status_code == 404
    assert requests.get(_url(running, "/v1/models/tiny-one"), timeout=60).json()["id"] == "tiny-one"


def test_grpc_stream_and_mindspore_method(running, solo):
    channel = grpc.insecure_channel(running.grpc)
    stub = ggrpc.MSGenerateStub(channel)
    request = gpb.GenerateRequest(servable_name="gpt", prompt="grpc stream", sampling=gpb.SamplingOptions(
        max_tokens=12, temperature=0.0, ignore_eos=True))
    replies = list(stub.Generate(request, timeout=60))
    ids = [t for r in replies for t in r.token_ids]
    assert ids == solo("grpc stream", 12)
    assert "".join(r.text for r in replies) == TOK.decode(ids)
    assert replies[-1].finish_reason == "length" and replies[-1].completion_tokens == 12
    with pytest.raises(grpc.RpcError) as info:
        list(stub.Generate(gpb.GenerateRequest(servable_name="gpt"), timeout=60))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "prompt" in info.value.details()
    with pytest.raises(grpc.RpcError) as info:
        list(stub.Generate(gpb.GenerateRequest(servable_name="nope", prompt="x"), timeout=60))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    channel.close()
    client = GenerateClient(running.grpc, "gpt")
    result = client.generate("grpc stream", max_tokens=12, temperature=0.0, ignore_eos=True)
    assert result["token_ids"] == ids and result["text"] == TOK.decode(ids)
    chat = [{"role": "user", "content": "hi"}]
    assert "".join(client.stream(messages=chat, max_tokens=6, temperature=0.0, ignore_eos=True)) == \
        TOK.decode(solo(TOK.apply_chat_template(chat), 6))
    client.close()
    r = requests.post(_url(running, "/model/gpt:generate"), timeout=60,
                      json={"instances": [{"prompt": "abc"}, {"prompt": "defg"}]}).json()
    assert [len(i["text"]) > 0 for i in r["instances"]] == [True, True]


def _scheduler_stat(running, servable, stat):
    for line in requests.get(_url(running, "/metrics"), timeout=30).text.splitlines():
        if line.startswith(f'openspore_llm_scheduler{{servable="{servable}",stat="{stat}"}}'):
            return float(line.rsplit(" ", 1)[1])
    return None


def _wait_for(predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


def test_full_queue_is_refused_with_429(running):
    # tiny-one runs one request at a time and lets one wait: of 6 requests sent together, at most 2 are taken
    body = {"model": "tiny-one", "prompt": "hold the line", "max_tokens": 120, "temperature": 0,
            "ignore_eos": True}
    replies = []
    barrier = threading.Barrier(6)

    def client():
        barrier.wait()
        replies.append(requests.post(_url(running, "/v1/completions"), json=body, timeout=120))
    threads = [threading.Thread(target=client) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    codes = sorted(r.status_code for r in replies)
    assert codes.count(429) >= 1 and set(codes) <= {200, 429}, codes
    for r in replies:
        if r.status_code == 429:
            assert "queue is full" in r.json()["error"]["message"]
            assert r.json()["error"]["type"] == "rate_limit_error"
        else:
            assert r.json()["usage"]["completion_tokens"] == 120
    assert _scheduler_stat(running, "gpt_one", "rejected") == codes.count(429)


def test_client_disconnect_cancels_and_frees_blocks(running):
    before = _scheduler_stat(running, "gpt", "cancelled") or 0.0
    body = {"model": "gpt", "prompt": "never mind", "max_tokens": 480, "temperature": 0, "stream": True,
            "ignore_eos": True}
    r = requests.post(_url(running, "/v1/completions"), json=body, stream=True, timeout=60)
    assert next(line for line in r.iter_lines() if line.startswith(b"data: "))
    r.close()                                                   # the client goes away mid-generation
    _wait_for(lambda: _scheduler_stat(running, "gpt", "cancelled") == before + 1)
    _wait_for(lambda: _scheduler_stat(running, "gpt", "running") == 0.0)
    assert _scheduler_stat(running, "gpt", "free_blocks") == _scheduler_stat(running, "gpt", "num_blocks")


def test_plain_request_abandoned_by_its_client_is_cancelled(running):
    before = _scheduler_stat(running, "gpt", "cancelled") or 0.0
    body = {"model": "gpt", "prompt": "too slow", "max_tokens": 480, "temperature": 0, "ignore_eos": True}
    with pytest.raises(requests.exceptions.ReadTimeout):
        requests.post(_url(running, "/v1/completions"), json=body, timeout=(10, 0.1))   # gives up, closes
    _wait_for(lambda: _scheduler_stat(running, "gpt", "cancelled") == before + 1)
    _wait_for(lambda: _scheduler_stat(running, "gpt", "running") == 0.0)
    assert _scheduler_stat(running, "gpt", "free_blocks") == _scheduler_stat(running, "gpt", "num_blocks")


def test_grpc_cancel_cancels_the_generation(running):
    before = _scheduler_stat(running, "gpt", "cancelled") or 0.0
    channel = grpc.insecure_channel(running.grpc)
    call = ggrpc.MSGenerateStub(channel).Generate(gpb.GenerateRequest(
        servable_name="gpt", prompt="cancel me", sampling=gpb.SamplingOptions(max_tokens=480, temperature=0.0,
                                                                             ignore_eos=True)), timeout=60)
    assert next(call).token_ids
    call.cancel()
    _wait_for(lambda: _scheduler_stat(running, "gpt", "cancelled") == before + 1)
    _wait_for(lambda: _scheduler_stat(running, "gpt", "running") == 0.0)
    channel.close()
