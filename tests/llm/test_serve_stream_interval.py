"""The worker's stream of a generation servable with `stream_interval_ms`: the first token goes at once, later
replies are at least the interval apart and carry every token generated meanwhile, and nothing is lost."""
import time

import pytest

from openspore.llm.generate import generate
from openspore.llm.sampling import SamplingParams
from openspore.serving.proto import ms_generate_pb2 as gpb
from openspore.serving.server.register.llm import DEFAULT_SAMPLING, LLMDecl
from openspore.serving.server.worker.llm_runtime import LLMRuntime
from tests.llm.serve_support import ByteTokenizer, load_engine, save_tiny_model

TOK = ByteTokenizer()
ENGINE_KW = {"block_size": 8, "num_blocks": 64, "max_batch_size": 4, "max_model_len": 128}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("tiny_gpt"))
    save_tiny_model(folder)
    return folder


def _runtime(model_dir, interval_ms):
    decl = LLMDecl(f"{model_dir}/gpt.ckpt", f"{model_dir}/config.json", TOK, "gpt", 8, None, dict(ENGINE_KW),
                   dict(DEFAULT_SAMPLING), stream_interval_ms=interval_ms)
    return LLMRuntime(decl, model_dir, "gpt", 1)


@pytest.mark.parametrize("interval_ms", [0, 150])
def test_replies_coalesce_tokens_and_lose_none(model_dir, interval_ms):
    prompt = "stream me"
    expected = generate(load_engine(model_dir, **ENGINE_KW), [TOK.encode(prompt)],
                        SamplingParams(max_tokens=60, temperature=0.0))[0]
    runtime = _runtime(model_dir, interval_ms)
    try:
        request = gpb.GenerateRequest(prompt=prompt, sampling=gpb.SamplingOptions(max_tokens=60, temperature=0,
                                                                                  ignore_eos=True))
        handle, text = runtime.start(request)
        replies, at = [], []
        for reply in runtime.replies(handle, text):
            replies.append(reply)
            at.append(time.perf_counter())
        assert runtime.engine.num_free_blocks() == runtime.engine.num_blocks
    finally:
        runtime.close()
    tokens = [t for r in replies for t in r.token_ids]
    assert tokens == expected and "".join(r.text for r in replies) == TOK.decode(expected)
    assert replies[-1].finish_reason == "length" and replies[-1].completion_tokens == 60
    assert all(not r.finish_reason for r in replies[:-1]) and all(r.token_ids for r in replies[:-1])
    if interval_ms:
        # each reply waits for the interval after the consumer took the previous one, except the last: it goes
        # as soon as the request ends
        gaps = [b - a for a, b in zip(at[:-1], at[1:-1])]
        assert all(g >= interval_ms / 1000 * 0.99 for g in gaps), gaps
        assert len(replies) < len(tokens)   # tokens of several steps shared a reply
