"""vision.AutoAugment: every output is one of the outcomes its policy allows (enumerated here from the documented
tables), outcomes vary, and the seeded stream reproduces them."""
import itertools

import numpy as np
import pytest

from openspore.dataset import config, vision
from openspore.dataset.vision.auto_augment import _POLICIES, apply_operation, magnitude
from openspore.dataset.vision.policy_augment import _SIGNED
from openspore.dataset.vision.utils import Inter


@pytest.fixture(autouse=True)
def keep_seed():
    seed = config.get_seed()
    yield
    config.set_seed(seed)


def _outcomes(policy, img):
    h, w = img.shape[:2]
    seen = []
    for pair in _POLICIES[policy]:
        for applied in itertools.product((False, True), repeat=2):
            steps = [op for op, on in zip(pair, applied) if on]
            sign_choices = [(1, -1) if name in _SIGNED else (1,) for name, _, _ in steps]
            for signs in itertools.product(*sign_choices):
                out = img
                for (name, _, level), sign in zip(steps, signs):
                    out = apply_operation(name, out, sign * magnitude(name, level, h, w), 0, 0)
                seen.append(out)
    return seen


def test_documented_tables():
    for policy in vision.AutoAugmentPolicy:
        pairs = _POLICIES[policy]
        assert len(pairs) == 25
        for pair in pairs:
            assert len(pair) == 2
            for name, prob, level in pair:
                assert 0.0 <= prob <= 1.0 and (level is None or 0 <= level <= 9)
                magnitude(name, level, 32, 32)     # every name is a known operation
    assert _POLICIES[vision.AutoAugmentPolicy.IMAGENET][0] == (("Posterize", 0.4, 8), ("Rotate", 0.6, 9))
    assert vision.AutoAugmentPolicy("svhn") is vision.AutoAugmentPolicy.SVHN


@pytest.mark.parametrize("policy", list(vision.AutoAugmentPolicy))
def test_outputs_are_policy_outcomes(policy):
    img = np.random.RandomState(0).randint(0, 256, (6, 7, 3)).astype(np.uint8)
    allowed = _outcomes(policy, img)
    config.set_seed(5)
    op = vision.AutoAugment(policy, Inter.NEAREST, 0)
    outs = [op(img) for _ in range(40)]
    for out in outs:
        assert out.shape == img.shape and out.dtype == np.uint8
        assert any(np.array_equal(out, a) for a in allowed)
    assert len({o.tobytes() for o in outs}) > 3
    config.set_seed(5)
    again = vision.AutoAugment(policy, Inter.NEAREST, 0)
    assert all(np.array_equal(a, b) for a, b in zip(outs, [again(img) for _ in range(40)]))


def test_checks():
    with pytest.raises(TypeError, match="policy"):
        vision.AutoAugment("imagenet")
    with pytest.raises(TypeError, match="fill_value"):
        vision.AutoAugment(fill_value=(1, 2))
    with pytest.raises(RuntimeError, match="RGB"):
        vision.AutoAugment()(np.zeros((4, 4), np.uint8))
