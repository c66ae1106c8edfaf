"""`ms.Generator` and `ms.default_generator`: seeds and saved states replay the same draws."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops


def test_default_generator_drives_random_ops():
    assert ms.default_generator.manual_seed(3) is ms.default_generator
    assert ms.default_generator.initial_seed() == 3 == ms.initial_seed()
    first = ops.rand(4).asnumpy()
    ms.manual_seed(3)
    np.testing.assert_array_equal(ops.rand(4).asnumpy(), first)
    state = ms.default_generator.get_state()
    assert state.dtype == ms.uint8 and state.ndim == 1
    after = ops.rand(4).asnumpy()
    ops.rand(4)
    ms.default_generator.set_state(state)
    np.testing.assert_array_equal(ops.rand(4).asnumpy(), after)


def test_independent_generator():
    gen = ms.Generator().manual_seed(7)
    assert gen.initial_seed() == 7
    state = gen.get_state()
    a = gen.numpy().random(3)
    b = gen.numpy().random(3)
    assert not np.array_equal(a, b)
    copy = ms.Generator().set_state(state)
    assert copy.initial_seed() == 7
    np.testing.assert_array_equal(copy.numpy().random(3), a)
    ms.default_generator.manual_seed(7)
    before = ops.rand(2).asnumpy()
    gen.numpy().random(100)  # drawing from a private stream leaves the global one alone
    ms.default_generator.manual_seed(7)
    np.testing.assert_array_equal(ops.rand(2).asnumpy(), before)
    fresh = gen.seed()
    assert gen.initial_seed() == fresh and fresh >= 0


def test_generator_errors():
    with pytest.raises(TypeError, match="seed"):
        ms.Generator().manual_seed(-1)
    with pytest.raises(ValueError, match="get_state"):
        ms.Generator().set_state(ms.Tensor(np.array([1, 2], np.uint8)))
