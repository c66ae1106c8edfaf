"""RandAugment, TrivialAugmentWide and the bbox-carrying crops: shapes, box arithmetic, seeded reproducibility."""
import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import vision


def _image(h=16, w=20):
    rng = np.random.default_rng(0)
    return rng.integers(0, 256, (h, w, 3), dtype=np.uint8)


def test_random_crop_with_bbox_moves_and_clips_boxes():
    image = np.arange(10 * 10, dtype=np.uint8).reshape(10, 10, 1).repeat(3, axis=2)
    boxes = np.array([[1, 1, 3, 3], [8, 8, 2, 2]], np.float32)
    for _ in range(20):
        out, new = vision.RandomCropWithBBox(8)(image, boxes)
        top, left = divmod(int(out[0, 0, 0]), 10)  # the crop origin, read from the pixel values
        expected = []
        for x, y, w, h in boxes:
            x0, y0 = np.clip(x - left, 0, 8), np.clip(y - top, 0, 8)
            x1, y1 = np.clip(x + w - left, 0, 8), np.clip(y + h - top, 0, 8)
            if x1 > x0 and y1 > y0:
                expected.append([x0, y0, x1 - x0, y1 - y0])
        assert new.tolist() == expected
    out, new = vision.RandomCropWithBBox(12, padding=2)(image, boxes)
    assert out.shape == (12, 12, 3) and new[:, :2].min() >= 0


def test_random_resized_crop_with_bbox_scales_boxes():
    image = _image(20, 20)
    boxes = np.array([[0, 0, 20, 20]], np.float32)  # the whole image: after the crop it is the whole output
    out, new = vision.RandomResizedCropWithBBox((8, 8))(image, boxes)
    assert out.shape == (8, 8, 3) and np.allclose(new, [[0, 0, 8, 8]])


def test_bounding_box_augment_changes_only_box_regions():
    image = np.full((10, 10, 3), 100, np.uint8)
    boxes = np.array([[2, 2, 3, 3]], np.float32)
    out, same = vision.BoundingBoxAugment(vision.Invert(), ratio=1.0)(image, boxes)
    assert (out[2:5, 2:5] == 155).all() and (out[0, 0] == 100).all() and same.tolist() == boxes.tolist()
    with pytest.raises(ValueError, match="not inside"):
        vision.BoundingBoxAugment(vision.Invert())(image, np.array([[8, 8, 5, 5]], np.float32))


def test_rand_augment_and_trivial_augment_reproducible_in_a_pipeline():
    images = np.stack([_image() for _ in range(6)])

    def run(op):
        ds.config.set_seed(11)
        data = ds.NumpySlicesDataset({"image": images}, shuffle=False).map(op, input_columns=["image"])
        return [r[0] for r in data.create_tuple_iterator(output_numpy=True)]

    for op in (vision.RandAugment(num_ops=2, magnitude=9), vision.TrivialAugmentWide()):
        first, second = run(op), run(op)
        assert all(a.shape == (16, 20, 3) and a.dtype == np.uint8 for a in first)
        assert all(np.array_equal(a, b) for a, b in zip(first, second))
        assert any(not np.array_equal(a, images[k]) for k, a in enumerate(first))
    assert np.array_equal(vision.RandAugment(num_ops=0)(images[0]), images[0])
    with pytest.raises(ValueError, match="magnitude"):
        vision.RandAugment(magnitude=31)
