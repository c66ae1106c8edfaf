"""`mindspore.dataset.audio.InverseMelScale`: a linear-frequency STFT magnitude whose mel projection matches a mel
spectrogram, found by gradient descent.

With F the (n_stft, n_mels) mel filter bank (as MelScale uses), the non-negative spectrogram S (time, n_stft)
minimising mean over frames of ||M - S F||^2 is sought from a uniform random start by SGD with momentum
(`sgdargs`: 'sgd_lr' 0.1, 'sgd_momentum' 0.9), clamping S at 0 after each step, until the loss drops below
`tolerance_loss`, changes by less than `tolerance_change`, or `max_iter` steps ran. The random start draws from
the dataset seed (`dataset.config.set_seed`). The bins the filters determine come out as MindSpore 2.10's; the
output keeps the input's leading shape (MindSpore 2.10 returns a 2-D input's result with an extra leading 1).

>>> import numpy as np
>>> from openspore.dataset import audio
>>> mel = audio.MelScale(n_mels=4, sample_rate=800, n_stft=9)(np.ones((9, 3), np.float32))
>>> spec = InverseMelScale(9, n_mels=4, sample_rate=800, max_iter=3000)(mel)
>>> spec.shape, bool(np.abs(audio.MelScale(n_mels=4, sample_rate=800, n_stft=9)(spec) - mel).max() < 1e-2)
((9, 3), True)
"""
import numpy as np

from ..transforms.base import TensorOperation, rng
from .transforms import MelType, NormType, mel_filterbank


def _check_number(value, name, kinds, where, low=None, positive=False):
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise TypeError(f"For '{where}', '{name}' must be of type {kinds}, but got {type(value).__name__}.")
    if positive and value <= 0:
        raise ValueError(f"For '{where}', '{name}' must be positive, but got {value}.")
    if low is not None and value < low:
        raise ValueError(f"For '{where}', '{name}' must be >= {low}, but got {value}.")
    return value


class InverseMelScale(TensorOperation):
    """`InverseMelScale(n_stft, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, max_iter=100000,
    tolerance_loss=1e-5, tolerance_change=1e-8, sgdargs=None, norm=NormType.NONE, mel_type=MelType.HTK)`:
    (..., n_mels, time) → (..., n_stft, time)."""

    def __init__(self, n_stft, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, max_iter=100000,
                 tolerance_loss=1e-5, tolerance_change=1e-8, sgdargs=None, norm=NormType.NONE,
                 mel_type=MelType.HTK):
        where = "InverseMelScale"
        self.n_stft = _check_number(n_stft, "n_stft", int, where, positive=True)
        self.n_mels = _check_number(n_mels, "n_mels", int, where, positive=True)
        self.sample_rate = _check_number(sample_rate, "sample_rate", int, where, positive=True)
        self.f_min = float(_check_number(f_min, "f_min", (int, float), where))
        self.f_max = float(sample_rate // 2 if f_max is None else _check_number(f_max, "f_max", (int, float), where,
                                                                                low=0))
        if self.f_min >= self.f_max:
            raise ValueError(f"For '{where}', 'f_min' ({self.f_min}) must be less than 'f_max' ({self.f_max}).")
        self.max_iter = _check_number(max_iter, "max_iter", int, where, low=0)
        self.tolerance_loss = float(_check_number(tolerance_loss, "tolerance_loss", (int, float), where, low=0))
        self.tolerance_change = float(_check_number(tolerance_change, "tolerance_change", (int, float), where, low=0))
        if sgdargs is None:
            sgdargs = {"sgd_lr": 0.1, "sgd_momentum": 0.9}
        if not isinstance(sgdargs, dict):
            raise TypeError(f"For '{where}', 'sgdargs' must be a dict, but got {type(sgdargs).__name__}.")
        self.lr = float(sgdargs.get("sgd_lr", 0.1))
        self.momentum = float(sgdargs.get("sgd_momentum", 0.9))
        if not isinstance(norm, NormType) or not isinstance(mel_type, MelType):
            raise TypeError(f"For '{where}', 'norm' must be a NormType and 'mel_type' a MelType.")
        self.norm, self.mel_type = norm, mel_type

    def _execute(self, melspec):
        mel = np.asarray(melspec)
        if mel.ndim < 2 or mel.shape[-2] != self.n_mels:
            raise RuntimeError(f"For 'InverseMelScale', the input must be <..., n_mels={self.n_mels}, time>, "
                               f"but got shape {mel.shape}.")
        fb = mel_filterbank(self.n_stft, self.f_min, self.f_max, self.n_mels, self.sample_rate, self.norm,
                            self.mel_type)
        target = np.swapaxes(mel.reshape((-1,) + mel.shape[-2:]).astype(np.float64), -1, -2)   # (B, T, n_mels)
        frames = target.shape[0] * target.shape[1]
        spec = rng().random(target.shape[:2] + (self.n_stft,))
        velocity = np.zeros_like(spec)
        loss = np.inf
        for _ in range(self.max_iter):
            diff = target - spec @ fb
            new_loss = float((diff ** 2).sum() / frames)
            grad = -2.0 * (diff @ fb.T) / frames
            velocity = self.momentum * velocity + grad
            spec = np.maximum(spec - self.lr * velocity, 0.0)
            if new_loss < self.tolerance_loss or abs(loss - new_loss) < self.tolerance_change:
                break
            loss = new_loss
        out = np.swapaxes(spec, -1, -2).reshape(mel.shape[:-2] + (self.n_stft, mel.shape[-1]))
        return out.astype(mel.dtype if mel.dtype.kind == "f" else np.float32)
