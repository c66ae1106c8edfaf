"""`mindspore.dataset`: the data pipeline (sources, samplers, pipeline operations, iterators).

>>> import numpy as np
>>> import openspore.dataset as ds
>>> data = ds.NumpySlicesDataset({"x": np.arange(6)}, shuffle=False).batch(4)
>>> [b[0].shape for b in data.create_tuple_iterator(output_numpy=True)]
[(4,), (2,)]
"""
from . import config, transforms, vision  # noqa: F401
from .cache import DatasetCache  # noqa: F401
from . import text, audio  # noqa: F401  (mindspore.dataset.text / .audio)
from .engine import (BatchInfo, Dataset, DistributedSampler, RandomSampler, Sampler, SequentialSampler,  # noqa: F401
                     Shuffle, SubsetRandomSampler, SubsetSampler, WeightedRandomSampler)
from .engine import profiling  # noqa: F401
from .engine.samplers import BuiltinSampler, PKSampler  # noqa: F401
from .sources import (Cifar10Dataset, Cifar100Dataset, FashionMnistDataset, GeneratorDataset,  # noqa: F401
                      ImageFolderDataset, MappableDataset, MnistDataset, NumpySlicesDataset, Schema)
from .sources import CSVDataset, MindDataset, TextFileDataset  # noqa: F401
from .sources import (AGNewsDataset, AmazonReviewDataset, DBpediaDataset, EnWik9Dataset, IMDBDataset,  # noqa: F401
                      PennTreebankDataset, SogouNewsDataset, WikiTextDataset, YahooAnswersDataset, YelpReviewDataset)
from .sources import SemeionDataset, STL10Dataset, CoNLL2000Dataset, UDPOSDataset  # noqa: F401
from .engine.callbacks import DSCallback  # noqa: F401
from .sources.synthetic import EMnistDataset, FakeImageDataset, KMnistDataset, PaddedDataset  # noqa: F401


def zip(datasets):  # noqa: A001 - MindSpore's name
    """`zip(datasets)`: a tuple of datasets zipped column-wise (rows until the shortest ends)."""
    if not isinstance(datasets, tuple) or len(datasets) < 1:
        raise TypeError(f"For 'zip', 'datasets' must be a tuple of Dataset, but got {type(datasets).__name__}.")
    return datasets[0].zip(datasets[1:])


__all__ = ["config", "transforms", "vision", "zip", "DatasetCache", "BatchInfo", "Dataset", "MappableDataset", "GeneratorDataset",
           "NumpySlicesDataset", "MnistDataset", "FashionMnistDataset", "Cifar10Dataset", "Cifar100Dataset",
           "ImageFolderDataset", "CSVDataset", "TextFileDataset", "MindDataset", "Schema", "Sampler", "BuiltinSampler", "DistributedSampler", "RandomSampler",
           "SequentialSampler", "SubsetRandomSampler", "SubsetSampler", "WeightedRandomSampler", "Shuffle", "PKSampler",
           "AGNewsDataset", "AmazonReviewDataset", "DBpediaDataset", "EnWik9Dataset", "IMDBDataset",
           "PennTreebankDataset", "SogouNewsDataset", "WikiTextDataset", "YahooAnswersDataset", "YelpReviewDataset",
           "SemeionDataset", "STL10Dataset", "DSCallback", "CoNLL2000Dataset",
           "UDPOSDataset"]

# MindSpore's remaining public sources and pipeline tools (issue 19).
from .sources.tfrecord import TFRecordDataset  # noqa: E402,F401

__all__ += ["TFRecordDataset"]
from .sources.detection import CocoDataset, VOCDataset  # noqa: E402,F401

__all__ += ["CocoDataset", "VOCDataset"]
from .sources.random_data import RandomDataset  # noqa: E402,F401

__all__ += ["RandomDataset"]
from .engine.sync_wait import WaitedDSCallback, sync_wait_for_dataset  # noqa: E402,F401

__all__ += ["WaitedDSCallback", "sync_wait_for_dataset"]
from .engine.serializer import compare, deserialize, serialize, show  # noqa: E402,F401

__all__ += ["compare", "deserialize", "serialize", "show"]
from .sources.image_sets import (Caltech101Dataset, Caltech256Dataset, CelebADataset, DIV2KDataset,  # noqa: E402,F401
                                 FlickrDataset, Flowers102Dataset, Food101Dataset, LSUNDataset, ManifestDataset,
                                 OmniglotDataset, Places365Dataset, RenderedSST2Dataset, SBUDataset, SUN397Dataset)

__all__ += ["Caltech101Dataset", "Caltech256Dataset", "CelebADataset", "DIV2KDataset", "FlickrDataset",
            "Flowers102Dataset", "Food101Dataset", "LSUNDataset", "ManifestDataset", "OmniglotDataset",
            "Places365Dataset", "RenderedSST2Dataset", "SBUDataset", "SUN397Dataset"]
from .sources.digit_sets import QMnistDataset, SVHNDataset, USPSDataset  # noqa: E402,F401

__all__ += ["QMnistDataset", "SVHNDataset", "USPSDataset"]
from .sources.scene_sets import (CityscapesDataset, KITTIDataset, LFWDataset, PhotoTourDataset,  # noqa: E402,F401
                                 SBDataset, WIDERFaceDataset)

__all__ += ["CityscapesDataset", "KITTIDataset", "LFWDataset", "PhotoTourDataset", "SBDataset", "WIDERFaceDataset"]
from .sources.audio_sets import (CMUArcticDataset, GTZANDataset, LibriTTSDataset, LJSpeechDataset,  # noqa: E402,F401
                                 SpeechCommandsDataset, TedliumDataset, YesNoDataset)

__all__ += ["CMUArcticDataset", "GTZANDataset", "LibriTTSDataset", "LJSpeechDataset", "SpeechCommandsDataset",
            "TedliumDataset", "YesNoDataset"]
from .sources.text_sets import (CLUEDataset, IWSLT2016Dataset, IWSLT2017Dataset, Multi30kDataset,  # noqa: E402,F401
                                SQuADDataset, SST2Dataset)

__all__ += ["CLUEDataset", "IWSLT2016Dataset", "IWSLT2017Dataset", "Multi30kDataset", "SQuADDataset", "SST2Dataset"]
from .sources.obs_mind import OBSMindDataset  # noqa: E402,F401

__all__ += ["OBSMindDataset"]
