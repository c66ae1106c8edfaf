"""`UnicodeScriptTokenizer`: split a string where the Unicode script changes (Latin | Han | digits ...).

MindSpore asks ICU for each character's script; Python's `unicodedata` has no script property, so the script is
read from the character's Unicode name, whose first word names the script for letters of the alphabets
("LATIN SMALL LETTER A", "CYRILLIC ...", "HIRAGANA ...", "CJK UNIFIED IDEOGRAPH-...": Han). Digits, punctuation
and symbols are "Common" (so "3.14" and "$5" stay one token), combining marks "Inherited" (a token of their
own, as ICU reports them), and whitespace separates tokens: runs of it are dropped, or kept as tokens with
`keep_whitespace=True`. An input with no token gives [""] (offsets 0, 0), as MindSpore does.

>>> from openspore.dataset.text import UnicodeScriptTokenizer
>>> UnicodeScriptTokenizer()("北京欢迎您！ hello,world 123abc").tolist()
['北京欢迎您', '！', 'hello', ',', 'world', '123', 'abc']
>>> UnicodeScriptTokenizer(keep_whitespace=True)("3.14 $5").tolist()
['3.14', ' ', '$5']
"""
import functools
import unicodedata

import numpy as np

from .transforms import _Tokenizer

# First words of character names that are not a script: the script is the word after them.
_WIDTH_PREFIXES = ("FULLWIDTH", "HALFWIDTH", "EXTENDED")
_WHITESPACE = "WHITESPACE"


@functools.lru_cache(maxsize=1)
def _script_words():
    """First words of letter names that name a script: those shared by at least 20 letters of the Basic
    Multilingual Plane (LATIN, CYRILLIC, HANGUL, ...), which leaves out letter-like symbol names (SCRIPT
    CAPITAL L, DOUBLE-STRUCK CAPITAL Z: Common in Unicode)."""
    counts = {}
    for code in range(0x10000):
        char = chr(code)
        if unicodedata.category(char) in ("Lu", "Ll", "Lo"):
            word = _first_word(unicodedata.name(char, "").split())
            counts[word] = counts.get(word, 0) + 1
    return frozenset(w for w, n in counts.items() if n >= 20) - {"MODIFIER", "MATHEMATICAL", "", "CJK"}


def _first_word(words):
    if len(words) > 1 and words[0] in _WIDTH_PREFIXES:
        words = words[1:]
    return words[0].split("-")[0] if words else ""


@functools.lru_cache(maxsize=4096)
def script_of(char):
    """The script class of one character: a script name ("LATIN", "HAN", ...), "COMMON", "INHERITED", or
    "WHITESPACE"."""
    if char.isspace():
        return _WHITESPACE
    category = unicodedata.category(char)
    words = unicodedata.name(char, "").split()
    if not words:
        return "COMMON"
    if (category in ("Mn", "Me") and words[0] == "COMBINING") or words[:3] in (["ZERO", "WIDTH", "JOINER"],
                                                                                ["ZERO", "WIDTH", "NON-JOINER"]):
        return "INHERITED"
    if "KATAKANA-HIRAGANA" in words[:2]:
        return "COMMON"   # the prolonged sound mark and the (half-width) voiced sound marks serve both kana
    first = _first_word(words)
    if category[0] == "L" or category == "Nl":
        if first in ("CJK", "KANGXI", "IDEOGRAPHIC"):
            return "HAN"
        if "ROMAN" in words and "NUMERAL" in words:
            return "LATIN"
        if first == "MODIFIER" and len(words) > 2 and words[2] in ("SMALL", "CAPITAL"):
            return "LATIN"   # MODIFIER LETTER SMALL H ... are Latin; the tone and accent letters Common
    return first if first in _script_words() else "COMMON"


class UnicodeScriptTokenizer(_Tokenizer):
    """`UnicodeScriptTokenizer(keep_whitespace=False, with_offsets=False)`: tokens are the runs of characters of
    one script; whitespace runs are dropped unless keep_whitespace."""

    def __init__(self, keep_whitespace=False, with_offsets=False):
        for name, value in (("keep_whitespace", keep_whitespace), ("with_offsets", with_offsets)):
            if not isinstance(value, bool):
                raise TypeError(f"Wrong input type for {name}, should be boolean.")
        super().__init__(with_offsets)
        self.keep_whitespace = keep_whitespace

    def _spans(self, s):
        spans, start = [], 0
        for i in range(1, len(s) + 1):
            if i == len(s) or script_of(s[i]) != script_of(s[start]):
                if self.keep_whitespace or script_of(s[start]) != _WHITESPACE:
                    spans.append((start, i))
                start = i
        return spans

    def _execute(self, value):
        out = super()._execute(value)
        tokens = out[0] if self.with_offsets else out
        if tokens.size:
            return out
        if not self.with_offsets:
            return np.array([""])
        return np.array([""]), np.array([0], np.uint32), np.array([0], np.uint32)
