"""`mindspore.utils`: DLPack exchange (`to_dlpack`, `from_dlpack`), the dry-run helpers (`dryrun`) and
`MsDispatchMode`, which intercepts eager op calls.

MindSpore's other names here are left out because they have no meaning off Ascend clusters: the resilience
hooks (`ExitByRequest`, `TFTCommValue`, `RSCPluginHandle`), silent-data-corruption and stress checks
(`sdc_detect_start`, `sdc_detect_stop`, `get_sdc_detect_result`, `stress_detect`) and the cross-rank order
checks (`comm_exec_order_check`, `runtime_execution_order_check`).

>>> import openspore as ms
>>> from openspore import utils
>>> utils.from_dlpack(utils.to_dlpack(ms.Tensor([1, 2]))).asnumpy().tolist()
[1, 2]
"""
from . import dlpack, dryrun
from .dispatch_mode import MsDispatchMode
from .dlpack import from_dlpack, to_dlpack

__all__ = ["MsDispatchMode", "dlpack", "dryrun", "from_dlpack", "to_dlpack"]
