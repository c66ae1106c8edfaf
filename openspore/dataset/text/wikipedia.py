"""`FilterWikipediaXML`: Wikipedia dump text cleaned to lowercase a-z words separated by single spaces.

Markup goes first: a `#REDIRECT` page becomes empty, comments and tagged elements (`<ref>...</ref>`, with what
they enclose) and lone tags vanish, as do entities (`&amp;`); then A-Z is lowered, each digit is spelled
("1" -> "one"), and every other character is a separator. Link and template brackets are separators, so
`[[Cat]]` keeps "cat". MindSpore 2.10 also deletes every capital R ("WORLD" gives "wold"), which its
documentation does not describe; openspore lowers it like the other capitals.

>>> from openspore.dataset.text import FilterWikipediaXML
>>> FilterWikipediaXML()("The [[Cat]] sat on the {{mat}} 12 times.").tolist()
'the cat sat on the mat one two times'
"""
import re

import numpy as np

from ..transforms.base import TensorOperation

_DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_ELEMENT = re.compile(r"<(\w+)(?:\s[^<>]*)?(?<!/)>.*?</\1\s*>", re.S)
_TAG = re.compile(r"</?[^<>]*>")
_ENTITY = re.compile(r"&#?\w+;")
_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def clean(text):
    """One document's clean text."""
    if text.lstrip().lower().startswith("#redirect"):
        return ""
    for pattern in (_COMMENT, _ELEMENT, _TAG, _ENTITY):
        text = pattern.sub("", text)
    text = text.translate(_UPPER)
    text = re.sub(r"[0-9]", lambda m: f" {_DIGITS[int(m.group())]} ", text)
    return " ".join(re.sub(r"[^a-z]+", " ", text).split())


class FilterWikipediaXML(TensorOperation):
    """`FilterWikipediaXML()`: clean each string of the input (a str or an array of str)."""

    def _execute(self, value):
        arr = np.asarray(value)
        if arr.dtype.kind == "S":
            arr = np.char.decode(arr, "utf-8")
        if arr.dtype.kind != "U":
            raise TypeError(f"FilterWikipediaXML: the input should be of type string, but got {arr.dtype}.")
        return np.array([clean(str(s)) for s in arr.reshape(-1)]).reshape(arr.shape)
