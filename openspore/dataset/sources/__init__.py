"""Dataset sources: rows from Python objects and from standard dataset files."""
from .generator import GeneratorDataset, NumpySlicesDataset, Schema  # noqa: F401
from .mappable import MappableDataset  # noqa: F401
from .vision_files import (Cifar10Dataset, Cifar100Dataset, FashionMnistDataset, ImageFolderDataset,  # noqa: F401
                           MnistDataset)
from .text_files import CSVDataset, TextFileDataset  # noqa: F401
from .mindrecord import MindDataset  # noqa: F401
from .corpora import (AGNewsDataset, AmazonReviewDataset, CoNLL2000Dataset, DBpediaDataset,  # noqa: F401
                      EnWik9Dataset, IMDBDataset, PennTreebankDataset, SogouNewsDataset, UDPOSDataset,
                      WikiTextDataset, YahooAnswersDataset, YelpReviewDataset)
from .digit_files import SemeionDataset, STL10Dataset  # noqa: F401
