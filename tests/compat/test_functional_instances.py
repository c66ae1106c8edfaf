"""ops.functional's primitive-instance names: shape_, reshape_, tensor_slice, stop_gradient_."""
import numpy as np

import openspore as ms
from openspore import ops
from openspore.ops import functional as F


def test_instances_compute_like_their_primitives():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ms.Tensor(x)
    assert F.shape_(t) == (3, 4) and ops.shape_ is F.shape_
    np.testing.assert_array_equal(F.reshape_(t, (4, 3)).asnumpy(), x.reshape(4, 3))
    np.testing.assert_array_equal(F.tensor_slice(t, (1, 1), (2, 2)).asnumpy(), x[1:3, 1:3])


def test_stop_gradient_blocks_the_gradient():
    x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    grad = ms.grad(lambda a: (F.stop_gradient_(a) * a).sum())(x)
    np.testing.assert_array_equal(grad.asnumpy(), [1.0, 2.0, 3.0])   # d/da (c * a) with c = a held constant


def test_module_paths_answer_the_same_objects():
    from openspore import communication, parallel, train
    from openspore.common import initializer
    from openspore.train import serialization
    assert parallel.merge_sliced_parameter is train.merge_sliced_parameter
    assert serialization.load_mindir is ms.load_mindir
    assert serialization.get_rank is communication.get_rank
    assert serialization.initializer is initializer.initializer
    assert serialization.sync_pipeline_shared_parameters is parallel.sync_pipeline_shared_parameters
