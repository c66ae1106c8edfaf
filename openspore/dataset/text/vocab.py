"""`Vocab`: the token ↔ id table the text transforms look up (`from_list`, `from_dict`, `from_dataset`).

>>> from openspore.dataset.text import Vocab
>>> v = Vocab.from_list(["a", "b"], special_tokens=["<pad>", "<unk>"])
>>> v.vocab(), v.tokens_to_ids(["b", "zz"])
({'<pad>': 0, '<unk>': 1, 'a': 2, 'b': 3}, [3, -1])
"""
import collections

import numpy as np

from ..engine.checks import INT32_MAX, check_interval, check_type


class Vocab:
    """A mapping of tokens to ids; build it with the `from_*` class methods."""

    def __init__(self):
        self._ids = {}

    @classmethod
    def _from_tokens(cls, words, special_tokens, special_first):
        special = list(special_tokens or [])
        vocab = cls()
        ordered = special + [w for w in words if w not in special] if special_first else \
            [w for w in words if w not in special] + special
        for token in ordered:
            if token in vocab._ids:
                raise ValueError(f"For 'Vocab', the token {token!r} is listed twice.")
            vocab._ids[token] = len(vocab._ids)
        return vocab

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True):
        """Ids in list order (special tokens first or last)."""
        if not isinstance(word_list, list) or not all(isinstance(w, str) for w in word_list):
            raise TypeError("For 'Vocab.from_list', 'word_list' must be a list of str.")
        return cls._from_tokens(word_list, special_tokens, special_first)

    @classmethod
    def from_dict(cls, word_dict):
        """The given {token: id} mapping."""
        check_type(word_dict, (dict,), "word_dict")  # MindSpore's checks and sentences, entry by entry
        for word, word_id in word_dict.items():
            check_type(word, (str,), "word")
            check_type(word_id, (int,), "word_id")
            check_interval(word_id, 0, INT32_MAX, "word_id")
        vocab = cls()
        vocab._ids = dict(word_dict)
        return vocab

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None, special_first=True):
        """One token per line (the part before `delimiter` when given), at most `vocab_size` of them."""
        words = []
        with open(file_path, encoding="utf-8") as f:
            for line in f:
                token = line.rstrip("\n")
                token = token.split(delimiter)[0] if delimiter else token
                if token and token not in words:
                    words.append(token)
                if vocab_size is not None and len(words) >= vocab_size:
                    break
        return cls._from_tokens(words, special_tokens, special_first)

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None, special_tokens=None,
                     special_first=True):
        """Tokens of the dataset's (string) columns, most frequent first (ties alphabetical), filtered by
        `freq_range` = (min, max) counts and cut to `top_k`."""
        names = dataset.get_col_names()
        wanted = [names.index(c) for c in ([columns] if isinstance(columns, str) else columns or names)]
        counts = collections.Counter()
        for row in dataset.create_tuple_iterator(output_numpy=True):
            for i in wanted:
                counts.update(str(t) for t in np.asarray(row[i]).reshape(-1))
        low, high = freq_range if freq_range is not None else (0, None)
        kept = [(w, n) for w, n in counts.items() if n >= (low or 0) and (high is None or n <= high)]
        kept.sort(key=lambda wn: (-wn[1], wn[0]))
        if top_k is not None:
            kept = kept[:top_k]
        return cls._from_tokens([w for w, _ in kept], special_tokens, special_first)

    def vocab(self):
        """The {token: id} dict."""
        return dict(self._ids)

    def tokens_to_ids(self, tokens):
        """Id of each token (−1 when absent); a single token gives a single id."""
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        return [self._ids.get(str(t), -1) for t in tokens]

    def ids_to_tokens(self, ids):
        """Token of each id ('' when absent); a single id gives a single token."""
        reverse = {v: k for k, v in self._ids.items()}
        if isinstance(ids, (int, np.integer)):
            return reverse.get(int(ids), "")
        return [reverse.get(int(i), "") for i in ids]

    def __len__(self):
        return len(self._ids)
