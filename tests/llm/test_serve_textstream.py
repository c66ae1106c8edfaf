"""The serving worker's incremental TextStream gives exactly the text and stop decisions of decoding every token
again at each push (its previous behaviour), for byte-level and BPE tokenizers, random push groupings, multi-byte
characters split across tokens, random ids (invalid UTF-8 included) and stop strings."""
import numpy as np
import pytest

from openspore.llm.tokenizer import BPETokenizer, ByteTokenizer, settled_text
from openspore.serving.server.worker.llm_runtime import TextStream

CORPUS = ["héllo wörld, the servable streams text; 数据集 与 模型 🙂 and more words here."] * 40


class FullDecode:
    """The reference: decode all ids at every push."""

    def __init__(self, tokenizer, stops):
        self.tokenizer, self.stops = tokenizer, tuple(s for s in stops if s)
        self.hold = max((len(s) for s in self.stops), default=1) - 1
        self.ids, self.sent = [], 0

    def push(self, ids, final=False):
        self.ids.extend(ids)
        full = settled_text(self.tokenizer, self.ids, final)
        hits = [i for i in (full.find(s, max(0, self.sent - len(s) + 1)) for s in self.stops) if i >= 0]
        end, stopped = (min(hits), True) if hits else (
            (len(full) if final else max(self.sent, len(full) - self.hold)), False)
        delta = full[self.sent:end] if end > self.sent else ""
        self.sent = max(self.sent, end)
        return delta, stopped


@pytest.fixture(scope="module", params=["byte", "bpe"])
def tok(request):
    return ByteTokenizer() if request.param == "byte" else BPETokenizer.train(CORPUS, vocab_size=300)


@pytest.mark.parametrize("seed", range(9))
@pytest.mark.parametrize("stops", [(), ("wö",), ("\n", "🙂 a", "e")])
def test_incremental_stream_matches_full_decoding(tok, seed, stops):
    rng = np.random.default_rng(seed)
    if seed % 3 == 0:   # arbitrary ids: bytes that never form characters, special tokens
        ids = rng.integers(0, tok.vocab_size, int(rng.integers(1, 120))).tolist()
    else:
        text = CORPUS[0][int(rng.integers(0, 20)):] * 2
        ids = tok.encode(text)[:int(rng.integers(1, 90))]
    ours, ref = TextStream(tok, stops), FullDecode(tok, stops)
    at, got, want = 0, [], []
    while True:
        step = int(rng.integers(0, 5))
        chunk, at = ids[at:at + step], at + step
        final = at >= len(ids)
        a, b = ours.push(chunk, final=final), ref.push(chunk, final=final)
        got.append(a)
        want.append(b)
        if final or a[1] or b[1]:
            break
    assert got == want
