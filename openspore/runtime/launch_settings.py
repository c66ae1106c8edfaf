"""Kernel-launch settings of MindSpore's runtime (`mindspore.runtime.set_kernel_launch_capture`,
`set_kernel_launch_group`, also at the top level).

Both tune how an accelerator's kernels are queued: *capture* records a step's launches once and replays them
(CUDA/ACL graphs), a *launch group* splits a step's launches over `thread_num` host threads. openspore launches
every kernel synchronously on the calling thread, so neither changes how a step runs here; the settings are
checked as MindSpore checks them (types, ranges, `kernel_group_num` divisible by `thread_num`, a group set once,
never both together) and readable with `get_kernel_launch_settings()`.

>>> from openspore import runtime
>>> runtime.set_kernel_launch_capture(True, op_capture_skip=["matmul"])
>>> runtime.get_kernel_launch_settings()["capture"]
{'enable_capture_graph': True, 'op_capture_skip': ['matmul']}
>>> runtime.set_kernel_launch_capture(False)
"""

__all__ = ["set_kernel_launch_capture", "set_kernel_launch_group", "get_kernel_launch_settings"]

_settings = {"capture": {"enable_capture_graph": False, "op_capture_skip": []}, "group": None}


def _typed(name, value, kind):
    if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
        raise TypeError(f"The parameter '{name}' must be {kind}, but got {type(value)}")
    return value


def set_kernel_launch_capture(enable_capture_graph, op_capture_skip=None):
    """Turn launch capture on or off; `op_capture_skip` lists op names (lower case) kept out of the capture."""
    _typed("enable_capture_graph", enable_capture_graph, bool)
    if op_capture_skip is None:
        op_capture_skip = []
    if not isinstance(op_capture_skip, list):
        raise TypeError("op_capture_skip must be a list")
    if enable_capture_graph and _settings["group"] is not None:
        raise RuntimeError("The kernel launch group and kernel launch capture can not be set together")
    _settings["capture"] = {"enable_capture_graph": enable_capture_graph, "op_capture_skip": list(op_capture_skip)}


def set_kernel_launch_group(thread_num=2, kernel_group_num=8):
    """Launch a step's kernels in `kernel_group_num` groups over `thread_num` threads (settable once)."""
    _typed("thread_num", thread_num, int)
    _typed("kernel_group_num", kernel_group_num, int)
    if _settings["group"] is not None:
        raise RuntimeError("The 'kernel_launch_group' can not be set repeatedly.")
    if _settings["capture"]["enable_capture_graph"]:
        raise RuntimeError("The kernel launch group and kernel launch capture can not be set together")
    if thread_num < 1:
        raise ValueError(f"The value of thread_num should be at least 1, but got {thread_num}")
    if kernel_group_num < 1:
        raise ValueError(f"The value of kernel_group_num should be at least 1, but got {kernel_group_num}")
    if kernel_group_num % thread_num:
        raise ValueError(f"Invalid parameter value, kernel_group_num: {kernel_group_num} cannot be evenly divisible "
                         f"by thread_num: {thread_num}")
    _settings["group"] = {"thread_num": thread_num, "kernel_group_num": kernel_group_num}


def get_kernel_launch_settings():
    """{'capture': {...}, 'group': {...} or None}: what the two setters recorded."""
    return {"capture": dict(_settings["capture"], op_capture_skip=list(_settings["capture"]["op_capture_skip"])),
            "group": None if _settings["group"] is None else dict(_settings["group"])}
