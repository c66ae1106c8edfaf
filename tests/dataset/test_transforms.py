import io

import numpy as np
import pytest

import openspore as ms
from openspore.dataset import config, transforms, vision
from openspore.dataset.vision import Border, Inter


def _bilinear_reference(img, out_h, out_w):
    """OpenCV-style bilinear resize of a 2-D float image, built from np.interp (half-pixel centres, clamped)."""
    def coords(n_out, n_in):
        return np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
    rows = np.stack([np.interp(coords(out_w, img.shape[1]), np.arange(img.shape[1]), r) for r in img])
    return np.stack([np.interp(coords(out_h, img.shape[0]), np.arange(img.shape[0]), c) for c in rows.T]).T


def test_resize_shapes_and_values():
    img = np.arange(36, dtype=np.float32).reshape(6, 6, 1)
    out = vision.Resize((4, 4))(img)
    assert out.shape == (4, 4, 1) and out.dtype == np.float32
    np.testing.assert_allclose(out[..., 0], _bilinear_reference(img[..., 0], 4, 4), rtol=1e-5, atol=1e-4)
    up = vision.Resize((5, 7))(np.array([[0, 100], [200, 255]], np.uint8))
    # uint8 runs OpenCV's (MindSpore's) 11-bit fixed-point bilinear: within one grey level of the exact value
    exact = _bilinear_reference(np.array([[0, 100], [200, 255.]]), 5, 7)
    assert up.dtype == np.uint8 and np.abs(up.astype(float) - exact).max() <= 1.0
    blocks = np.arange(16, dtype=np.float32).reshape(4, 4)
    np.testing.assert_allclose(vision.Resize((2, 2), Inter.AREA)(blocks), blocks.reshape(2, 2, 2, 2).mean((1, 3)))
    np.testing.assert_array_equal(vision.Resize((2, 2), Inter.NEAREST)(blocks), blocks[::2, ::2])
    assert vision.Resize(5)(np.zeros((10, 20, 3), np.uint8)).shape == (5, 10, 3)
    assert vision.Resize(5)(np.zeros((30, 10), np.uint8)).shape == (15, 5)
    cubic = vision.Resize((8, 8), Inter.BICUBIC)(np.full((4, 4, 3), 77, np.uint8))
    assert cubic.shape == (8, 8, 3) and np.all(cubic == 77)  # cubic weights sum to one
    assert vision.Resize((3, 3), Inter.PILCUBIC)(np.zeros((6, 6, 3), np.uint8)).shape == (3, 3, 3)
    from PIL import Image
    pil = vision.Resize((4, 3))(Image.new("RGB", (10, 10)))
    assert isinstance(pil, Image.Image) and pil.size == (3, 4)
    with pytest.raises(ValueError, match="'size'"):
        vision.Resize((0, 3))


def test_crops():
    img = np.arange(5 * 6 * 3, dtype=np.uint8).reshape(5, 6, 3)
    np.testing.assert_array_equal(vision.CenterCrop((3, 2))(img), img[1:4, 2:4])
    padded = vision.CenterCrop(7)(img)
    assert padded.shape == (7, 7, 3) and padded[0].sum() == 0 and np.array_equal(padded[1:6, 0:6], img)
    np.testing.assert_array_equal(vision.Crop((1, 2), (2, 3))(img), img[1:3, 2:5])
    out = vision.RandomCrop((3, 3))(img)
    windows = [img[t:t + 3, l:l + 3] for t in range(3) for l in range(4)]
    assert any(np.array_equal(out, w) for w in windows)
    big = vision.RandomCrop(8, padding=2, fill_value=(1, 2, 3))(img)
    assert big.shape == (8, 8, 3)
    needed = vision.RandomCrop((7, 9), pad_if_needed=True, padding_mode=Border.EDGE)(img)
    assert needed.shape == (7, 9, 3)
    with pytest.raises(ValueError, match="greater than the image size"):
        vision.RandomCrop(9)(img)
    rrc = vision.RandomResizedCrop((4, 5), scale=(0.5, 1.0))(np.zeros((20, 30, 3), np.uint8))
    assert rrc.shape == (4, 5, 3) and rrc.dtype == np.uint8


def test_flips_rotation_pad():
    img = np.arange(12, dtype=np.uint8).reshape(3, 4, 1)
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(0.0)(img), img)
    np.testing.assert_array_equal(vision.RandomVerticalFlip(1.0)(img), img[::-1])
    square = np.arange(16, dtype=np.uint8).reshape(4, 4)
    np.testing.assert_array_equal(vision.RandomRotation((90, 90))(square), np.rot90(square))
    np.testing.assert_array_equal(vision.Rotate(180)(square.astype(np.float32)), np.rot90(square, 2))
    assert vision.Rotate(45, expand=True)(np.zeros((10, 10, 3), np.uint8)).shape[0] > 10
    for mode, np_mode in ((Border.EDGE, "edge"), (Border.REFLECT, "reflect"), (Border.SYMMETRIC, "symmetric")):
        np.testing.assert_array_equal(vision.Pad((1, 2), padding_mode=mode)(img),
                                      np.pad(img, ((2, 2), (1, 1), (0, 0)), mode=np_mode))
    const = vision.Pad((1, 0, 2, 3), fill_value=9)(img)
    assert const.shape == (6, 7, 1) and const[0, 0, 0] == 9 and const[5, 6, 0] == 9
    np.testing.assert_array_equal(const[0:3, 1:5], img)


@pytest.mark.parametrize("channels", [1, 2, 3, 4, 5])
def test_normalize_uint8_equals_float32_formula_bit_for_bit(channels):
    # every uint8 value in every channel: the fast uint8 paths must give exactly float32 (v - mean) / std
    rng = np.random.default_rng(channels)
    mean = rng.uniform(-300, 300, channels).astype(np.float32)
    std = rng.uniform(0.01, 300, channels).astype(np.float32)
    img = np.tile(np.arange(256, dtype=np.uint8)[:, None, None], (1, 3, channels))
    expected = (img.astype(np.float32) - mean) / std
    out = vision.Normalize(mean.tolist(), std.tolist())(img)
    assert out.dtype == np.float32 and out.shape == img.shape
    np.testing.assert_array_equal(out.view(np.int32), expected.view(np.int32))
    chw = vision.Normalize(mean.tolist(), std.tolist(), is_hwc=False)(np.ascontiguousarray(img.transpose(2, 0, 1)))
    np.testing.assert_array_equal(chw, expected.transpose(2, 0, 1))


def test_normalize_rescale_hwc2chw_totensor():
    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    mean, std = [1.0, 2.0, 3.0], [2.0, 4.0, 8.0]
    out = vision.Normalize(mean, std)(img)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, (img - np.array(mean)) / np.array(std), rtol=1e-6)
    chw = img.transpose(2, 0, 1)
    np.testing.assert_allclose(vision.Normalize(mean, std, is_hwc=False)(chw),
                               (chw - np.array(mean)[:, None, None]) / np.array(std)[:, None, None], rtol=1e-6)
    with pytest.raises(ValueError, match="std"):
        vision.Normalize([0.5], [0.0])
    rescaled = vision.Rescale(1 / 255, -0.5)(img)
    assert rescaled.dtype == np.float32 and np.isclose(rescaled[0, 0, 1], 1 / 255 - 0.5)
    assert vision.HWC2CHW()(img).shape == (3, 2, 3) and vision.HWC2CHW()(img[..., 0]).shape == (2, 3)
    t = vision.ToTensor()(img)
    assert t.shape == (3, 2, 3) and t.dtype == np.float32 and np.isclose(t.max(), 17 / 255)
    assert vision.ToTensor(np.float16)(img[..., 0]).shape == (1, 2, 3)


def test_color_adjust_against_pil():
    from PIL import Image, ImageEnhance
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (6, 7, 3), dtype=np.uint8)
    bright = vision.RandomColorAdjust(brightness=(1.5, 1.5))(img)
    expected = np.asarray(ImageEnhance.Brightness(Image.fromarray(img)).enhance(1.5))
    assert np.abs(bright.astype(int) - expected).max() <= 1
    gray = vision.RandomColorAdjust(saturation=(0, 0))(img)
    expected = np.asarray(Image.fromarray(img).convert("L"))
    assert np.abs(gray[..., 0].astype(int) - expected).max() <= 1 and np.all(gray[..., 0] == gray[..., 2])
    flat = vision.RandomColorAdjust(contrast=(0, 0))(img)
    assert len(np.unique(flat)) == 1
    red = np.zeros((1, 1, 3), np.uint8)
    red[..., 0] = 255
    np.testing.assert_array_equal(vision.RandomColorAdjust(hue=(1 / 3, 1 / 3))(red)[0, 0], [0, 255, 0])
    assert vision.Grayscale(3)(img).shape == (6, 7, 3)


def test_decode():
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(np.full((3, 4), 200, np.uint8), mode="L").save(buf, format="PNG")
    data = np.frombuffer(buf.getvalue(), np.uint8)
    img = vision.Decode()(data)
    assert img.shape == (3, 4, 3) and img.dtype == np.uint8 and np.all(img == 200)
    assert isinstance(vision.Decode(to_pil=True)(data), Image.Image)
    with pytest.raises(RuntimeError, match="could not be decoded"):
        vision.Decode()(np.zeros(10, np.uint8))
    with pytest.raises(TypeError, match="1-D uint8"):
        vision.Decode()(np.zeros((2, 2), np.uint8))


def test_common_transforms():
    x = np.array([1, 2, 3], np.int64)
    assert transforms.TypeCast(ms.int32)(x).dtype == np.int32
    assert transforms.TypeCast(np.float16)(x).dtype == np.float16
    assert vision.ToType(ms.float32)(x).dtype == np.float32
    np.testing.assert_array_equal(transforms.OneHot(4)(np.array([0, 3])), [[1, 0, 0, 0], [0, 0, 0, 1]])
    assert transforms.OneHot(4)(np.array(2, np.int32)).dtype == np.int32
    smooth = transforms.OneHot(4, smoothing_rate=0.2)(np.array(1))
    np.testing.assert_allclose(smooth, [0.05, 0.85, 0.05, 0.05], rtol=1e-6)
    with pytest.raises(RuntimeError, match="index values should not bigger than num classes: 4, but got: 4"):
        transforms.OneHot(4)(np.array([4]))  # MindSpore's error type and sentence
    np.testing.assert_array_equal(transforms.Fill(7)(x), [7, 7, 7])
    np.testing.assert_array_equal(transforms.PadEnd([5], -1)(x), [1, 2, 3, -1, -1])
    np.testing.assert_array_equal(transforms.PadEnd([2, None])(np.ones((1, 2))), [[1, 1], [0, 0]])
    np.testing.assert_array_equal(transforms.Compose([lambda v: v * 2, transforms.TypeCast(np.float32)])(x), [2, 4, 6])
    np.testing.assert_array_equal(transforms.RandomApply([lambda v: v + 1], prob=1.0)(x), [2, 3, 4])
    np.testing.assert_array_equal(transforms.RandomApply([lambda v: v + 1], prob=0.0)(x), x)
    assert transforms.RandomChoice([lambda v: v * 0])(x).sum() == 0
    a, b = transforms.Duplicate()(x)
    assert a is not b and np.array_equal(a, b)
    np.testing.assert_array_equal(transforms.Concatenate(0, np.array([0]), np.array([9]))(x), [0, 1, 2, 3, 9])
    m = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(transforms.Slice(1, slice(0, 4, 2))(m), [[4, 6]])
    np.testing.assert_array_equal(transforms.Slice([2, 0], None)(m), m[[2, 0]])
    mask = transforms.Mask(transforms.Relational.GT, 1)(x)
    assert mask.dtype == np.bool_ and mask.tolist() == [False, True, True]
    assert transforms.Mask(transforms.Relational.EQ, 2, ms.int32)(x).tolist() == [0, 1, 0]
    y, idx, counts = transforms.Unique()(np.array([5, 1, 5, 3, 1, 5]))
    assert y.tolist() == [5, 1, 3] and idx.tolist() == [0, 1, 0, 2, 1, 0] and counts.tolist() == [3, 2, 1]
    assert transforms.TypeCast(ms.float32)(ms.Tensor([1, 2])).dtype == np.float32  # Tensors work eagerly too


def test_random_transforms_follow_the_dataset_seed():
    img = np.arange(100, dtype=np.uint8).reshape(10, 10)
    config.set_seed(11)
    a = [vision.RandomCrop(4)(img) for _ in range(5)]
    config.set_seed(11)
    b = [vision.RandomCrop(4)(img) for _ in range(5)]
    assert all(np.array_equal(p, q) for p, q in zip(a, b))
    assert len({p.tobytes() for p in a}) > 1


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32, np.float64, np.float16, np.int64])
def test_hwc2chw_equals_transpose_for_every_dtype_and_channel_count(dtype):
    rng = np.random.default_rng(0)
    for channels in (1, 2, 3, 4, 6):
        img = (rng.random((5, 7, channels)) * 100).astype(dtype)
        for x in (img, img[:, ::2]):  # contiguous and strided inputs
            out = vision.HWC2CHW()(x)
            assert out.dtype == x.dtype and out.flags.c_contiguous
            np.testing.assert_array_equal(out, x.transpose(2, 0, 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16])
def test_normalize_non_uint8_hwc_equals_broadcast_formula(dtype):
    img = (np.random.default_rng(2).random((9, 11, 3)) * 255).astype(dtype)
    mean, std = np.float32([123.675, 116.28, 103.53]), np.float32([58.395, 57.12, 57.375])
    expected = (img.astype(np.float32) - mean) / std
    np.testing.assert_array_equal(vision.Normalize(mean.tolist(), std.tolist())(img), expected)
