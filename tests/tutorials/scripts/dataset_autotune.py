# ruff: noqa: E402, F811  (a tutorial page: imports where the page has them, blocks that redefine names)
# MindSpore 2.x tutorial "Dataset AutoTune for Dataset Pipeline" (tutorials/dataset/dataset_autotune, r2.10), its
# runnable blocks unchanged: enabling AutoTune (without and with the output path the page writes,
# "/path/to/autotune_out", whose folder does not exist: MindSpore 2.10 refuses it with a RuntimeError, caught here
# and printed), the tuning interval set and read back. Left out: the ResNet/`init()` skeletons (`...`
# placeholders, a cluster) and `ds.deserialize("/path/to/autotune_out_0.json")`, a file written only by a
# training run on the page's ModelZoo ResNet. Added: AutoTune switched off again at the end, the state read back.
# expect: RuntimeError: Invalid json_filepath parameter.  Directory </path/to> does not exist.
# expect: tuning interval: 100
# expect: False
import mindspore.dataset as ds
ds.config.set_enable_autotune(True)

import mindspore.dataset as ds
try:
    ds.config.set_enable_autotune(True, "/path/to/autotune_out")
except RuntimeError as e:  # the page's placeholder folder does not exist here
    print("RuntimeError:", [line for line in str(e).splitlines() if "Invalid" in line][0].replace("[ERROR] ", ""))

import mindspore.dataset as ds
ds.config.set_autotune_interval(100)

import mindspore.dataset as ds
print("tuning interval:", ds.config.get_autotune_interval())

print(ds.config.get_enable_autotune())
ds.config.set_enable_autotune(False)
print(ds.config.get_enable_autotune())
