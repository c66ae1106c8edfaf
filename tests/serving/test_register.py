"""The registration API of servable_config.py, in-process: what it records and how it refuses bad use."""
import importlib.util
import itertools
import textwrap

import pytest

from openspore.serving.server import register
from openspore.serving.server.register import registry

_COUNTER = itertools.count()


def load_config(tmp_path, body):
    """Import `body` as `<unique name>/servable_config.py` → (servable name, module)."""
    name = f"reg_servable_{next(_COUNTER)}"
    folder = tmp_path / name
    folder.mkdir()
    path = folder / "servable_config.py"
    path.write_text("from openspore.serving.server import register\nimport numpy as np\n" + textwrap.dedent(body))
    spec = importlib.util.spec_from_file_location(f"{name}.servable_config", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return name, module


def test_a_method_records_its_stages(tmp_path):
    name, _ = load_config(tmp_path, """
        model = register.declare_model(["a.mindir", "b.mindir"], "mindir", without_batch_dim_inputs=1)

        def pre(x, y):
            return x, y

        def post(instances):
            return [i[0] for i in instances]

        @register.register_method(output_names=["out", "echo"])
        def run(x, y):
            a, b = register.add_stage(pre, x, y, outputs_count=2, tag="Preprocess")
            z = register.add_stage(model, a, b, outputs_count=1)
            return register.add_stage(post, z, outputs_count=1, batch_size=0), x
    """)
    spec = registry.SERVABLES[name]
    assert list(spec.models) == ["a.mindir;b.mindir"]
    decl = spec.models["a.mindir;b.mindir"]
    assert decl.format == "MindIR" and decl.without_batch_dim_inputs == (1,) and decl.files == ("a.mindir", "b.mindir")
    method = spec.methods["run"]
    assert method.input_names == ("x", "y") and method.output_names == ("out", "echo")
    assert [s.kind for s in method.stages] == ["function", "model", "function"]
    assert method.stages[0].args == [(0, 0), (0, 1)] and method.stages[1].args == [(1, 0), (1, 1)]
    assert method.stages[2].batch_size == 0 and method.stages[0].tag == "Preprocess"
    assert method.outputs == [(3, 0), (0, 0)]


@pytest.mark.parametrize("body, message", [
    ("""
     @register.register_method(output_names=["a", "b"])
     def m(x):
         return x
     """, "Method return output size 1 not match registered 2"),
    ("""
     @register.register_method(output_names="y")
     def m(*x):
         return x
     """, "'m' input 0 cannot be VAR_POSITIONAL"),
    ("""
     def f(a, b):
         return a

     @register.register_method(output_names="y")
     def m(x):
         return register.add_stage(f, x, outputs_count=1)
     """, "function f input args count 1 not match the count 2 registered in method"),
    ("""
     @register.register_method(output_names="y")
     def m(x):
         return register.add_stage("not a stage", x, outputs_count=1)
     """, "the parameter 'stage' of add_stage must be function or Model"),
    ("""
     @register.register_method(output_names="y")
     def m(x):
         return 3
     """, "output 0 \\('y'\\) should be a method input or an output of an earlier 'add_stage'"),
    ("""
     def f(a):
         return a

     @register.register_method(output_names="y")
     def m(x):
         y = register.add_stage(f, x, outputs_count=1)
         return register.add_stage(f, y, outputs_count=1, batch_size=2)
     """, "parameter 'batch_size' in multiple 'add_stage' should be enabled or disabled consistently"),
    ("""
     @register.register_method(output_names="y")
     def m(x):
         return x

     @register.register_method(output_names="y")
     def m(x):
         return x
     """, "method 'm' has been defined repeatedly"),
    ("""
     @register.register_method(output_names="y")
     def m(x):
         if x:
             return x
         return x
     """, "control flow that depends on data must live inside a stage function"),
    ("register.declare_model('m.om', 'onnx')", "model format can only be OM, MindIR, MindIR_Lite or Checkpoint"),
    ("register.declare_model(['m', 'm'], 'mindir')", "the items of 'model_file' should be unique"),
    ("register.declare_model('m.ckpt', 'Checkpoint')", "a 'Checkpoint' model needs 'network'"),
    ("register.declare_model('m.mindir', 'MindIR', with_batch_dim=1)", "'with_batch_dim' should be a bool"),
    ("register.add_stage(lambda x: x, outputs_count=1)", "'add_stage' should be called inside a method"),
    ("register.Context(threads=2)", "Set context failed, unsupported option threads"),
])
def test_bad_registrations_are_refused(tmp_path, body, message):
    with pytest.raises(RuntimeError, match=message):
        load_config(tmp_path, body)


def test_registration_outside_servable_config_is_refused():
    with pytest.raises(RuntimeError, match="Failed to obtain the directory of servable_config.py"):
        register.declare_model("m.mindir", "MindIR")


def test_model_call_outside_serving_is_refused(tmp_path):
    _, module = load_config(tmp_path, "model = register.declare_model('m.mindir', 'MindIR')")
    with pytest.raises(RuntimeError, match=r"Model\(m.mindir\).call\(\) failed: the model can only be called inside"):
        module.model.call(1)


def test_context_and_device_infos():
    context = register.Context(thread_num=2, enable_parallel=True)
    context.append_device_info(register.CPUDeviceInfo(precision_mode="fp16"))
    with pytest.raises(RuntimeError, match="Device info of type cpu has already been appended"):
        context.append_device_info(register.CPUDeviceInfo())
    assert register.GPUDeviceInfo().as_dict() == {"device_type": "gpu", "precision_mode": "origin"}
    with pytest.raises(RuntimeError, match="'precision_mode' should be one of"):
        register.AscendDeviceInfo(precision_mode="bad")
