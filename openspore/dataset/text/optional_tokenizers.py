"""The text tokenizers that need a model package: `JiebaTokenizer` (Chinese word segmentation, `jieba`) and
SentencePiece (`SentencePieceVocab`, `SentencePieceTokenizer`, the `sentencepiece` package). openspore does not
depend on either package; the classes exist so that scripts import, and using one raises an ImportError that
names what is missing. `SentencePieceModel` (the model types) is plain data and works.

>>> from openspore.dataset import text
>>> text.SentencePieceModel.BPE.value
1
>>> try:
...     text.JiebaTokenizer("hmm_model.utf8", "jieba.dict.utf8")
... except ImportError as exc:
...     print(str(exc)[:58])
mindspore.dataset.text.JiebaTokenizer is not implemented i
"""
from enum import Enum


class SentencePieceModel(Enum):
    """The SentencePiece model types (`SentencePieceVocab.from_dataset(model_type=...)`)."""
    UNIGRAM = 0
    BPE = 1
    CHAR = 2
    WORD = 3


def _missing(name, package):
    return ImportError(f"mindspore.dataset.text.{name} is not implemented in openspore: it needs the '{package}' "
                       f"package's model, which openspore does not bundle (MindSpore runs its own copy). Use "
                       f"text.PythonTokenizer with '{package}' installed (pip install {package}) instead.")


class JiebaTokenizer:
    """`JiebaTokenizer(hmm_path, mp_path, mode=JiebaMode.MIX, with_offsets=False)`: not implemented (raises
    ImportError naming `jieba`)."""

    def __init__(self, hmm_path, mp_path, mode=None, with_offsets=False):
        raise _missing("JiebaTokenizer", "jieba")


class SentencePieceVocab:
    """SentencePiece model builder: `from_dataset`, `from_file` and `save_model` raise ImportError naming
    `sentencepiece`."""

    def __init__(self):
        raise _missing("SentencePieceVocab", "sentencepiece")

    @classmethod
    def from_dataset(cls, dataset, col_names, vocab_size, character_coverage, model_type, params):
        raise _missing("SentencePieceVocab.from_dataset", "sentencepiece")

    @classmethod
    def from_file(cls, file_path):
        raise _missing("SentencePieceVocab.from_file", "sentencepiece")

    @classmethod
    def save_model(cls, vocab, path, filename):
        raise _missing("SentencePieceVocab.save_model", "sentencepiece")


class SentencePieceTokenizer:
    """`SentencePieceTokenizer(mode, out_type)`: not implemented (raises ImportError naming `sentencepiece`)."""

    def __init__(self, mode, out_type):
        raise _missing("SentencePieceTokenizer", "sentencepiece")
