"""`mindspore.mindrecord`: MindRecord files (a set of shard files, each with a `.db` SQLite index) — FileWriter,
FileReader and converters from common dataset layouts. The byte format is MindSpore's (version 3.0), so files
move between openspore and MindSpore in both directions."""
from .converters import Cifar10ToMR, Cifar100ToMR, CsvToMR, ImageNetToMR, MnistToMR  # noqa: F401
from .errors import (MRMDefineIndexError, MRMGetMetaError, MRMInvalidSchemaError, MRMOpenError, MRMValidateDataError,  # noqa: F401
                     ParamTypeError, ParamValueError)
from .page import MindPage  # noqa: F401
from .reader import FileReader  # noqa: F401
from .writer import FileWriter  # noqa: F401

SUCCESS = 0
FAILED = 1

__all__ = ["FileWriter", "FileReader", "MindPage", "Cifar10ToMR", "Cifar100ToMR", "CsvToMR", "ImageNetToMR", "MnistToMR",
           "SUCCESS", "FAILED"]
