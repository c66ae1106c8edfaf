"""ContinuousBatchingScheduler on the real engine (a tiny random GPT): continuous batching gives each request the
tokens the engine gives it alone, preemption by recompute keeps them, the queue is bounded, cancellation frees
the blocks."""
import threading
import time

import pytest

from openspore.llm.generate import generate
from openspore.llm.sampling import SamplingParams
from openspore.llm.scheduler import ContinuousBatchingScheduler, GenerationError, QueueFull
from tests.llm.serve_support import ByteTokenizer, load_engine, mixed_requests, save_tiny_model

TOK = ByteTokenizer()


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("tiny_gpt"))
    save_tiny_model(folder)
    return folder


@pytest.fixture(scope="module")
def engine(model_dir):
    return load_engine(model_dir, block_size=8, num_blocks=256, max_batch_size=8, max_model_len=128)


@pytest.fixture(scope="module")
def expected(engine):
    """Each request generated alone (greedy) by the engine's own generate loop."""
    out = {}
    for prompt, max_tokens in mixed_requests(12):
        ids = TOK.encode(prompt)
        out[prompt] = generate(engine, [ids], SamplingParams(max_tokens=max_tokens, temperature=0.0))[0]
    return out


def _wait_until(predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


def _run_concurrently(scheduler, requests):
    handles = {}
    barrier = threading.Barrier(len(requests))
    results, errors = {}, []

    def client(prompt, max_tokens):
        barrier.wait()
        try:
            handle = scheduler.submit(TOK.encode(prompt), SamplingParams(max_tokens=max_tokens, temperature=0.0))
            handles[prompt] = handle
            results[prompt] = list(handle)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
    threads = [threading.Thread(target=client, args=r) for r in requests]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    return results, handles


def test_concurrent_requests_get_their_solo_tokens(engine, expected):
    scheduler = ContinuousBatchingScheduler(engine, max_queue=64)
    try:
        results, handles = _run_concurrently(scheduler, mixed_requests(12))
        for prompt, max_tokens in mixed_requests(12):
            assert results[prompt] == expected[prompt], prompt
            assert handles[prompt].finish_reason == "length" and len(results[prompt]) == max_tokens
            assert handles[prompt].time_to_first_token > 0
        stats = scheduler.stats()
        assert stats["steps"] < sum(m for _, m in mixed_requests(12))    # decode steps were shared
        assert stats["free_blocks"] == stats["num_blocks"] and stats["running"] == 0
    finally:
        scheduler.stop()


def test_request_at_a_time_gives_the_same_tokens(engine, expected):
    scheduler = ContinuousBatchingScheduler(engine, max_queue=64, max_running=1)
    try:
        results, _ = _run_concurrently(scheduler, mixed_requests(6))
        for prompt, _ in mixed_requests(6):
            assert results[prompt] == expected[prompt]
        assert scheduler.stats()["steps"] >= sum(m - 1 for _, m in mixed_requests(6))   # no step was shared
    finally:
        scheduler.stop()


def test_preemption_by_recompute_keeps_the_tokens(model_dir, expected):
    # 20 blocks of 4 tokens cannot hold 8 growing sequences: some are preempted and recomputed later
    small = load_engine(model_dir, block_size=4, num_blocks=20, max_batch_size=8, max_model_len=80)
    requests = [(p, m) for p, m in mixed_requests(12) if len(TOK.encode(p)) + m <= 80][:8]
    assert len(requests) >= 5
    scheduler = ContinuousBatchingScheduler(small, max_queue=64)
    try:
        # submitted back to back from one thread (submit does not block), so all 8 are running together and
        # outgrow the pool whatever the machine's load; client threads could arrive staggered and never preempt
        handles = {p: scheduler.submit(TOK.encode(p), SamplingParams(max_tokens=m, temperature=0.0))
                   for p, m in requests}
        results = {p: list(h) for p, h in handles.items()}
        stats = scheduler.stats()
        assert stats["preemptions"] > 0
        for prompt, _ in requests:
            assert results[prompt] == expected[prompt], prompt
        assert stats["free_blocks"] == stats["num_blocks"]
    finally:
        scheduler.stop()


def test_queue_full_is_refused_with_a_clear_error(engine):
    scheduler = ContinuousBatchingScheduler(engine, max_queue=1, max_running=1)
    try:
        params = SamplingParams(max_tokens=100, temperature=0.0)
        first = scheduler.submit(TOK.encode("first"), params)
        tokens, _ = first.next_tokens(timeout=60)          # running now
        assert tokens
        second = scheduler.submit(TOK.encode("second"), params)    # waits
        with pytest.raises(QueueFull, match="queue is full"):
            scheduler.submit(TOK.encode("third"), params)
        first.cancel()
        assert len(second.result()) == 100
        assert scheduler.stats()["rejected"] == 1
    finally:
        scheduler.stop()


def test_cancel_frees_the_blocks_at_once(engine):
    scheduler = ContinuousBatchingScheduler(engine, max_queue=8)
    try:
        handle = scheduler.submit(TOK.encode("a long one"), SamplingParams(max_tokens=110, temperature=0.0))
        tokens, _ = handle.next_tokens(timeout=60)
        assert tokens
        assert scheduler.stats()["free_blocks"] < engine.num_blocks
        handle.cancel()
        rest = handle.result()
        assert handle.finish_reason == "cancelled" and len(tokens) + len(rest) < 110
        _wait_until(lambda: scheduler.stats()["free_blocks"] == engine.num_blocks)
        assert scheduler.stats()["cancelled"] == 1
    finally:
        scheduler.stop()


def test_stop_tokens_sampling_and_bad_input(engine, expected):
    scheduler = ContinuousBatchingScheduler(engine, max_queue=8, eos_token_id=None)
    try:
        prompt, _ = mixed_requests(12)[0]
        solo = expected[prompt]
        stop_at = solo[2]
        handle = scheduler.submit(TOK.encode(prompt), SamplingParams(max_tokens=30, temperature=0.0,
                                                                     stop_token_ids=(stop_at,)))
        assert handle.result() == solo[:solo.index(stop_at)] and handle.finish_reason == "stop"
        sampled = [scheduler.submit(TOK.encode(prompt), SamplingParams(max_tokens=12, temperature=1.0, top_k=20,
                                                                        seed=5)).result() for _ in range(2)]
        assert sampled[0] == sampled[1]                 # a seed makes sampling repeatable
        with pytest.raises(ValueError, match="prompt"):
            scheduler.submit([], SamplingParams())
        with pytest.raises(ValueError, match="outside the vocabulary"):
            scheduler.submit([1, 99999], SamplingParams())
        with pytest.raises(ValueError, match="max_tokens"):
            scheduler.submit([1, 2], SamplingParams(max_tokens=0))
        with pytest.raises(ValueError, match="length limit"):
            scheduler.submit([1] * engine.max_model_len, SamplingParams())
    finally:
        scheduler.stop()
    with pytest.raises(GenerationError, match="stopped"):
        scheduler.submit([1, 2], SamplingParams())


def test_a_sequence_that_fills_the_pool_ends_with_length(model_dir):
    tiny_pool = load_engine(model_dir, block_size=4, num_blocks=3, max_batch_size=2, max_model_len=64)
    scheduler = ContinuousBatchingScheduler(tiny_pool, max_queue=4)
    try:
        handle = scheduler.submit([1, 2, 3], SamplingParams(max_tokens=50, temperature=0.0))
        tokens = handle.result()
        assert handle.finish_reason == "length" and len(tokens) == 3 * 4 - 3 + 1   # 12 slots hold 3 + 8 tokens
        assert scheduler.stats()["free_blocks"] == 3
    finally:
        scheduler.stop()
