"""openspore.lite: MindSpore Lite's Python API on a numpy-only runtime (no torch is imported).

`import mindspore_lite as mslite` code runs as `from openspore import lite as mslite`:

>>> from openspore import lite as mslite
>>> context = mslite.Context()
>>> context.cpu.thread_num = 1
>>> model = mslite.Model()
>>> model.build_from_file("lenet.ms", mslite.ModelType.MINDIR_LITE, context)           # doctest: +SKIP

Also here: `Converter` / `FmkType` (and `converter_lite`, `python -m openspore.lite.converter`), on-device
training (`TrainCfg`, `Model.run_step`, `train`, `evaluate`, `export`, ...), `ModelParallelRunner`.
"""
from .callbacks import (AccuracyMetrics, CkptSaver, LossMonitor, LRScheduler, MultiplicativeLRLambda,  # noqa: F401
                        StepLRLambda, TrainAccuracy)
from .context import Context  # noqa: F401
from .converter import Converter  # noqa: F401
from .model import Model  # noqa: F401
from .parallel import ModelParallelRunner  # noqa: F401
from .tensor import Tensor  # noqa: F401
from .training import MixPrecisionCfg, TrainCfg  # noqa: F401
from .types import DataType, FmkType, Format, ModelType, OptimizationLevel, QuantizationType  # noqa: F401

__all__ = ["Context", "Converter", "FmkType", "Model", "ModelParallelRunner", "ModelType", "DataType", "Format",
           "Tensor", "TrainCfg", "MixPrecisionCfg", "OptimizationLevel", "QuantizationType", "LossMonitor",
           "CkptSaver", "AccuracyMetrics", "TrainAccuracy", "LRScheduler", "StepLRLambda", "MultiplicativeLRLambda"]
