"""`mindspore.device_context` (MindSpore 2.10): values and errors as real MindSpore 2.10 gives them on a CPU
machine (checked against it as a black box). Each setter may be set once per process, so every test that sets
one runs in a fresh interpreter."""
import subprocess
import sys

import pytest

import openspore as ms


def _run(code):
    proc = subprocess.run([sys.executable, "-c", "import openspore as ms\n" + code], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split("\n")[:-1]


def test_cpu_queries_and_the_other_backends():
    dc = ms.device_context
    assert dc.cpu.is_available() is True and dc.cpu.device_count() == 1
    assert dc.ascend.is_available() is False
    with pytest.raises(RuntimeError, match="^Device Ascend not exist.$"):
        dc.ascend.device_count()
    if not dc.gpu.is_available():
        with pytest.raises(RuntimeError, match="^Device_target GPU not exist.$"):
            dc.gpu.device_count()
    assert sorted(dc.cpu.__all__) == ["device_count", "is_available", "threads_num"]
    assert sorted(dc.gpu.__all__) == sorted(dc.ascend.__all__) == ["device_count", "is_available"]


def test_threads_num_checks_sets_once_and_applies():
    out = _run("""
import torch
from openspore.device_context.cpu import op_tuning
for bad in ("a", 1.0, True, 0, -1):
    try:
        op_tuning.threads_num(bad)
    except (TypeError, ValueError) as exc:
        print(type(exc).__name__, exc)
print(op_tuning.threads_num(1), torch.get_num_threads())
try:
    ms.device_context.cpu.threads_num(2)
except RuntimeError as exc:
    print(exc)
""")
    assert out == [
        "TypeError The parameter 'num' must be <class 'int'>, but got <class 'str'>",
        "TypeError The parameter 'num' must be <class 'int'>, but got <class 'float'>",
        "TypeError The 'num' must be int and must > 0, but got 'True' with type 'bool'.",
        "ValueError The 'num' must be int and must > 0, but got '0' with type 'int'.",
        "ValueError The 'num' must be int and must > 0, but got '-1' with type 'int'.",
        "None 1",
        "The 'threads_num' can not be set repeatedly.",
    ]


def test_gpu_setters_check_their_arguments():
    from openspore.device_context.gpu import op_precision, op_tuning
    with pytest.raises(TypeError, match=r"^The parameter 'value' must be <class 'bool'>, but got <class 'int'>$"):
        op_precision.matmul_allow_tf32(1)
    with pytest.raises(TypeError, match=r"'value' must be <class 'bool'>"):
        op_precision.conv_allow_tf32(1)
    fprop = ("For 'mindspore.device_context.gpu.op_tuning.conv_fprop_algo', the argument must be in ['normal', "
             "'performance', 'implicit_gemm', 'precomp_gemm', 'gemm', 'direct', 'fft', 'fft_tiling', 'winograd', "
             "'winograd_nonfused'] but got 1.")
    with pytest.raises(ValueError) as info:
        op_tuning.conv_fprop_algo(1)
    assert str(info.value) == fprop
    with pytest.raises(ValueError) as info:
        op_tuning.conv_dgrad_algo("zz")
    assert str(info.value).endswith("['normal', 'performance', 'algo_0', 'algo_1', 'fft', 'fft_tiling', "
                                    "'winograd', 'winograd_nonfused'] but got zz.")
    with pytest.raises(ValueError) as info:
        op_tuning.conv_wgrad_algo("zz")
    assert str(info.value).endswith("['normal', 'performance', 'algo_0', 'algo_1', 'fft', 'algo_3', "
                                    "'fft_tiling', 'winograd_nonfused'] but got zz.")


def test_ascend_setters_check_then_do_nothing_without_the_device():
    out = _run("""
from openspore.device_context.ascend import op_debug, op_precision, op_tuning
print(op_precision.precision_mode("force_fp16"), op_precision.op_precision_mode("./x.ini"),
      op_precision.matmul_allow_hf32(True), op_tuning.op_compile(False), op_tuning.aoe_tune_mode("online"),
      op_tuning.aoe_job_type("2"), op_tuning.aclnn_cache(True, 100), op_debug.execute_timeout(10),
      op_debug.debug_option("oom"), op_debug.aclinit_config({"max_opqueue_num": "20000", "err_msg_mode": "1"}))
for call in (lambda: op_debug.execute_timeout("a"), lambda: op_precision.op_precision_mode(1),
             lambda: op_precision.precision_mode("fp8"), lambda: op_tuning.aoe_job_type("3")):
    try:
        call()
    except (TypeError, ValueError) as exc:
        print(type(exc).__name__, str(exc).split(",")[0])
print(op_tuning.function_status)   # no Ascend device: nothing was set
""")
    assert out[0] == " ".join(["None"] * 10)
    assert out[-1] == "{'op_compile': False, 'aoe_tune_mode': False, 'aoe_job_type': False, 'aclnn_cache': False}"
    assert out[1:-1] == [
        "TypeError The parameter 'op_timeout' must be <class 'int'>",
        "TypeError The parameter 'path' must be <class 'str'>",
        "ValueError For 'mindspore.device_context.ascend.op_precision.precision_mode'",
        "ValueError For 'mindspore.device_context.ascend.op_tuning.aoe_job_type'",
    ]


def test_function_status_follows_the_setters():
    out = _run("""
from openspore.device_context.gpu import op_tuning
print(sorted(op_tuning.function_status.items()))
if ms.device_context.gpu.is_available():
    op_tuning.conv_fprop_algo("normal")
    print(op_tuning.function_status["conv_fprop_algo"])
else:
    print(True)
""")
    assert out == ["[('conv_dgrad_algo', False), ('conv_fprop_algo', False), ('conv_wgrad_algo', False)]", "True"]


def test_mindspore_import_paths():
    out = _run("""
import importlib
for name in ("cpu.op_tuning", "gpu.op_precision", "gpu.op_tuning", "ascend.op_debug", "ascend.op_precision",
             "ascend.op_tuning", "cpu.device", "gpu.device", "ascend.device"):
    print(importlib.import_module("openspore.device_context." + name).__name__)
""")
    assert len(out) == 9
