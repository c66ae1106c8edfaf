"""RNN/LSTM/GRU and their cells: MindSpore parameter names, numerics and gradients vs torch with copied weights,
initial states, seq_length (vs torch packed sequences), batch_first, bidirectional, multi-layer."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import nn
from tests.nn.layer_helpers import close, copy_weights, ms_t

PAIRS = {"LSTM": (nn.LSTM, torch.nn.LSTM), "GRU": (nn.GRU, torch.nn.GRU), "RNN": (nn.RNN, torch.nn.RNN)}


@pytest.fixture(autouse=True)
def _torch_seed():
    torch.manual_seed(0)


def _pair(kind, *args, **kwargs):
    ours, theirs = PAIRS[kind]
    t = theirs(*args, **kwargs)
    kwargs = {("has_bias" if k == "bias" else k): v for k, v in kwargs.items()}
    return copy_weights(ours(*args, **kwargs), t), t


def _check_state(kind, ours, theirs):
    if kind == "LSTM":
        close(ours[0], theirs[0])
        close(ours[1], theirs[1])
    else:
        close(ours, theirs)


def test_lstm_parameter_names_shapes_and_init():
    lstm = nn.LSTM(3, 5, num_layers=2, bidirectional=True)
    shapes = {k: tuple(p.shape) for k, p in lstm.parameters_and_names()}
    assert shapes == {
        "weight_ih_l0": (20, 3), "weight_hh_l0": (20, 5), "bias_ih_l0": (20,), "bias_hh_l0": (20,),
        "weight_ih_l0_reverse": (20, 3), "weight_hh_l0_reverse": (20, 5), "bias_ih_l0_reverse": (20,),
        "bias_hh_l0_reverse": (20,), "weight_ih_l1": (20, 10), "weight_hh_l1": (20, 5), "bias_ih_l1": (20,),
        "bias_hh_l1": (20,), "weight_ih_l1_reverse": (20, 10), "weight_hh_l1_reverse": (20, 5),
        "bias_ih_l1_reverse": (20,), "bias_hh_l1_reverse": (20,)}
    assert all(np.abs(p.asnumpy()).max() <= 1 / np.sqrt(5) for p in lstm.get_parameters())
    assert {k for k, _ in nn.GRU(3, 4, has_bias=False).parameters_and_names()} == {"weight_ih_l0", "weight_hh_l0"}
    assert nn.GRU(3, 4).weight_ih_l0.shape == (12, 3)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = nn.RNN(2, 3)

        def construct(self, x):
            return self.rnn(x)

    assert sorted(p.name for p in Net().get_parameters())[0] == "rnn.bias_hh_l0"


@pytest.mark.parametrize("kind", sorted(PAIRS))
def test_multilayer_bidirectional_batch_first_matches_torch(backend, kind):
    m, t = _pair(kind, 3, 4, num_layers=2, bidirectional=True, batch_first=True)
    x = torch.randn(2, 5, 3)
    with torch.no_grad():
        out, state = t(x)
    ours, our_state = m(ms_t(x))
    close(ours, out)
    _check_state(kind, our_state, state)


@pytest.mark.parametrize("kind", sorted(PAIRS))
def test_initial_state_and_seq_length_match_packed_torch(backend, kind):
    m, t = _pair(kind, 3, 4, num_layers=1, bidirectional=True)
    x = torch.randn(6, 3, 3)
    h0 = torch.randn(2, 3, 4)
    hx = (h0, torch.randn(2, 3, 4)) if kind == "LSTM" else h0
    lengths = torch.tensor([6, 2, 4])
    packed = torch.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=False)
    with torch.no_grad():
        out, state = t(packed, hx)
    out, _ = torch.nn.utils.rnn.pad_packed_sequence(out, total_length=6)
    our_hx = tuple(ms_t(h) for h in hx) if kind == "LSTM" else ms_t(hx)
    ours, our_state = m(ms_t(x), our_hx, seq_length=ms.Tensor(lengths.numpy().astype(np.int32)))
    close(ours, out)
    _check_state(kind, our_state, state)


@pytest.mark.parametrize("kind", sorted(PAIRS))
def test_gradients_through_time_match_torch(backend, kind):
    m, t = _pair(kind, 3, 4, num_layers=2)
    x = torch.randn(4, 2, 3)
    tx = x.clone().requires_grad_(True)
    out, _ = t(tx)
    (out ** 2).sum().backward()
    weights = [m.weight_hh_l0, m.weight_ih_l1, m.bias_hh_l1]
    gx, grads = ms.grad(lambda a: (m(a)[0] ** 2).sum(), 0, weights)(ms_t(x))
    close(gx, tx.grad, rtol=1e-4, atol=1e-5)
    for ours, theirs in zip(grads, (t.weight_hh_l0, t.weight_ih_l1, t.bias_hh_l1)):
        close(ours, theirs.grad, rtol=1e-4, atol=1e-5)


def test_unbatched_input_relu_rnn_and_no_bias(backend):
    m, t = _pair("RNN", 3, 4, nonlinearity="relu", bias=False)
    x = torch.randn(5, 3)
    with torch.no_grad():
        out, h = t(x)
    ours, our_h = m(ms_t(x))
    close(ours, out)
    close(our_h, h)
    with pytest.raises(ValueError, match="the 'nonlinearity' must be 'tanh' or 'relu'"):
        nn.RNN(3, 4, nonlinearity="sigmoid")


def test_dropout_between_layers_only_in_training():
    lstm = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32))
    np.testing.assert_array_equal(lstm(x)[0].asnumpy(), lstm(x)[0].asnumpy())
    lstm.set_train()
    assert not np.array_equal(lstm(x)[0].asnumpy(), lstm(x)[0].asnumpy())


@pytest.mark.parametrize("ours,theirs", [(nn.LSTMCell, torch.nn.LSTMCell), (nn.GRUCell, torch.nn.GRUCell),
                                         (nn.RNNCell, torch.nn.RNNCell)])
def test_cells_match_torch(backend, ours, theirs):
    t = theirs(3, 4)
    m = copy_weights(ours(3, 4), t)
    assert {k for k, _ in m.parameters_and_names()} == {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}
    x, h = torch.randn(2, 3), torch.randn(2, 4)
    with torch.no_grad():
        if ours is nn.LSTMCell:
            c = torch.randn(2, 4)
            expected = t(x, (h, c))
            result = m(ms_t(x), (ms_t(h), ms_t(c)))
            close(result[0], expected[0])
            close(result[1], expected[1])
            close(m(ms_t(x[0]))[0], t(x[0])[0])
        else:
            close(m(ms_t(x), ms_t(h)), t(x, h))
            close(m(ms_t(x[0])), t(x[0]))


def test_to_float_float16(backend):
    x = ms.Tensor(np.random.default_rng(1).standard_normal((4, 2, 3)).astype(np.float32))
    lstm = nn.LSTM(3, 4, bidirectional=True)
    expected = lstm(x)[0].asnumpy()
    out, (h, c) = lstm.to_float(ms.float16)(x)
    assert out.dtype == h.dtype == c.dtype == ms.float16
    np.testing.assert_allclose(out.asnumpy(), expected, atol=1e-2)
    assert nn.GRUCell(3, 4).to_float(ms.float16)(x[0]).dtype == ms.float16
