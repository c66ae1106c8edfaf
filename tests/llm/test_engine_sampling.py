"""Sampling: penalty / temperature / top-k / top-p against a direct numpy computation, per-request seeds,
stop tokens and strings in generate, and SamplingParams.validate's errors."""
import numpy as np
import pytest

from openspore.llm import LLMEngine, Sampler, SamplingParams, generate

from .test_engine import make_model


def reference_probs(logits, history, temperature, top_k, top_p, penalty):
    """The sampling distribution computed directly, token by token, in float64."""
    z = np.array(logits, np.float64)
    for t in set(history):
        z[t] = z[t] / penalty if z[t] > 0 else z[t] * penalty
    z = z / temperature
    keep = np.ones(z.size, bool)
    if top_k:
        threshold = sorted(z, reverse=True)[top_k - 1]
        keep &= z >= threshold
    p = np.where(keep, np.exp(z - z.max()), 0.0)
    p /= p.sum()
    if top_p < 1:
        ranked = sorted(range(z.size), key=lambda i: -p[i])
        mass, chosen = 0.0, set()
        for i in ranked:  # most probable first, until the mass reaches top_p
            chosen.add(i)
            mass += p[i]
            if mass >= top_p:
                break
        p = np.array([p[i] if i in chosen else 0.0 for i in range(z.size)])
        p /= p.sum()
    return p


@pytest.mark.parametrize("temperature,top_k,top_p,penalty", [
    (1.0, 0, 1.0, 1.0), (0.7, 5, 1.0, 1.0), (1.3, 0, 0.8, 1.0), (1.0, 10, 0.5, 1.0), (0.9, 0, 1.0, 1.5),
    (1.0, 7, 0.9, 2.0), (2.0, 1, 1.0, 1.0), (1.0, 0, 0.05, 1.0)])
def test_distribution_matches_numpy(temperature, top_k, top_p, penalty):
    rng = np.random.default_rng(0)
    logits = rng.standard_normal(50) * 3
    history = [3, 3, 7, 11, 49, int(np.argmax(logits))]
    params = SamplingParams(temperature=temperature, top_k=top_k, top_p=top_p, repetition_penalty=penalty, seed=5)
    sampler = Sampler(params)
    expected = reference_probs(logits, history, temperature, top_k, top_p, penalty)
    np.testing.assert_allclose(sampler.probabilities(logits, history), expected, atol=1e-12)
    if top_k:
        assert np.count_nonzero(expected) <= top_k
    # the draws are those of a numpy Generator seeded the same way, from that distribution
    draws = [sampler.next_token(logits, history) for _ in range(200)]
    ref_rng = np.random.default_rng(5)
    assert draws == [int(ref_rng.choice(50, p=expected)) for _ in range(200)]
    assert all(expected[d] > 0 for d in draws)


def test_greedy_with_penalty_picks_the_penalised_argmax():
    logits = np.array([5.0, 4.0, -1.0, 3.9])
    assert Sampler(SamplingParams(temperature=0)).next_token(logits, [0]) == 0
    # 5 / 1.5 = 3.33 < 4: the seen token 0 loses to token 1; a negative seen logit goes further down
    assert Sampler(SamplingParams(temperature=0, repetition_penalty=1.5)).next_token(logits, [0, 2]) == 1


@pytest.fixture(scope="module")
def engine():
    return LLMEngine(make_model(3), block_size=8, max_batch_size=4, max_model_len=96)


def test_seeded_generation_is_deterministic_and_per_request(engine):
    prompts = [[1, 2, 3], [10, 20, 30, 40, 50], [7]]
    params = [SamplingParams(max_tokens=20, temperature=1.0, top_k=20, seed=s) for s in (11, 12, 13)]
    first = generate(engine, prompts, params)
    again = generate(engine, prompts, params)
    assert first == again and all(len(o) == 20 for o in first)
    alone = generate(engine, prompts[1:2], params[1:2])  # a request's tokens do not depend on its batch
    assert alone[0] == first[1]
    other = generate(engine, prompts[:1], [SamplingParams(max_tokens=20, temperature=1.0, top_k=20, seed=99)])
    assert other[0] != first[0]
    assert engine.num_free_blocks() == engine.num_blocks


def test_stop_tokens_stop_strings_and_limits(engine):
    greedy = generate(engine, [[5, 6, 7]], SamplingParams(max_tokens=30, temperature=0))[0]
    assert len(greedy) == 30
    stop_at = greedy[10]
    cut = greedy.index(stop_at)
    out = generate(engine, [[5, 6, 7]], SamplingParams(max_tokens=30, temperature=0, stop_token_ids=(stop_at,)))
    assert out[0] == greedy[:cut]  # the stop token is not part of the output

    def detok(ids):
        return "".join(chr(65 + t % 26) for t in ids)
    target = detok(greedy[4:6])
    out = generate(engine, [[5, 6, 7]], SamplingParams(max_tokens=30, temperature=0, stop=(target,)),
                   detokenize=detok)
    text = detok(greedy)
    assert detok(out[0]) == text[:text.index(target) + len(target) - 1]
    with pytest.raises(ValueError, match="stop strings need 'detokenize'"):
        generate(engine, [[1]], SamplingParams(stop=("x",)))
    long = generate(engine, [[t % 50 for t in range(90)]], SamplingParams(max_tokens=50, temperature=0))[0]
    assert len(long) == 6  # the sequence ends at max_model_len = 96
    assert engine.num_free_blocks() == engine.num_blocks


@pytest.mark.parametrize("field,value,message", [
    ("max_tokens", 0, "max_tokens must be an int >= 1"),
    ("temperature", -0.1, "temperature must be a finite number >= 0"),
    ("temperature", float("nan"), "temperature must be a finite number >= 0"),
    ("top_k", -1, "top_k must be an int >= 0"),
    ("top_p", 1.5, r"top_p must be a number in \(0, 1\]"),
    ("repetition_penalty", 0, "repetition_penalty must be a finite number > 0"),
    ("stop_token_ids", (1, -2), r"stop_token_ids \(each\) must be an int >= 0"),
    ("stop_token_ids", "ab", "stop_token_ids must be a tuple"),
    ("stop", "END", "stop must be a tuple of non-empty strings"),
    ("stop", ("",), "stop must be a tuple of non-empty strings"),
    ("seed", -1, "seed must be an int >= 0"),
])
def test_validate_errors(field, value, message):
    with pytest.raises(ValueError, match=f"SamplingParams.{message}"):
        SamplingParams(**{field: value}).validate()
    with pytest.raises(ValueError, match=message):
        Sampler(SamplingParams(**{field: value}))
