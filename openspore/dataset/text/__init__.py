"""`mindspore.dataset.text`: text transforms, `Vocab` and pretrained word vectors (the tokenizers that need
external models — Jieba, SentencePiece — are present but raise an ImportError naming the package)."""
from .transforms import (AddToken, BasicTokenizer, CaseFold, JiebaMode, Lookup, Ngram, NormalizeForm,  # noqa: F401
                         NormalizeUTF8, PythonTokenizer, RegexReplace, RegexTokenizer, SlidingWindow,
                         SPieceTokenizerLoadType, SPieceTokenizerOutType, ToNumber, Truncate, TruncateSequencePair,
                         UnicodeCharTokenizer, WhitespaceTokenizer, to_bytes, to_str)
from .vocab import Vocab  # noqa: F401
from .wordpiece import BertTokenizer, WordpieceTokenizer  # noqa: F401

__all__ = ["AddToken", "BasicTokenizer", "CaseFold", "JiebaMode", "Lookup", "Ngram", "NormalizeForm",
           "NormalizeUTF8", "PythonTokenizer", "RegexReplace", "RegexTokenizer", "SlidingWindow",
           "SPieceTokenizerLoadType", "SPieceTokenizerOutType", "ToNumber", "Truncate", "TruncateSequencePair",
           "UnicodeCharTokenizer", "WhitespaceTokenizer", "to_bytes", "to_str", "Vocab", "BertTokenizer",
           "WordpieceTokenizer"]
from .vectors import CharNGram, FastText, GloVe, ToVectors, Vectors  # noqa: F401,E402

__all__ += ["CharNGram", "FastText", "GloVe", "ToVectors", "Vectors"]
from .unicode_script import UnicodeScriptTokenizer  # noqa: F401,E402

__all__ += ["UnicodeScriptTokenizer"]
from .wikipedia import FilterWikipediaXML  # noqa: F401,E402
from .optional_tokenizers import (JiebaTokenizer, SentencePieceModel, SentencePieceTokenizer,  # noqa: F401,E402
                                  SentencePieceVocab)

__all__ += ["FilterWikipediaXML", "JiebaTokenizer", "SentencePieceModel", "SentencePieceTokenizer",
            "SentencePieceVocab"]
