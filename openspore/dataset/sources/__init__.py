"""Dataset sources: rows from Python objects and from standard dataset files."""
from .generator import GeneratorDataset, NumpySlicesDataset, Schema  # noqa: F401
from .mappable import MappableDataset  # noqa: F401
from .vision_files import (Cifar10Dataset, Cifar100Dataset, FashionMnistDataset, ImageFolderDataset,  # noqa: F401
                           MnistDataset)
from .text_files import CSVDataset, TextFileDataset  # noqa: F401
from .mindrecord import MindDataset  # noqa: F401
from .corpora import (AGNewsDataset, AmazonReviewDataset, DBpediaDataset, EnWik9Dataset, IMDBDataset,  # noqa: F401
                      PennTreebankDataset, SogouNewsDataset, WikiTextDataset, YahooAnswersDataset, YelpReviewDataset)
from .digit_files import SemeionDataset, STL10Dataset  # noqa: F401
