"""The vision transforms added for MindSpore 2.10 coverage (issue 19). Deterministic ones are checked against
MindSpore's printed values in tests/compat/recorded/vision_extra.py; here: the random ones (their effect, their
reproducibility under a seed), batch mixing, crops, I/O round trips, bad input, and use inside a pipeline."""
import numpy as np
import pytest

import openspore.dataset as ds
import openspore.dataset.vision as V

RS = np.random.RandomState(1)
IMG = RS.randint(0, 256, (12, 10, 3)).astype(np.uint8)


def test_adjust_colour_factors_behave_at_their_anchors():
    assert (V.AdjustBrightness(0.0)(IMG) == 0).all()
    assert (V.AdjustBrightness(1.0)(IMG) == IMG).all()
    grey = V.AdjustSaturation(0.0)(IMG)
    assert (np.abs(grey.astype(int) - grey[:, :, :1]) <= 1).all()
    assert (V.AdjustHue(0.0)(IMG) == IMG).all()
    assert np.abs(V.AdjustGamma(1.0)(IMG).astype(int) - IMG).max() == 0
    assert np.ptp(V.AdjustContrast(0.0)(IMG)) <= 1
    low = (IMG // 4 + 50).astype(np.uint8)
    stretched = V.AutoContrast()(low)
    assert stretched.min() == 0 and stretched.max() == 255


def test_random_forms_apply_or_skip_by_probability():
    assert (V.RandomInvert(1.0)(IMG) == 255 - IMG).all()
    assert (V.RandomInvert(0.0)(IMG) == IMG).all()
    assert (V.RandomEqualize(1.0)(IMG) == V.Equalize()(IMG)).all()
    assert (V.RandomAutoContrast(prob=1.0)(IMG) == V.AutoContrast()(IMG)).all()
    gray = V.RandomGrayscale(1.0)(IMG)
    assert gray.shape == IMG.shape and (gray[:, :, 0] == gray[:, :, 2]).all()
    assert (V.RandomPosterize((2, 2))(IMG) == V.Posterize(2)(IMG)).all()
    assert (V.RandomSharpness((1.0, 1.0))(IMG) == IMG).all()
    assert (V.RandomColor((1.0, 1.0))(IMG) == IMG).all()
    assert (V.RandomAdjustSharpness(0.0, prob=1.0)(IMG) == V.AdjustSharpness(0.0)(IMG)).all()


def test_random_transforms_follow_the_dataset_seed():
    ops = [V.RandomLighting(0.1), V.RandomSolarize((0, 255)), V.RandomAffine(20, (0.1, 0.1), (0.9, 1.1), 5),
           V.RandomPerspective(0.5, 1.0), V.RandomResize((6, 5)), V.CutOut(4, 2)]
    runs = []
    for _ in range(2):
        ds.config.set_seed(5)
        runs.append([op(IMG) for op in ops])
    for a, b in zip(*runs):
        assert (a == b).all()
    assert not (runs[0][0] == IMG).all() and runs[0][4].shape == (6, 5, 3)
    assert (runs[0][5] == 0).sum() >= 16 * 3 // 4  # at least part of one zeroed patch


def test_erasing_crops_and_patches():
    chw = IMG.transpose(2, 0, 1).astype(np.float32)
    erased = V.RandomErasing(prob=1.0, value=(1, 2, 3))(chw)
    changed = (erased != chw).any(axis=0)
    assert changed.any() and (erased[0][changed] == 1).all() and (erased[2][changed] == 3).all()
    crops = V.FiveCrop((4, 3))(IMG)
    assert len(crops) == 5 and (crops[0] == IMG[:4, :3]).all() and (crops[3] == IMG[-4:, -3:]).all()
    ten = V.TenCrop(4)(IMG)
    assert len(ten) == 10 and (ten[5] == IMG[:4, ::-1][:, :4]).all()
    with pytest.raises(ValueError, match="bigger than the image"):
        V.FiveCrop(20)(IMG)


def test_batch_mixing_keeps_label_mass():
    images = RS.randint(0, 256, (6, 8, 8, 3)).astype(np.uint8)
    labels = np.eye(3, dtype=np.float32)[[0, 1, 2, 0, 1, 2]]
    ds.config.set_seed(3)
    mixed, mixed_labels = V.MixUpBatch(1.0)(images, labels)
    assert mixed.shape == images.shape and np.allclose(mixed_labels.sum(1), 1.0)
    cut, cut_labels = V.CutMixBatch(V.ImageBatchFormat.NCHW, 1.0, 1.0)(images.transpose(0, 3, 1, 2), labels)
    assert cut.shape == (6, 3, 8, 8) and np.allclose(cut_labels.sum(1), 1.0)
    m, ml = V.MixUp(6, 0.5)(images.astype(np.float32), labels)
    assert np.allclose(ml.sum(1), 1.0) and m.dtype == np.float32
    with pytest.raises(ValueError, match="one-hot"):
        V.MixUpBatch()(images, np.zeros(6))


def test_policies_choose_among_their_transforms():
    ds.config.set_seed(2)
    flips = V.UniformAugment([V.HorizontalFlip(), V.VerticalFlip()], num_ops=2)
    seen = {tuple(flips(IMG).ravel()[:6]) for _ in range(20)}
    assert len(seen) >= 2
    sub = V.RandomSelectSubpolicy([[(V.Invert(), 1.0)], [(V.Equalize(), 1.0), (V.Invert(), 0.0)]])
    outs = {sub(IMG).tobytes() for _ in range(20)}
    assert outs == {V.Invert()(IMG).tobytes(), V.Equalize()(IMG).tobytes()}
    with pytest.raises(ValueError, match="num_ops"):
        V.UniformAugment([V.Invert()], num_ops=2)


def test_image_io_round_trips(tmp_path):
    path = str(tmp_path / "a.png")
    V.write_png(path, IMG)
    assert (V.read_image(path) == IMG).all()
    assert V.read_image(path, V.ImageReadMode.GRAYSCALE).shape == (12, 10, 1)
    raw = V.read_file(path)
    assert raw.dtype == np.uint8 and (V.Decode()(raw) == IMG).all()
    jpg = str(tmp_path / "b.jpg")
    smooth = np.broadcast_to((np.arange(10) * 20).astype(np.uint8)[None, :, None], (12, 10, 3)).copy()
    V.write_jpeg(jpg, smooth, quality=95)
    assert np.abs(V.read_image(jpg).astype(int) - smooth).max() <= 8
    V.write_file(str(tmp_path / "c.bin"), raw)
    assert (V.read_file(str(tmp_path / "c.bin")) == raw).all()
    with pytest.raises(ValueError, match="no such file"):
        V.read_file(str(tmp_path / "missing.png"))
    with pytest.raises(ValueError, match="quality"):
        V.encode_jpeg(IMG, quality=0)


def test_decode_crop_resize_and_normalize_pad():
    data = V.encode_png(IMG)
    out = V.RandomCropDecodeResize((5, 4))(data)
    assert out.shape == (5, 4, 3)
    padded = V.NormalizePad([0, 0, 0], [1, 1, 1])(IMG)
    assert padded.shape == (12, 10, 4) and (padded[:, :, 3] == 0).all() and (padded[:, :, 0] == IMG[:, :, 0]).all()


def test_bad_arguments_name_the_transform():
    with pytest.raises(ValueError, match="AdjustHue"):
        V.AdjustHue(0.7)
    with pytest.raises(ValueError, match="Posterize"):
        V.Posterize(9)
    with pytest.raises(TypeError, match="ConvertColor"):
        V.ConvertColor("rgb")
    with pytest.raises(ValueError, match="GaussianBlur"):
        V.GaussianBlur(4)
    with pytest.raises(ValueError, match="RGB image"):
        V.AdjustBrightness(1.0)(IMG[:, :, 0])


def test_new_transforms_run_in_a_pipeline():
    images = RS.randint(0, 256, (8, 16, 16, 3)).astype(np.uint8)
    data = ds.NumpySlicesDataset({"image": images}, shuffle=False)
    data = data.map([V.RandomAffine(10), V.GaussianBlur(3), V.PadToSize((20, 20)), V.CutOut(3)], input_columns=["image"])
    shapes = {row["image"].shape for row in data.create_dict_iterator(output_numpy=True)}
    assert shapes == {(20, 20, 3)}
