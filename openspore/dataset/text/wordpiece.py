"""WordPiece sub-word tokenizers over a `Vocab` (`mindspore.dataset.text.WordpieceTokenizer`, `BertTokenizer`):
each word is split greedily into the longest pieces the vocabulary holds, pieces after the first carrying the
suffix indicator; a word that cannot be split this way becomes `unknown_token` (or stays whole when that is '').

>>> from openspore.dataset import text
>>> vocab = text.Vocab.from_list(["un", "##want", "##ed", "[UNK]"])
>>> text.WordpieceTokenizer(vocab)(["unwanted", "xyz"]).tolist()
['un', '##want', '##ed', '[UNK]']
"""
import numpy as np

from ..transforms.base import TensorOperation
from .transforms import BasicTokenizer, NormalizeForm, _strings, _text
from .vocab import Vocab


def _check_args(vocab, suffix_indicator, max_bytes_per_token, unknown_token, where):
    if not isinstance(vocab, Vocab):
        raise TypeError(f"For '{where}', 'vocab' must be a text.Vocab, but got {type(vocab).__name__}.")
    for name, value in (("suffix_indicator", suffix_indicator), ("unknown_token", unknown_token)):
        if not isinstance(value, str):
            raise TypeError(f"For '{where}', '{name}' must be a str, but got {type(value).__name__}.")
    if isinstance(max_bytes_per_token, bool) or not isinstance(max_bytes_per_token, int) or max_bytes_per_token < 0:
        raise ValueError(f"For '{where}', 'max_bytes_per_token' must be a non-negative int, but got "
                         f"{max_bytes_per_token!r}.")


def split_word(word, vocab, suffix_indicator, max_bytes_per_token, unknown_token):
    """[(piece, begin_byte, end_byte)] of one word, byte offsets relative to the word."""
    size = len(word.encode("utf-8"))
    whole = [(unknown_token or word, 0, size)]
    if size > max_bytes_per_token:
        return whole
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else suffix_indicator + word[start:end]
            if vocab.tokens_to_ids(piece) >= 0:
                break
            end -= 1
        if end == start:  # no prefix of the rest is in the vocabulary: the whole word is unknown
            return whole
        begin = len(word[:start].encode("utf-8"))
        pieces.append((piece, begin, begin + len(word[start:end].encode("utf-8"))))
        start = end
    return pieces


class WordpieceTokenizer(TensorOperation):
    """`WordpieceTokenizer(vocab, suffix_indicator='##', max_bytes_per_token=100, unknown_token='[UNK]',
    with_offsets=False)`: a 1-D array of words → their WordPiece tokens; with_offsets adds each piece's [begin, end)
    byte offsets inside its word (uint32)."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100, unknown_token="[UNK]",
                 with_offsets=False):
        _check_args(vocab, suffix_indicator, max_bytes_per_token, unknown_token, "WordpieceTokenizer")
        self.vocab, self.suffix_indicator = vocab, suffix_indicator
        self.max_bytes_per_token, self.unknown_token = max_bytes_per_token, unknown_token
        self.with_offsets = bool(with_offsets)

    def _split(self, word):
        return split_word(word, self.vocab, self.suffix_indicator, self.max_bytes_per_token, self.unknown_token)

    def _execute(self, value):
        pieces = [p for word in _text(value).reshape(-1) for p in self._split(str(word))]
        tokens = _strings([p[0] for p in pieces])
        if not self.with_offsets:
            return tokens
        return tokens, np.array([p[1] for p in pieces], np.uint32), np.array([p[2] for p in pieces], np.uint32)


class BertTokenizer(TensorOperation):
    """`BertTokenizer(vocab, suffix_indicator='##', max_bytes_per_token=100, unknown_token='[UNK]',
    lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
    with_offsets=False)`: BasicTokenizer then WordpieceTokenizer on a string; with_offsets gives byte offsets in
    the input string."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100, unknown_token="[UNK]",
                 lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
                 preserve_unused_token=True, with_offsets=False):
        self.basic = BasicTokenizer(lower_case, keep_whitespace, normalization_form, preserve_unused_token,
                                    with_offsets=True)
        self.wordpiece = WordpieceTokenizer(vocab, suffix_indicator, max_bytes_per_token, unknown_token)
        self.with_offsets = bool(with_offsets)

    def _execute(self, value):
        words, begins, _ = self.basic(value)
        pieces = [(piece, int(base) + b, int(base) + e) for word, base in zip(words.tolist(), begins.tolist())
                  for piece, b, e in self.wordpiece._split(word)]
        tokens = _strings([p[0] for p in pieces])
        if not self.with_offsets:
            return tokens
        return tokens, np.array([p[1] for p in pieces], np.uint32), np.array([p[2] for p in pieces], np.uint32)
