import ctypes.util
import mindspore as ms


def attempt(label, fn):
    try:
        print(label, "->", fn())
    except Exception as exc:  # the exception type is part of the API
        print(label, "raises", type(exc).__name__)


attempt("ps enable_ps", lambda: ms.get_ps_context("enable_ps"))
attempt("ps set", lambda: ms.set_ps_context(enable_ssl=True, config_file_path="/tmp/ps.json", client_password="x"))
attempt("ps read", lambda: (ms.get_ps_context("enable_ssl"), ms.get_ps_context("config_file_path")))
attempt("ps roles", lambda: (ms.get_ps_context("ms_role"), ms.get_ps_context("worker_num"),
                             ms.get_ps_context("scheduler_ip"), ms.get_ps_context("scheduler_port")))
attempt("ps password unreadable", lambda: ms.get_ps_context("client_password"))
attempt("ps unknown set", lambda: ms.set_ps_context(foo=1))
attempt("ps bad type", lambda: ms.set_ps_context(config_file_path=3))
attempt("ps enable", lambda: ms.set_ps_context(enable_ps=True))
attempt("ps enabled", lambda: ms.get_ps_context("enable_ps"))
attempt("ps reset", lambda: ms.context.reset_ps_context())
attempt("ps after reset", lambda: (ms.get_ps_context("enable_ps"), ms.get_ps_context("enable_ssl")))
attempt("recursion", lambda: ms.set_recursion_limit(3000))
attempt("recursion bool", lambda: ms.set_recursion_limit(True))
attempt("recursion zero", lambda: ms.set_recursion_limit(0))
attempt("recursion str", lambda: ms.set_recursion_limit("9"))
stream = ms.runtime.Stream()
attempt("stream limit", lambda: ms.set_stream_limit(stream, 8, 8))
attempt("stream limit not a stream", lambda: ms.set_stream_limit(1, 2, 2))
attempt("get stream limit not a stream", lambda: ms.get_stream_limit("s"))
attempt("reset stream limit", lambda: ms.reset_stream_limit(stream))
attempt("device limit", lambda: ms.set_device_limit(0, 2, 2))
attempt("device limit float", lambda: ms.set_device_limit(0, 1.5, 2))
attempt("stream ctx not a stream", lambda: ms.StreamLimitCtx(3))
attempt("capture bad", lambda: ms.set_kernel_launch_capture(1))
attempt("capture skip not list", lambda: ms.set_kernel_launch_capture(True, op_capture_skip="matmul"))
attempt("capture on", lambda: ms.set_kernel_launch_capture(True, op_capture_skip=["matmul"]))
attempt("group with capture", lambda: ms.set_kernel_launch_group())
attempt("capture off", lambda: ms.set_kernel_launch_capture(False))
attempt("group zero threads", lambda: ms.set_kernel_launch_group(0, 8))
attempt("group str", lambda: ms.set_kernel_launch_group(2, "a"))
attempt("group not divisible", lambda: ms.set_kernel_launch_group(3, 8))
attempt("group", lambda: ms.set_kernel_launch_group(2, 4))
attempt("group twice", lambda: ms.set_kernel_launch_group(2, 4))
attempt("capture after group", lambda: ms.set_kernel_launch_capture(True))
attempt("allocator", lambda: ms.PluggableAllocator(ctypes.util.find_library("c"), "malloc", "free").alloc_fn_ptr > 0)
attempt("allocator no symbol", lambda: ms.PluggableAllocator(ctypes.util.find_library("c"), "no_such_fn", "free"))
attempt("allocator no library", lambda: ms.PluggableAllocator("/nonexistent/liballoc.so", "a", "f"))
attempt("memory recycle", lambda: ms.ms_memory_recycle())
attempt("mindio preload", lambda: ms.mindio_preload("net.ckpt"))
attempt("mindio preload bad", lambda: ms.mindio_preload(3))
attempt("mindio server", lambda: ms.set_mindio_server_info(10))
attempt("mindio server str", lambda: ms.set_mindio_server_info("a"))
attempt("mindio server negative", lambda: ms.set_mindio_server_info(-1))


def in_device_ctx():
    with ms.DeviceCtx("CPU", 0) as ctx:
        return ms.get_current_device(), type(ctx).__name__


attempt("device ctx", in_device_ctx)
attempt("device ctx after", lambda: ms.get_current_device())
attempt("device ctx bad name", lambda: ms.DeviceCtx("TPU").__enter__())
