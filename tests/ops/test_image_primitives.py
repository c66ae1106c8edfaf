"""Image primitives against independent references: colorsys for colour spaces, torch unfold / max for patches and
dilation, a brute-force suppression for the NMS family."""
import colorsys

import numpy as np
import pytest
import torch

import openspore as ms
from openspore import ops

T = ms.Tensor
rng = np.random.default_rng(0)


def test_colour_space_round_trip_matches_colorsys():
    x = rng.random((4, 5, 3)).astype(np.float32)
    x[0, 0] = [0.3, 0.3, 0.3]  # grey: hue and saturation 0
    x[0, 1] = [0.0, 0.0, 0.0]
    hsv = ops.RGBToHSV()(T(x)).asnumpy()
    ref = np.array([colorsys.rgb_to_hsv(*p) for p in x.reshape(-1, 3).astype(np.float64)]).reshape(x.shape)
    np.testing.assert_allclose(hsv, ref, atol=1e-6)
    np.testing.assert_allclose(ops.HSVToRGB()(T(hsv)).asnumpy(), x, atol=1e-6)
    back = np.array([colorsys.hsv_to_rgb(*p) for p in hsv.reshape(-1, 3).astype(np.float64)]).reshape(x.shape)
    np.testing.assert_allclose(ops.HSVToRGB()(T(hsv)).asnumpy(), back, atol=1e-6)
    with pytest.raises(ValueError, match="last dimension is 3"):
        ops.RGBToHSV()(T(np.zeros((2, 4), np.float32)))


def test_adjust_hue_and_saturation():
    x = rng.random((3, 4, 3)).astype(np.float32)
    got = ops.AdjustHue()(T(x), 0.25).asnumpy()
    ref = []
    for p in x.reshape(-1, 3).astype(np.float64):
        h, s, v = colorsys.rgb_to_hsv(*p)
        ref.append(colorsys.hsv_to_rgb((h + 0.25) % 1.0, s, v))
    np.testing.assert_allclose(got, np.array(ref).reshape(x.shape), atol=1e-5)
    got = ops.AdjustSaturation()(T(x), 1.7).asnumpy()
    ref = []
    for p in x.reshape(-1, 3).astype(np.float64):
        h, s, v = colorsys.rgb_to_hsv(*p)
        ref.append(colorsys.hsv_to_rgb(h, min(s * 1.7, 1.0), v))
    np.testing.assert_allclose(got, np.array(ref).reshape(x.shape), atol=1e-5)
    g = ms.grad(lambda v: ops.AdjustSaturation()(v, 0.5).sum())(T(x))
    assert g.shape == x.shape and np.isfinite(g.asnumpy()).all()


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_extract_image_patches_matches_torch_unfold(padding):
    x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    k, s, r = (3, 2), (2, 1), (1, 2)
    got = ops.ExtractImagePatches((1, *k, 1), (1, *s, 1), (1, *r, 1), padding)(T(x)).asnumpy()
    tx = torch.tensor(x)
    if padding == "SAME":
        pads = []
        for size, kk, ss, rr in zip(x.shape[2:], k, s, r):
            out = -(-size // ss)
            total = max((out - 1) * ss + (kk - 1) * rr + 1 - size, 0)
            pads.append((total // 2, total - total // 2))
        tx = torch.nn.functional.pad(tx, (*pads[1], *pads[0]))
    cols = torch.nn.functional.unfold(tx, k, dilation=r, stride=s)          # (N, C*kh*kw, L), channel slowest
    n, oh, ow = x.shape[0], got.shape[2], got.shape[3]
    ref = cols.reshape(n, 3, k[0] * k[1], oh, ow).permute(0, 2, 1, 3, 4).reshape(n, -1, oh, ow).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_dilation2d_matches_a_direct_loop_and_differentiates():
    x = rng.standard_normal((1, 2, 5, 6)).astype(np.float32)
    f = rng.standard_normal((2, 2, 3)).astype(np.float32)
    got = ops.Dilation2D((1, 1, 2, 1), (1, 1, 1, 2), "VALID")(T(x), T(f)).asnumpy()
    oh, ow = (5 - 2) // 2 + 1, (6 - 5) // 1 + 1
    ref = np.full((1, 2, oh, ow), -np.inf)
    for c in range(2):
        for y in range(oh):
            for z in range(ow):
                for i in range(2):
                    for j in range(3):
                        ref[0, c, y, z] = max(ref[0, c, y, z], x[0, c, y * 2 + i, z + j * 2] + f[c, i, j])
    np.testing.assert_allclose(got, ref, rtol=1e-6)
    same = ops.Dilation2D(1, 1, "SAME")(T(x), T(f))
    assert same.shape == (1, 2, 5, 6)
    gx = ms.grad(lambda v: ops.Dilation2D(1, 1, "SAME")(v, T(f)).sum())(T(x)).asnumpy()
    assert gx.sum() == pytest.approx(2 * 5 * 6)  # each output's gradient lands on its arg-max input


def _brute_nms(boxes, scores, limit, thr, score_thr):
    def iou(a, b):
        lo_a, hi_a = np.minimum(a[:2], a[2:]), np.maximum(a[:2], a[2:])
        lo_b, hi_b = np.minimum(b[:2], b[2:]), np.maximum(b[:2], b[2:])
        inter = np.prod(np.clip(np.minimum(hi_a, hi_b) - np.maximum(lo_a, lo_b), 0, None))
        union = np.prod(hi_a - lo_a) + np.prod(hi_b - lo_b) - inter
        return inter / union if union > 0 else 0.0
    alive = [i for i in range(len(scores)) if scores[i] > score_thr]
    kept = []
    while alive and len(kept) < limit:
        best = max(alive, key=lambda i: (scores[i], -i))
        kept.append(best)
        alive = [i for i in alive if i != best and iou(boxes[i], boxes[best]) <= thr]
    return kept


def test_non_max_suppression_family():
    boxes = rng.random((30, 4)).astype(np.float32) * 4
    boxes[:, 2:] = boxes[:, :2] + rng.random((30, 2)).astype(np.float32) + 0.5
    scores = rng.random(30).astype(np.float32)
    got = ops.NonMaxSuppressionV3()(T(boxes), T(scores), 10, 0.3, 0.2).asnumpy()
    assert got.dtype == np.int32 and got.tolist() == _brute_nms(boxes, scores, 10, 0.3, 0.2)
    flipped = boxes[:, [2, 3, 0, 1]]  # corners in either order
    assert ops.NonMaxSuppressionV3()(T(flipped), T(scores), 10, 0.3, 0.2).asnumpy().tolist() == got.tolist()
    overlaps = rng.random((8, 8)).astype(np.float32)
    kept = ops.NonMaxSuppressionWithOverlaps()(T(overlaps), T(scores[:8]), 5, 0.5, 0.0).asnumpy().tolist()
    order = [int(i) for i in np.argsort(-scores[:8])]
    expect = []
    for i in order:
        if len(expect) < 5 and all(overlaps[i, j] <= 0.5 for j in expect):
            expect.append(i)
    assert kept == expect
    bboxes = np.concatenate([boxes[:6, [1, 0, 3, 2]], scores[:6, None]], 1)
    out, idx, mask = ops.NMSWithMask(0.3)(T(bboxes))
    assert idx.asnumpy().tolist() == np.argsort(-scores[:6], kind="stable").tolist()
    np.testing.assert_allclose(out.asnumpy(), bboxes[idx.asnumpy()])
    kept = set(_brute_nms(bboxes[:, :4], scores[:6], 6, 0.3, -1.0))
    assert mask.asnumpy().tolist() == [int(i) in kept for i in idx.asnumpy()]


def test_combined_non_max_suppression():
    boxes = rng.random((2, 6, 1, 4)).astype(np.float32) * 0.5
    boxes[..., 2:] += 0.5
    scores = rng.random((2, 6, 3)).astype(np.float32)
    nb, ns, nc, valid = ops.CombinedNonMaxSuppression()(T(boxes), T(scores), 2, 5, 0.5, 0.1)
    assert nb.shape == (2, 5, 4) and ns.shape == (2, 5) and nc.shape == (2, 5) and valid.dtype == ms.int32
    for n in range(2):
        found = []
        for c in range(3):
            for i in _brute_nms(boxes[n, :, 0], scores[n, :, c], 2, 0.5, 0.1):
                found.append((scores[n, i, c], c))
        found.sort(key=lambda t: -t[0])
        found = found[:5]
        assert valid.asnumpy()[n] == len(found)
        np.testing.assert_allclose(ns.asnumpy()[n, :len(found)], [f[0] for f in found])
        assert nc.asnumpy()[n, :len(found)].tolist() == [float(f[1]) for f in found]
