"""Transformer layers (facts §1.7): TransformerEncoderLayer/DecoderLayer, TransformerEncoder/Decoder, Transformer.

Children use MindSpore's names (`self_attn`, `multihead_attn`, `dense1`, `dense2`, `norm1`..`norm3`, `dropout`,
`dropout1`..`dropout3`), so checkpoints interchange. Post-norm by default (`norm_first=False`).

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
>>> layer(ms.Tensor(np.ones((2, 3, 8), np.float32))).shape
(2, 3, 8)
"""
import copy

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import XavierUniform, initializer
from ..cell import Cell
from ..container import CellList
from ._common import check_bool, positive_int
from .attention import MultiheadAttention
from .basic import Dense, Dropout
from .normalization import LayerNorm


def _activation(name, activation):
    if activation == "relu":
        return ops.relu
    if activation == "gelu":
        return ops.gelu
    if isinstance(activation, Cell) or callable(activation):
        return activation
    raise ValueError(f"For '{name}', the 'activation' must be 'relu', 'gelu', a Cell or a callable, "
                     f"but got {activation!r}.")


class _TransformerLayer(Cell):
    """What the encoder and decoder layers share: self-attention (plus cross-attention in the decoder), the
    feed-forward pair, and one LayerNorm and one Dropout per block, created in MindSpore's attribute order
    (parameter names and order follow it)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                 norm_first, dtype, cross_attention):
        super().__init__()
        name = type(self).__name__
        d_model = positive_int(name, "d_model", d_model)
        dim_feedforward = positive_int(name, "dim_feedforward", dim_feedforward)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        if cross_attention:
            self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                     dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.norm_first = check_bool(name, "norm_first", norm_first)
        blocks = 3 if cross_attention else 2
        for i in range(1, blocks + 1):
            setattr(self, f"norm{i}", LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for i in range(1, blocks + 1):
            setattr(self, f"dropout{i}", Dropout(p=dropout))
        self.activation = _activation(name, activation)

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)


class TransformerEncoderLayer(_TransformerLayer):
    """`TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1, activation='relu',
    layer_norm_eps=1e-05, batch_first=False, norm_first=False, dtype=mstype.float32)`.

    `construct(src, src_mask=None, src_key_padding_mask=None)`: self-attention block then feed-forward block,
    each with a residual connection and LayerNorm (after the block, or before it with norm_first).
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                         norm_first, dtype, cross_attention=False)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        if self.norm_first:
            x = ops.add(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask))
            return ops.add(x, self._ff_block(self.norm2(x)))
        x = self.norm1(ops.add(x, self._sa_block(x, src_mask, src_key_padding_mask)))
        return self.norm2(ops.add(x, self._ff_block(x)))

    def _ff_block(self, x):
        return self.dropout2(self.dense2(self.dropout(self.activation(self.dense1(x)))))


class TransformerDecoderLayer(_TransformerLayer):
    """`TransformerDecoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1, activation='relu',
    layer_norm_eps=1e-05, batch_first=False, norm_first=False, dtype=mstype.float32)`.

    `construct(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None)`: self-attention, cross-attention over `memory`, feed-forward.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                         norm_first, dtype, cross_attention=True)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = ops.add(x, self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask))
            x = ops.add(x, self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask))
            return ops.add(x, self._ff_block(self.norm3(x)))
        x = self.norm1(ops.add(x, self._sa_block(x, tgt_mask, tgt_key_padding_mask)))
        x = self.norm2(ops.add(x, self._mha_block(x, memory, memory_mask, memory_key_padding_mask)))
        return self.norm3(ops.add(x, self._ff_block(x)))

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.dense2(self.dropout(self.activation(self.dense1(x)))))


def _clones(name, layer, num_layers):
    if not isinstance(layer, Cell):
        raise TypeError(f"For '{name}', the layer must be a Cell, but got {type(layer).__name__}.")
    num_layers = positive_int(name, "num_layers", num_layers)
    return CellList([copy.deepcopy(layer) for _ in range(num_layers)])


class TransformerEncoder(Cell):
    """`TransformerEncoder(encoder_layer, num_layers, norm=None)`: num_layers copies of encoder_layer (children
    `layers.0`, `layers.1`, …), then `norm` if given. `construct(src, src_mask=None, src_key_padding_mask=None)`."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones("TransformerEncoder", encoder_layer, num_layers)
        self.num_layers = len(self.layers)
        self.norm = norm

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            x = self.norm(x)
        return x


class TransformerDecoder(Cell):
    """`TransformerDecoder(decoder_layer, num_layers, norm=None)`: num_layers copies of decoder_layer, then
    `norm`. `construct(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None)`."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones("TransformerDecoder", decoder_layer, num_layers)
        self.num_layers = len(self.layers)
        self.norm = norm

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            x = self.norm(x)
        return x


class Transformer(Cell):
    """`Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
    dropout=0.1, activation='relu', custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-05,
    batch_first=False, norm_first=False, dtype=mstype.float32)`: encoder-decoder; every matrix parameter is
    re-initialized XavierUniform.

    `construct(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None)`.
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first
        for param in self.get_parameters():
            if len(param.shape) > 1:
                param.set_data(initializer(XavierUniform(), param.shape, param.dtype))

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
        batch_axis = 0 if self.batch_first else 1
        if len(src.shape) == 3 and src.shape[batch_axis] != tgt.shape[batch_axis]:
            raise ValueError(f"For 'Transformer', the batch number of 'src' and 'tgt' must be equal, but got "
                             f"{src.shape[batch_axis]} and {tgt.shape[batch_axis]}.")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(f"For 'Transformer', the feature number of 'src' and 'tgt' must be {self.d_model}, "
                             f"but got {src.shape[-1]} and {tgt.shape[-1]}.")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)


__all__ = ["TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder",
           "Transformer"]
