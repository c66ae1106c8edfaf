"""The pipeline engine: the node tree, its operations, iterators, samplers and worker pools."""
from .batch import BatchDataset, BatchInfo  # noqa: F401
from .datasets import Dataset  # noqa: F401
from .iterators import DictIterator, TupleIterator  # noqa: F401
from .ops import (ConcatDataset, FilterDataset, MapDataset, ProjectDataset, RenameDataset, RepeatDataset,  # noqa: F401
                  ShuffleDataset, SkipDataset, TakeDataset, ZipDataset)
from .samplers import (BuiltinSampler, DistributedSampler, RandomSampler, Sampler, SequentialSampler,  # noqa: F401
                       Shuffle, SubsetRandomSampler, SubsetSampler, WeightedRandomSampler, PKSampler)
