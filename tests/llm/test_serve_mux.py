"""`MSWorker.GenerateMux`: many generation requests on one gRPC stream between the master and a worker, their
replies in batches. A real gRPC server on 127.0.0.1 runs the worker's session over a real LLMRuntime; the master's
MuxConnection talks to it: every request gets exactly its solo tokens, replies of several requests share a
message, errors stay with their request, a cancel frees the request's blocks, and closing the stream cancels
what still runs."""
import threading
import time
from concurrent import futures

import grpc
import pytest

from openspore.llm.generate import generate
from openspore.llm.sampling import SamplingParams
from openspore.serving.proto import ms_generate_pb2 as gpb
from openspore.serving.proto import ms_worker_pb2_grpc as wgrpc
from openspore.serving.server.master.generation_mux import MuxConnection, _Sink
from openspore.serving.server.register.llm import DEFAULT_SAMPLING, LLMDecl
from openspore.serving.server.worker.generate_mux import MuxSession
from openspore.serving.server.worker.llm_runtime import LLMRuntime
from tests.llm.serve_support import ByteTokenizer, load_engine, save_tiny_model

TOK = ByteTokenizer()
ENGINE_KW = {"block_size": 8, "num_blocks": 64, "max_batch_size": 4, "max_model_len": 128}
PROMPTS = [("one stream", 40), ("a second, longer prompt", 25), ("three", 33)]


class _Worker(wgrpc.MSWorkerServicer):
    def __init__(self, runtime):
        self.runtime, self.batches = runtime, []

    def GenerateMux(self, request_iterator, context):  # noqa: N802 - gRPC method name
        def find(request):
            if request.servable_name != "gpt":
                raise LookupError(f"servable({request.servable_name}) is not a generation servable here")
            return self.runtime
        for batch in MuxSession(find, request_iterator).replies():
            self.batches.append(len(batch.items))
            yield batch


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("tiny_gpt"))
    save_tiny_model(folder)
    decl = LLMDecl(f"{folder}/gpt.ckpt", f"{folder}/config.json", TOK, "gpt", 8, None, dict(ENGINE_KW),
                   dict(DEFAULT_SAMPLING), stream_interval_ms=0)
    runtime = LLMRuntime(decl, folder, "gpt", 1)
    worker = _Worker(runtime)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    wgrpc.add_MSWorkerServicer_to_server(worker, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    expected = generate(load_engine(folder, **ENGINE_KW), [TOK.encode(p) for p, _ in PROMPTS],
                        [SamplingParams(max_tokens=n, temperature=0.0) for _, n in PROMPTS])
    yield runtime, worker, wgrpc.MSWorkerStub(channel), expected
    channel.close()
    server.stop(0)
    runtime.close()


def _request(prompt, max_tokens, name="gpt", **sampling):
    return gpb.GenerateRequest(servable_name=name, prompt=prompt, sampling=gpb.SamplingOptions(
        max_tokens=max_tokens, temperature=0, ignore_eos=True, **sampling))


def _drain(sink, timeout=120):
    """The items of one stream, to its last reply or its error."""
    items = []
    while True:
        item = sink.queue.get(timeout=timeout)
        items.append(item)
        if isinstance(item, grpc.RpcError) or item.error_code or item.reply.finish_reason:
            return items


def test_requests_share_one_stream_and_get_their_solo_tokens(served):
    runtime, worker, stub, expected = served
    connection = MuxConnection(stub)
    worker.batches.clear()
    sinks = [_Sink(None) for _ in PROMPTS]
    for sink, (prompt, n) in zip(sinks, PROMPTS):
        connection.start(_request(prompt, n), sink)
    for sink, want, (_, n) in zip(sinks, expected, PROMPTS):
        items = _drain(sink)
        assert not any(i.error_code for i in items)
        tokens = [t for i in items for t in i.reply.token_ids]
        assert tokens == want
        assert "".join(i.reply.text for i in items) == TOK.decode(want)
        last = items[-1].reply
        assert last.finish_reason == "length" and last.completion_tokens == n
    assert max(worker.batches) > 1      # one message carried the replies of several requests
    assert runtime.engine.num_free_blocks() == runtime.engine.num_blocks


def test_errors_stay_with_their_request(served):
    runtime, _, stub, expected = served
    connection = MuxConnection(stub)
    bad_name, bad_field, good = _Sink(None), _Sink(None), _Sink(None)
    connection.start(_request("x", 4, name="nope"), bad_name)
    connection.start(_request("x", 4, top_p=2.0), bad_field)
    connection.start(_request(*PROMPTS[0]), good)
    (item,) = _drain(bad_name)
    assert item.error_code == grpc.StatusCode.NOT_FOUND.value[0] and "servable(nope)" in item.error_msg
    (item,) = _drain(bad_field)
    assert item.error_code == grpc.StatusCode.INVALID_ARGUMENT.value[0] and "top_p" in item.error_msg
    assert [t for i in _drain(good) for t in i.reply.token_ids] == expected[0]


def test_cancel_and_closing_the_stream_free_the_blocks(served):
    runtime, _, stub, _ = served
    engine = runtime.engine
    connection = MuxConnection(stub)
    first, second = _Sink(None), _Sink(None)
    one = connection.start(_request("cancel me", 100), first)
    connection.start(_request("abandon me", 100), second)
    for sink in (first, second):
        sink.queue.get(timeout=120)     # both are running
    connection.cancel(one)
    connection.call.cancel()            # the master goes away with the second still running
    got = []
    threading.Thread(target=lambda: got.append(_drain(second)), daemon=True).start()
    deadline = time.monotonic() + 60
    while engine.num_free_blocks() != engine.num_blocks and time.monotonic() < deadline:
        time.sleep(0.05)
    assert engine.num_free_blocks() == engine.num_blocks
    assert one not in connection.sinks  # a cancelled request is delivered nothing more
    deadline = time.monotonic() + 30
    while not got and time.monotonic() < deadline:
        time.sleep(0.05)
    assert got and isinstance(got[0][-1], grpc.RpcError)   # the stream's end reached the request left on it
    assert connection.dead is not None


def _paced_run(decl, interval_ms, expected):
    """The prompts through a worker paced at `interval_ms`: (replies per request, items per message, seconds the
    generation took from the first start to the last reply). Every request must get exactly its solo tokens."""
    paced_decl = LLMDecl(decl.checkpoint, decl.config, TOK, "gpt", 8, None, dict(ENGINE_KW), dict(DEFAULT_SAMPLING),
                         stream_interval_ms=interval_ms)
    folder = decl.checkpoint.rsplit("/", 1)[0]
    paced = LLMRuntime(paced_decl, folder, "gpt", 1)
    worker = _Worker(paced)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    wgrpc.add_MSWorkerServicer_to_server(worker, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        connection = MuxConnection(wgrpc.MSWorkerStub(channel))
        sinks = [_Sink(None) for _ in PROMPTS]
        started = time.perf_counter()
        for sink, (prompt, n) in zip(sinks, PROMPTS):
            connection.start(_request(prompt, n), sink)
        replies = []
        for sink, want in zip(sinks, expected):
            items = _drain(sink)
            assert [t for i in items for t in i.reply.token_ids] == want
            replies.append(len(items))
        return replies, list(worker.batches), time.perf_counter() - started
    finally:
        channel.close()
        server.stop(0)
        paced.close()


def test_paced_replies_share_ticks_and_lose_nothing(served):
    runtime, _, _, expected = served
    # Sharing needs generation to span several ticks: on a fast machine the tiny model's ~100 tokens can end
    # before the first 100 ms tick (every last reply then goes alone, at once), so shorter intervals are tried;
    # the first run lasting three intervals or more is the one whose pacing is checked.
    for interval_ms in (100, 25, 6):
        replies, batches, seconds = _paced_run(runtime.decl, interval_ms, expected)
        if seconds >= 3 * interval_ms / 1000:
            break
    else:
        pytest.fail(f"generation took {seconds * 1000:.1f} ms: too short to span three ticks of {interval_ms} ms")
    assert all(n < len(want) for n, want in zip(replies, expected))   # tokens of several steps shared a reply
    assert max(batches) > 1       # a tick's replies of several requests shared a message
