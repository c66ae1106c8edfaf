"""Bounding-box vision transforms; the expected boxes are what real MindSpore 2.10 (a black box) returned for the
same image and boxes."""
import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import vision


def _image():
    return np.arange(4 * 6 * 3, dtype=np.uint8).reshape(4, 6, 3)


def _boxes():
    return np.array([[1, 0, 2, 3, 7], [0, 1, 6, 3, 1]], np.float32)


def test_resize_with_bbox_scales_boxes_like_the_image():
    image, boxes = vision.ResizeWithBBox((8, 12))(_image(), _boxes())
    assert image.shape == (8, 12, 3) and boxes.dtype == np.float32
    np.testing.assert_array_equal(boxes, [[2, 0, 4, 6, 7], [0, 2, 12, 6, 1]])
    image, boxes = vision.ResizeWithBBox((3, 5))(_image(), _boxes())
    np.testing.assert_array_equal(image, vision.Resize((3, 5))(_image()))
    np.testing.assert_allclose(boxes, [[0.8333333, 0, 0.8333333 * 2, 2.25, 7], [0, 0.75, 5, 2.25, 1]], rtol=1e-6)
    image, boxes = vision.ResizeWithBBox(5)(np.zeros((10, 20, 3), np.uint8), np.array([[2, 2, 4, 4]], np.float32))
    assert image.shape == (5, 10, 3) and boxes.tolist() == [[1, 1, 2, 2]]


def test_flips_with_bbox():
    image, boxes = vision.RandomHorizontalFlipWithBBox(1.0)(_image(), _boxes())
    np.testing.assert_array_equal(image, _image()[:, ::-1])
    np.testing.assert_array_equal(boxes, [[3, 0, 2, 3, 7], [0, 1, 6, 3, 1]])
    image, boxes = vision.RandomVerticalFlipWithBBox(1.0)(_image(), _boxes())
    np.testing.assert_array_equal(image, _image()[::-1])
    np.testing.assert_array_equal(boxes, [[1, 1, 2, 3, 7], [0, 0, 6, 3, 1]])
    image, boxes = vision.RandomHorizontalFlipWithBBox(0.0)(_image(), _boxes())
    np.testing.assert_array_equal(image, _image())
    np.testing.assert_array_equal(boxes, _boxes())
    source = _boxes()
    vision.RandomHorizontalFlipWithBBox(1.0)(_image(), source)
    np.testing.assert_array_equal(source, _boxes())  # the caller's array is left alone


def test_random_resize_with_bbox_and_seeded_flips():
    image, boxes = vision.RandomResizeWithBBox((8, 12))(_image(), _boxes())
    assert image.shape == (8, 12, 3) and boxes[:, :4].tolist() == [[2, 0, 4, 6], [0, 2, 12, 6]]
    ds.config.set_seed(5)
    first = [vision.RandomHorizontalFlipWithBBox()(_image(), _boxes())[1][0, 0] for _ in range(12)]
    ds.config.set_seed(5)
    again = [vision.RandomHorizontalFlipWithBBox()(_image(), _boxes())[1][0, 0] for _ in range(12)]
    assert first == again and set(first) == {1.0, 3.0}


def test_bbox_errors():
    with pytest.raises(ValueError, match="not inside"):
        vision.ResizeWithBBox((8, 12))(_image(), np.array([[5, 0, 3, 3]], np.float32))
    with pytest.raises(ValueError, match=r"\(N, 4\+\)"):
        vision.ResizeWithBBox((8, 12))(_image(), np.array([[1, 0, 2]], np.float32))
    with pytest.raises(TypeError, match="float32"):
        vision.RandomVerticalFlipWithBBox(1.0)(_image(), np.array([[1, 0, 2, 3]], np.int32))
    with pytest.raises(ValueError, match="prob"):
        vision.RandomHorizontalFlipWithBBox(2.0)


def test_bbox_transform_in_a_pipeline():
    data = ds.NumpySlicesDataset({"image": np.stack([_image(), _image()]), "bbox": np.stack([_boxes(), _boxes()])},
                                 shuffle=False)
    data = data.map(vision.ResizeWithBBox((8, 12)), input_columns=["image", "bbox"])
    rows = list(data.create_dict_iterator(output_numpy=True))
    assert rows[1]["image"].shape == (8, 12, 3) and rows[1]["bbox"][1].tolist() == [0, 2, 12, 6, 1]
