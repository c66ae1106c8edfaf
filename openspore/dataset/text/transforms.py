"""Text transforms (`mindspore.dataset.text`): tokenizers, vocabulary lookup, n-grams and sequence utilities.
They run eagerly on numpy arrays of str (or a Python str) and inside `Dataset.map`.

>>> import numpy as np
>>> from openspore.dataset import text
>>> text.WhitespaceTokenizer()("hello  world").tolist()
['hello', 'world']
>>> text.Ngram([2])(np.array(["a", "b", "c"])).tolist()
['a b', 'b c']
"""
import re
import unicodedata
from enum import Enum

import numpy as np

from ..engine.checks import INT32_MAX, check_interval, check_type
from ..transforms.base import TensorOperation
from .vocab import Vocab


class NormalizeForm(Enum):
    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


class JiebaMode(Enum):
    MIX = 0
    MP = 1
    HMM = 2


class SPieceTokenizerOutType(Enum):
    STRING = 0
    INT = 1


class SPieceTokenizerLoadType(Enum):
    FILE = 0
    MODEL = 1


def _text(value):
    arr = np.asarray(value)
    if arr.dtype.kind == "S":
        arr = arr.astype(str)
    if arr.dtype.kind != "U":
        raise TypeError(f"The text transform expects string input, but got an array of {arr.dtype}.")
    return arr


def _strings(tokens):
    return np.array(tokens, dtype=str) if tokens else np.array([], dtype="<U1")


class _Tokenizer(TensorOperation):
    """Splits one string into tokens; `with_offsets` also returns the [begin, end) byte offsets."""

    def __init__(self, with_offsets=False):
        self.with_offsets = bool(with_offsets)

    def _execute(self, value):
        s = str(_text(value).reshape(-1)[0]) if _text(value).size else ""
        spans = self._spans(s)
        tokens = _strings([s[a:b] for a, b in spans])
        if not self.with_offsets:
            return tokens
        starts = [len(s[:a].encode("utf-8")) for a, _ in spans]
        ends = [len(s[:b].encode("utf-8")) for _, b in spans]
        return tokens, np.array(starts, np.uint32), np.array(ends, np.uint32)


class WhitespaceTokenizer(_Tokenizer):
    """Tokens separated by whitespace."""

    def _spans(self, s):
        return [m.span() for m in re.finditer(r"\S+", s)]


class UnicodeCharTokenizer(_Tokenizer):
    """One token per character."""

    def _spans(self, s):
        return [(i, i + 1) for i in range(len(s))]


class RegexTokenizer(_Tokenizer):
    """`RegexTokenizer(delim_pattern, keep_delim_pattern='', with_offsets=False)`: split at matches of
    delim_pattern; delimiters that also match keep_delim_pattern become tokens."""

    def __init__(self, delim_pattern, keep_delim_pattern="", with_offsets=False):
        super().__init__(with_offsets)
        self.delim_pattern, self.keep_delim_pattern = delim_pattern, keep_delim_pattern

    def _spans(self, s):
        spans, pos = [], 0
        for m in re.finditer(self.delim_pattern, s):
            if m.start() > pos:
                spans.append((pos, m.start()))
            if self.keep_delim_pattern and m.end() > m.start() and re.fullmatch(self.keep_delim_pattern, m.group()):
                spans.append(m.span())
            pos = m.end()
        if pos < len(s):
            spans.append((pos, len(s)))
        return spans


class BasicTokenizer(_Tokenizer):
    """`BasicTokenizer(lower_case=False, keep_whitespace=False, ...)`: whitespace split with each punctuation mark
    (and CJK character) as its own token; lower_case also folds case and strips accents."""

    def __init__(self, lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
                 preserve_unused_token=True, with_offsets=False):
        super().__init__(with_offsets)
        self.lower_case, self.keep_whitespace = bool(lower_case), bool(keep_whitespace)
        self.normalization_form = normalization_form

    def _execute(self, value):
        arr = _text(value)
        s = str(arr.reshape(-1)[0]) if arr.size else ""
        if self.lower_case:
            s = "".join(c for c in unicodedata.normalize("NFD", s.lower()) if unicodedata.category(c) != "Mn")
        elif self.normalization_form != NormalizeForm.NONE:
            s = unicodedata.normalize(self.normalization_form.name, s)
        return super()._execute(np.array(s))

    def _spans(self, s):
        spans, start = [], None
        for i, c in enumerate(s):
            single = unicodedata.category(c).startswith("P") or 0x4E00 <= ord(c) <= 0x9FFF
            if c.isspace() or single:
                if start is not None:
                    spans.append((start, i))
                    start = None
                if single or (self.keep_whitespace and c.isspace()):
                    spans.append((i, i + 1))
            elif start is None:
                start = i
        if start is not None:
            spans.append((start, len(s)))
        return spans


class PythonTokenizer(TensorOperation):
    """`PythonTokenizer(tokenizer)`: tokens from a Python function str → list of str."""

    def __init__(self, tokenizer):
        if not callable(tokenizer):
            raise TypeError(f"For 'PythonTokenizer', 'tokenizer' must be callable, but got {type(tokenizer).__name__}.")
        self.tokenizer = tokenizer

    def _execute(self, value):
        return _strings(list(self.tokenizer(str(_text(value).reshape(-1)[0]))))


class Lookup(TensorOperation):
    """`Lookup(vocab, unknown_token=None, data_type=int32)`: token → id (unknown tokens → the id of unknown_token;
    without one, an unknown token is an error)."""

    def __init__(self, vocab, unknown_token=None, data_type=None):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"For 'Lookup', 'vocab' must be a Vocab, but got {type(vocab).__name__}.")
        self.vocab, self.unknown_token = vocab, unknown_token
        from ...common import dtype as mstype
        self.data_type = mstype.int32 if data_type is None else data_type
        if unknown_token is not None and vocab.tokens_to_ids(unknown_token) < 0:
            raise ValueError(f"For 'Lookup', the unknown_token {unknown_token!r} is not in the vocabulary.")

    def _execute(self, value):
        arr = _text(value)
        ids = np.array(self.vocab.tokens_to_ids([str(t) for t in arr.reshape(-1)]), np.int64)
        if (ids < 0).any():
            if self.unknown_token is None:
                bad = [str(t) for t, i in zip(arr.reshape(-1), ids) if i < 0]
                raise RuntimeError(f"For 'Lookup', the tokens {bad} are not in the vocabulary and no "
                                   "'unknown_token' was given.")
            ids[ids < 0] = self.vocab.tokens_to_ids(self.unknown_token)
        return ids.reshape(arr.shape).astype(self.data_type.np_dtype)


class Ngram(TensorOperation):
    """`Ngram(n, left_pad=('', 0), right_pad=('', 0), separator=' ')`: the n-grams of a 1-D token array for each
    n in the list, after padding."""

    def __init__(self, n, left_pad=("", 0), right_pad=("", 0), separator=" "):
        self.n = [n] if isinstance(n, int) else list(n)
        if not self.n or any(not isinstance(k, int) or k < 1 for k in self.n):
            raise ValueError(f"For 'Ngram', 'n' must hold positive ints, but got {n!r}.")
        self.left_pad, self.right_pad, self.separator = left_pad, right_pad, separator

    def _execute(self, value):
        tokens = [str(t) for t in _text(value).reshape(-1)]
        out = []
        for k in self.n:
            padded = [self.left_pad[0]] * min(self.left_pad[1], k - 1) + tokens + \
                [self.right_pad[0]] * min(self.right_pad[1], k - 1)
            out += [self.separator.join(padded[i:i + k]) for i in range(len(padded) - k + 1)]
        return _strings(out)


class SlidingWindow(TensorOperation):
    """`SlidingWindow(width, axis=0)`: the windows of `width` consecutive entries along `axis`, stacked."""

    def __init__(self, width, axis=0):
        check_type(width, (int,), "width")
        check_interval(width, 1, INT32_MAX, "width")
        check_type(axis, (int,), "axis")
        self.width, self.axis = width, axis

    def _execute(self, value):
        arr = np.asarray(value)
        if self.axis not in (0, -1):
            raise RuntimeError(f"SlidingWindow: The parameter axis supports 0 or -1 only for now, but got "
                               f"{self.axis}.")
        if arr.ndim != 1:
            raise RuntimeError(f"SlidingWindow: SlidingWindow supports 1D input only for now, but got {arr.ndim}D.")
        n = arr.shape[0] - self.width + 1
        if n <= 0:  # wider than the input: no window, an empty 1-D result
            return np.empty((0,), arr.dtype)
        return np.stack([arr[i:i + self.width] for i in range(n)])


class ToNumber(TensorOperation):
    """`ToNumber(data_type)`: strings parsed as numbers of `data_type`."""

    def __init__(self, data_type):
        from ...common import dtype as mstype
        if data_type is mstype.string or data_type is mstype.bool_:  # MindSpore's check: the type must be numeric
            raise TypeError(f"data_type: {data_type} is not numeric data type.")
        self.data_type = mstype.to_dtype(data_type, "ToNumber")

    def _execute(self, value):
        arr = _text(value)
        kind = np.dtype(self.data_type.np_dtype).kind
        try:
            parsed = [int(s) if kind in "iu" else float(s) for s in arr.reshape(-1)]
            return np.array(parsed).astype(self.data_type.np_dtype).reshape(arr.shape)
        except (ValueError, OverflowError) as exc:
            raise RuntimeError(f"For 'ToNumber', a string could not be converted to {self.data_type}: {exc}.") from None


class Truncate(TensorOperation):
    """`Truncate(max_seq_len)`: the first max_seq_len entries of a 1-D (or the last axis of a 2-D) array."""

    def __init__(self, max_seq_len):
        self.max_seq_len = max_seq_len

    def _execute(self, value):
        return np.asarray(value)[..., :self.max_seq_len]


class TruncateSequencePair(TensorOperation):
    """`TruncateSequencePair(max_length)`: drop entries from the end of the longer of two arrays (the second on a
    tie) until their total length is at most max_length."""

    def __init__(self, max_length):
        self.max_length = max_length

    def __call__(self, *inputs):
        return self._execute(*(np.asarray(x) for x in inputs))

    def _execute(self, first, second):
        a, b = len(first), len(second)
        while a + b > self.max_length:
            if a > b:
                a -= 1
            else:
                b -= 1
        return first[:a], second[:b]


class AddToken(TensorOperation):
    """`AddToken(token, begin=True)`: a token added at the start (or end) of a 1-D string array."""

    def __init__(self, token, begin=True):
        self.token, self.begin = token, bool(begin)

    def _execute(self, value):
        tokens = [str(t) for t in _text(value).reshape(-1)]
        return _strings([self.token] + tokens if self.begin else tokens + [self.token])


class CaseFold(TensorOperation):
    """Unicode case folding of every string."""

    def _execute(self, value):
        arr = _text(value)
        return np.vectorize(lambda s: s.casefold(), otypes=[str])(arr) if arr.size else arr


class NormalizeUTF8(TensorOperation):
    """`NormalizeUTF8(normalize_form=NFKC)`: Unicode normalisation of every string."""

    def __init__(self, normalize_form=NormalizeForm.NFKC):
        self.normalize_form = normalize_form

    def _execute(self, value):
        arr = _text(value)
        if self.normalize_form == NormalizeForm.NONE or not arr.size:
            return arr
        form = self.normalize_form.name
        return np.vectorize(lambda s: unicodedata.normalize(form, s), otypes=[str])(arr)


class RegexReplace(TensorOperation):
    """`RegexReplace(pattern, replace, replace_all=True)`: regex substitution in every string."""

    def __init__(self, pattern, replace, replace_all=True):
        self.pattern, self.replace, self.replace_all = pattern, replace, bool(replace_all)

    def _execute(self, value):
        arr = _text(value)
        count = 0 if self.replace_all else 1
        return np.vectorize(lambda s: re.sub(self.pattern, self.replace, s, count=count), otypes=[str])(arr) \
            if arr.size else arr


def to_str(array, encoding="utf8"):
    """bytes array → str array."""
    arr = np.asarray(array)
    if arr.dtype.kind != "S":
        raise TypeError(f"For 'to_str', the input must be an array of bytes, but got {arr.dtype}.")
    return np.char.decode(arr, encoding)


def to_bytes(array, encoding="utf8"):
    """str array → bytes array."""
    arr = np.asarray(array)
    if arr.dtype.kind != "U":
        raise TypeError(f"For 'to_bytes', the input must be an array of str, but got {arr.dtype}.")
    return np.char.encode(arr, encoding)
