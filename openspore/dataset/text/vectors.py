"""Pretrained word vectors: `Vectors`, `GloVe`, `FastText` and `CharNGram` (loaded from their text files with
`from_file`) and `ToVectors`, which maps tokens to their vectors.

A vectors file has one token per line followed by its values, separated by spaces; a first line of two integers
(count, dimension), as fastText's .vec files start, is skipped. CharNGram looks up the character 2-, 3- and
4-grams of `#BEGIN#` + token + `#END#` (keys `<n>gram-<chars>`) and averages the ones it has.

>>> import os, tempfile
>>> from openspore.dataset import text
>>> path = os.path.join(tempfile.mkdtemp(), "vectors.txt")
>>> with open(path, "w") as f:
...     _ = f.write("ok 0.1 0.2\\nfine 0.3 0.4\\n")
>>> vectors = text.Vectors.from_file(path)
>>> text.ToVectors(vectors)(["fine", "zzz"]).tolist()
[[0.30000001192092896, 0.4000000059604645], [0.0, 0.0]]
"""
import os
import re

import numpy as np

from ..transforms.base import TensorOperation


class Vectors:
    """Token → float32 vector table; build it with `from_file(file_path, max_vectors=None)`."""

    _where = "Vectors"

    def __init__(self):
        self.itos, self.stoi, self.vectors, self.dim = [], {}, np.zeros((0, 0), np.float32), 0

    @classmethod
    def _check_file(cls, file_path):
        if not isinstance(file_path, (str, os.PathLike)) or not os.path.isfile(file_path):
            raise ValueError(f"For '{cls._where}.from_file', the file {file_path!r} does not exist or permission "
                             f"denied!")

    @classmethod
    def from_file(cls, file_path, max_vectors=None):
        """`from_file(file_path, max_vectors=None)`: read the first `max_vectors` vectors (all by default)."""
        cls._check_file(file_path)
        if max_vectors is not None and (isinstance(max_vectors, bool) or not isinstance(max_vectors, int)
                                        or max_vectors < 0):
            raise ValueError(f"For '{cls._where}.from_file', 'max_vectors' must be a non-negative int, but got "
                             f"{max_vectors!r}.")
        table, rows = cls(), []
        with open(file_path, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                parts = line.rstrip("\n").rstrip(" ").split(" ")
                if line_no == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                    continue  # fastText header: count and dimension
                if len(parts) < 2:
                    continue
                if max_vectors is not None and len(rows) >= max_vectors:
                    break
                token, values = parts[0], parts[1:]
                if table.dim == 0:
                    table.dim = len(values)
                elif len(values) != table.dim:
                    raise RuntimeError(f"For '{cls._where}.from_file', line {line_no} of {file_path} has "
                                       f"{len(values)} values, but earlier lines have {table.dim}.")
                if token in table.stoi:
                    continue
                try:
                    rows.append(np.array([float(v) for v in values], np.float32))
                except ValueError:
                    raise RuntimeError(f"For '{cls._where}.from_file', line {line_no} of {file_path} has a value "
                                       f"that is not a number.") from None
                table.stoi[token] = len(table.itos)
                table.itos.append(token)
        table.vectors = np.stack(rows) if rows else np.zeros((0, table.dim), np.float32)
        return table

    def _lookup(self, token):
        k = self.stoi.get(token)
        return None if k is None else self.vectors[k]

    def __len__(self):
        return len(self.itos)


class GloVe(Vectors):
    """GloVe vectors, from a `glove.<corpus>.<dim>d.txt` file."""

    _where = "GloVe"

    @classmethod
    def _check_file(cls, file_path):
        super()._check_file(file_path)
        if not re.fullmatch(r"glove\.[\w.]+\.\d+d\.txt", os.path.basename(file_path)):
            raise ValueError(f"For 'GloVe.from_file', the file name must look like glove.6B.50d.txt, but got "
                             f"{os.path.basename(file_path)!r}.")


class FastText(Vectors):
    """fastText vectors, from a `.vec` file."""

    _where = "FastText"

    @classmethod
    def _check_file(cls, file_path):
        super()._check_file(file_path)
        if not os.fspath(file_path).endswith(".vec"):
            raise ValueError(f"For 'FastText.from_file', the file must be a .vec file, but got "
                             f"{os.path.basename(file_path)!r}.")


class CharNGram(Vectors):
    """Character n-gram vectors (keys `<n>gram-<chars>`); a token's vector averages its 2-, 3- and 4-grams."""

    _where = "CharNGram"

    def _lookup(self, token):
        chars = ["#BEGIN#"] + list(token) + ["#END#"]
        found = []
        for n in (2, 3, 4):
            for i in range(len(chars) - n + 1):
                k = self.stoi.get(f"{n}gram-{''.join(chars[i:i + n])}")
                if k is not None:
                    found.append(self.vectors[k])
        return np.mean(found, axis=0).astype(np.float32) if found else None


class ToVectors(TensorOperation):
    """`ToVectors(vectors, unk_init=None, lower_case_backup=False)`: each token (a string or string array) → its
    vector, float32 (..., dim); a token not found (nor, with `lower_case_backup`, its lower case) gets `unk_init`
    (default zeros)."""

    def __init__(self, vectors, unk_init=None, lower_case_backup=False):
        if not isinstance(vectors, Vectors):
            raise TypeError(f"For 'ToVectors', 'vectors' must be a Vectors, GloVe, FastText or CharNGram, but got "
                            f"{type(vectors).__name__}.")
        if unk_init is not None:
            unk_init = np.asarray(unk_init, np.float32)
            if unk_init.shape != (vectors.dim,):
                raise ValueError(f"For 'ToVectors', 'unk_init' must have {vectors.dim} values, but got "
                                 f"{unk_init.shape}.")
        self.vectors, self.unk_init = vectors, unk_init
        self.lower_case_backup = bool(lower_case_backup)

    def _one(self, token):
        token = token.decode("utf-8") if isinstance(token, bytes) else str(token)
        vector = self.vectors._lookup(token)
        if vector is None and self.lower_case_backup:
            vector = self.vectors._lookup(token.lower())
        if vector is None:
            vector = self.unk_init if self.unk_init is not None else np.zeros(self.vectors.dim, np.float32)
        return vector

    def _execute(self, tokens):
        tokens = np.asarray(tokens)
        if tokens.dtype.kind not in "SU":
            raise TypeError(f"For 'ToVectors', the input must be strings, but got {tokens.dtype}.")
        out = np.array([self._one(t) for t in tokens.reshape(-1)], np.float32).reshape(
            tokens.shape + (self.vectors.dim,))
        return out
