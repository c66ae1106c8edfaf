"""Checkpoint file-system helpers (`mindspore.mindio_preload`, `mindspore.set_mindio_server_info`).

MindIO is Huawei's cache service that keeps checkpoint files in memory across processes. openspore reads
checkpoints straight from the file system and ships no MindIO client, so `mindio_preload` reports False ("not
preloaded"), which is MindSpore's own answer when MindIO is not installed; the checkpoint then loads from disk
as usual. `set_mindio_server_info` checks and keeps the pool size a MindIO server would get.

>>> import openspore as ms
>>> ms.mindio_preload("model.ckpt")
False
>>> ms.set_mindio_server_info(50)
"""
__all__ = ["mindio_preload", "set_mindio_server_info"]

_server_info = {"data_block_pool_capacity_in_gb": 100}


def mindio_preload(ckpt_file_name):
    """Ask MindIO to cache `ckpt_file_name`; False: no MindIO here, nothing was preloaded."""
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"For 'mindio_preload', the type of 'ckpt_file_name' should be 'str', but got type "
                        f"'{type(ckpt_file_name).__name__}'.")
    return False


def set_mindio_server_info(data_block_pool_capacity_in_gb=100):
    """The memory pool, in GB, a MindIO server would hold checkpoints in (a positive int)."""
    value = data_block_pool_capacity_in_gb
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"The 'data_block_pool_capacity_in_gb' must be int, but got '{type(value).__name__}'")
    if value <= 0:
        raise ValueError(f"The 'data_block_pool_capacity_in_gb' must be int and must > 0, but got '{value}' with "
                         f"type 'int'.")
    _server_info["data_block_pool_capacity_in_gb"] = value
