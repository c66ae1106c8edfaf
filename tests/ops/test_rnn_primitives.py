"""BasicLSTMCell / DynamicRNN / DynamicGRUV2 against torch's LSTMCell and GRU with the weights mapped over."""
import numpy as np
import torch

import openspore as ms
from openspore import ops

T = ms.Tensor
rng = np.random.default_rng(0)
I_, H = 3, 4


def _torch_lstm_weights(w, b, forget_bias):
    """MindSpore (I+H, 4H) in i, j, f, o order → torch (4H, I), (4H, H), bias in i, f, g, o order."""
    i, j, f, o = np.split(w, 4, 1)
    bi, bj, bf, bo = np.split(b, 4)
    wt = np.concatenate([i, f, j, o], 1).T
    return wt[:, :I_], wt[:, I_:], np.concatenate([bi, bf + forget_bias, bj, bo])


def test_basic_lstm_cell_and_dynamic_rnn_match_torch():
    w = rng.standard_normal((I_ + H, 4 * H)).astype(np.float32) * 0.5
    b = rng.standard_normal(4 * H).astype(np.float32) * 0.5
    x = rng.standard_normal((5, 2, I_)).astype(np.float32)
    h0, c0 = rng.standard_normal((2, H)).astype(np.float32), rng.standard_normal((2, H)).astype(np.float32)
    cell = torch.nn.LSTMCell(I_, H)
    wi, wh, bias = _torch_lstm_weights(w, b, 1.0)
    with torch.no_grad():
        cell.weight_ih.copy_(torch.tensor(wi))
        cell.weight_hh.copy_(torch.tensor(wh))
        cell.bias_ih.copy_(torch.tensor(bias))
        cell.bias_hh.zero_()
        rh, rc = cell(torch.tensor(x[0]), (torch.tensor(h0), torch.tensor(c0)))
    ct, ht, *_ = ops.BasicLSTMCell()(T(x[0]), T(h0), T(c0), T(w), T(b))
    np.testing.assert_allclose(ct.asnumpy(), rc.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ht.asnumpy(), rh.numpy(), rtol=1e-5, atol=1e-5)
    y, out_h, out_c, *gates = ops.DynamicRNN()(T(x), T(w), T(b), None, T(h0[None]), T(c0[None]))
    wi, wh, bias = _torch_lstm_weights(w, b, 0.0)
    lstm = torch.nn.LSTM(I_, H)
    with torch.no_grad():
        lstm.weight_ih_l0.copy_(torch.tensor(wi))
        lstm.weight_hh_l0.copy_(torch.tensor(wh))
        lstm.bias_ih_l0.copy_(torch.tensor(bias))
        lstm.bias_hh_l0.zero_()
        ry, (rh, rc) = lstm(torch.tensor(x), (torch.tensor(h0[None]), torch.tensor(c0[None])))
    np.testing.assert_allclose(y.asnumpy(), ry.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out_c.asnumpy()[-1], rc.numpy()[0], rtol=1e-5, atol=1e-5)
    assert len(gates) == 5 and all(g.shape == (5, 2, H) for g in gates)
    g = ms.grad(lambda v: ops.DynamicRNN()(v, T(w), T(b))[0].sum())(T(x))
    assert g.shape == x.shape and np.abs(g.asnumpy()).sum() > 0


def test_dynamic_gru_v2_matches_torch_gru():
    wi = rng.standard_normal((I_, 3 * H)).astype(np.float32) * 0.5
    wh = rng.standard_normal((H, 3 * H)).astype(np.float32) * 0.5
    bi, bh = (rng.standard_normal(3 * H).astype(np.float32) * 0.5 for _ in range(2))
    x = rng.standard_normal((4, 2, I_)).astype(np.float32)
    h0 = rng.standard_normal((2, H)).astype(np.float32)
    y, out_h, update, reset, new, hidden_new = ops.DynamicGRUV2()(T(x), T(wi), T(wh), T(bi), T(bh), None, T(h0))
    gru = torch.nn.GRU(I_, H)  # torch packs r, z, n — the "rzh" order
    with torch.no_grad():
        gru.weight_ih_l0.copy_(torch.tensor(wi.T))
        gru.weight_hh_l0.copy_(torch.tensor(wh.T))
        gru.bias_ih_l0.copy_(torch.tensor(bi))
        gru.bias_hh_l0.copy_(torch.tensor(bh))
        ry, _ = gru(torch.tensor(x), torch.tensor(h0[None]))
    np.testing.assert_allclose(y.asnumpy(), ry.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out_h.asnumpy(), ry.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(hidden_new.asnumpy()[0], h0 @ wh[:, 2 * H:] + bh[2 * H:], rtol=1e-5, atol=1e-5)
