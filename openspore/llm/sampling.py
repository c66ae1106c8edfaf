"""`SamplingParams` and `Sampler`: how the next token is chosen from a row of logits.

The order is: repetition penalty on the tokens seen so far (a positive logit is divided by the penalty, a
negative one multiplied, as CTRL and Hugging Face do), then greedy argmax when `temperature == 0`, else division by
the temperature, top-k (keep the k largest logits, ties with the k-th included), top-p (keep the smallest set of
most probable tokens whose probability reaches top_p), and a draw from the renormalised distribution with the
sequence's own seeded numpy Generator.

>>> import numpy as np
>>> Sampler(SamplingParams(temperature=0)).next_token(np.array([0.1, 2.0, -1.0]), history=[])
1
>>> SamplingParams(top_p=0).validate()
Traceback (most recent call last):
  ...
ValueError: SamplingParams.top_p must be a number in (0, 1], but got 0.
"""
import math
from dataclasses import dataclass

import numpy as np


@dataclass
class SamplingParams:
    """How to generate: see the module docstring for the meaning and order of the fields."""
    max_tokens: int = 64
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    repetition_penalty: float = 1.0
    stop_token_ids: tuple = ()
    stop: tuple = ()
    seed: int = None

    def validate(self):
        """Raise ValueError naming the first field outside its allowed range; returns self."""
        _int("max_tokens", self.max_tokens, 1)
        _int("top_k", self.top_k, 0)
        if self.seed is not None:
            _int("seed", self.seed, 0)
        t = self.temperature
        if not _is_number(t) or not (t >= 0 and math.isfinite(t)):
            raise ValueError(f"SamplingParams.temperature must be a finite number >= 0 (0 = greedy), but got {t!r}.")
        p = self.top_p
        if not _is_number(p) or not 0 < p <= 1:
            raise ValueError(f"SamplingParams.top_p must be a number in (0, 1], but got {p!r}.")
        r = self.repetition_penalty
        if not _is_number(r) or not (r > 0 and math.isfinite(r)):
            raise ValueError(f"SamplingParams.repetition_penalty must be a finite number > 0 (1 = none), but got "
                             f"{r!r}.")
        if isinstance(self.stop_token_ids, (str, bytes)) or not isinstance(self.stop_token_ids, (tuple, list)):
            raise ValueError(f"SamplingParams.stop_token_ids must be a tuple of int token ids >= 0, but got "
                             f"{self.stop_token_ids!r}.")
        for t in self.stop_token_ids:
            _int("stop_token_ids", t, 0, " (each)")
        stop = self.stop
        if isinstance(stop, str) or not isinstance(stop, (tuple, list)) or \
                not all(isinstance(s, str) and s for s in stop):
            raise ValueError(f"SamplingParams.stop must be a tuple of non-empty strings, but got {stop!r}.")
        return self


def _is_number(v):
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _int(name, value, low, each=""):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"SamplingParams.{name}{each} must be an int >= {low}, but got {value!r}.")


def apply_repetition_penalty(logits, history, penalty):
    """A copy of logits (float64) where each token in history is made less likely by `penalty`."""
    out = np.array(logits, np.float64)
    if penalty != 1.0 and len(history):
        seen = np.unique(np.asarray(history, np.int64))
        vals = out[seen]
        out[seen] = np.where(vals > 0, vals / penalty, vals * penalty)
    return out


def filter_top_k_top_p(logits, top_k, top_p):
    """logits with -inf outside the top-k / top-p set (the input is already divided by the temperature)."""
    out = np.array(logits, np.float64)
    if 0 < top_k < out.size:
        kth = np.partition(out, -top_k)[-top_k]
        out[out < kth] = -np.inf
    if top_p < 1.0:
        order = np.argsort(-out, kind="stable")
        probs = np.exp(out[order] - out[order[0]])
        probs /= probs.sum()
        before = np.cumsum(probs) - probs  # probability mass of the tokens ranked above each one
        out[order[before >= top_p]] = -np.inf
    return out


class Sampler:
    """The next-token rule of one sequence; holds its Generator (seeded by params.seed, or fresh entropy)."""

    def __init__(self, params):
        if not isinstance(params, SamplingParams):
            raise TypeError(f"Sampler expects SamplingParams, but got {type(params).__name__}.")
        self.params = params.validate()
        self.rng = np.random.default_rng(params.seed)
        # the argmax of the logits themselves: a batch of such rows can take one argmax for all (the scheduler)
        self.greedy = params.temperature == 0 and params.repetition_penalty == 1.0

    def next_token(self, logits_row, history):
        """The next token id after `history` (prompt and generated ids so far) given its logits row."""
        if self.params.temperature == 0:
            if self.params.repetition_penalty == 1.0:  # the argmax of the logits themselves: no copies
                return int(np.argmax(logits_row))
            return int(np.argmax(self.probabilities(logits_row, history)))
        probs = self.probabilities(logits_row, history)
        return int(self.rng.choice(probs.size, p=probs))

    def probabilities(self, logits_row, history):
        """The distribution the next token is drawn from (float64); under greedy, one-hot at the argmax."""
        p = self.params
        logits = apply_repetition_penalty(np.asarray(logits_row).reshape(-1), history, p.repetition_penalty)
        if p.temperature == 0:
            probs = np.zeros(logits.size)
            probs[np.argmax(logits)] = 1.0
            return probs
        logits = filter_top_k_top_p(logits / p.temperature, p.top_k, p.top_p)
        probs = np.exp(logits - logits.max())
        return probs / probs.sum()

    def is_stop_token(self, token):
        return token in self.params.stop_token_ids


def find_stop(text, stops):
    """The index in `text` where the earliest stop string begins, or -1 (serving truncates text there)."""
    hits = [i for i in (text.find(s) for s in stops) if i >= 0]
    return min(hits) if hits else -1
