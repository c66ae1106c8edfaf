"""Top-level runtime and context names added for MindSpore coverage: core limits, DeviceCtx, the parameter-server
context, set_recursion_limit, pluggable allocators (MindSpore's own answers are in recorded/toplevel_runtime)."""
import ctypes.util

import pytest

import openspore as ms
import openspore.common as common


def test_stream_limits_are_kept_per_stream_and_restored_by_the_context():
    a, b = ms.runtime.Stream(), ms.runtime.Stream()
    ms.set_stream_limit(a, 6, 2)
    assert ms.get_stream_limit(a) == {"cube_core_num": 6, "vector_core_num": 2}
    assert ms.get_stream_limit(b) == {"cube_core_num": -1, "vector_core_num": -1}
    with ms.StreamLimitCtx(a, 1, 1):
        assert ms.get_stream_limit(a)["cube_core_num"] == 1
    assert ms.get_stream_limit(a) == {"cube_core_num": 6, "vector_core_num": 2}
    ms.reset_stream_limit(a)
    assert ms.get_stream_limit(a)["vector_core_num"] == -1
    with pytest.raises(TypeError, match="cube_num"):
        ms.set_stream_limit(a, "8")


def test_device_limits_per_device_id():
    ms.set_device_limit(3, 5, 7)
    assert ms.get_device_limit(3) == {"cube_core_num": 5, "vector_core_num": 7}
    assert ms.get_device_limit(4) == {"cube_core_num": -1, "vector_core_num": -1}
    with pytest.raises(TypeError, match="device"):
        ms.get_device_limit("0")


def test_device_ctx_restores_the_device_even_when_the_block_raises():
    before = ms.get_current_device()
    with pytest.raises(KeyError):
        with ms.DeviceCtx("CPU", 0):
            raise KeyError("inside")
    assert ms.get_current_device() == before
    with pytest.raises(ValueError, match="Ascend"):
        ms.DeviceCtx("Ascend").__enter__()
    assert ms.get_current_device() == before
    with pytest.raises(ValueError, match="device_id"):
        ms.DeviceCtx("CPU", -1).__enter__()


def test_set_recursion_limit_is_the_compilers_call_depth():
    old = ms.get_context("max_call_depth")
    try:
        ms.set_recursion_limit(123)
        assert ms.get_context("max_call_depth") == 123
    finally:
        ms.set_context(max_call_depth=old)
    with pytest.raises(ValueError):
        ms.set_recursion_limit(-5)


def test_ps_context_passwords_are_write_only():
    ms.set_ps_context(server_password="secret")
    with pytest.raises(ValueError, match="server_password"):
        ms.get_ps_context("server_password")
    ms.set_ps_context(enable_ps=True)
    assert ms.get_ps_context("enable_ps") is True
    ms.context.reset_ps_context()
    assert ms.get_ps_context("enable_ps") is False


def test_pluggable_allocator_resolves_real_symbols_and_the_pool_refuses_clearly():
    libc = ctypes.util.find_library("c")
    allocator = ms.PluggableAllocator(libc, "malloc", "free")
    malloc = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t)(allocator.alloc_fn_ptr)
    free = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(allocator.free_fn_ptr)
    pointer = malloc(64)   # the looked-up address is the library's malloc: it allocates
    assert pointer
    free(pointer)
    pool = ms.MemPool(allocator)
    with pytest.raises(RuntimeError, match="Not supported in openspore"):
        with ms.use_mem_pool(pool):
            pass
    with pytest.raises(TypeError, match="MemPool"):
        with ms.use_mem_pool(allocator):
            pass
    with pytest.raises(RuntimeError, match="Ascend device memory pool"):
        ms.memory_replay("trace.txt")


def test_kernel_launch_capture_is_recorded():
    ms.runtime.set_kernel_launch_capture(True, ["conv2d"])
    try:
        assert ms.runtime.get_kernel_launch_settings()["capture"]["op_capture_skip"] == ["conv2d"]
    finally:
        ms.runtime.set_kernel_launch_capture(False)
    assert ms.runtime.get_kernel_launch_settings()["capture"]["enable_capture_graph"] is False


def test_mindspore_common_reexports_the_top_level_helpers():
    for name in ("Generator", "default_generator", "Symbol", "enable_dynamic", "recompute", "saved_tensors_hooks",
                 "manual_seed", "is_tensor", "set_dump", "swap_tensors", "DeviceCtx", "set_recursion_limit",
                 "mindio_preload", "set_mindio_server_info", "ms_memory_recycle"):
        assert getattr(common, name) is getattr(ms, name), name
