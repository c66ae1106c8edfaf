"""`mindspore.dataset.audio`: audio transforms (a subset of MindSpore's module: the biquad filters, resampling,
pitch/vad effects and the file datasets are not here yet)."""
from .transforms import (AmplitudeToDB, BorderType, ComplexNorm, Contrast, DBToAmplitude, DCShift, Fade,  # noqa: F401
                         FadeShape, FrequencyMasking, Gain, GainType, Magphase, MelScale, MelSpectrogram, MelType,
                         MuLawDecoding, MuLawEncoding, NormMode, NormType, ScaleType, Spectrogram, TimeMasking, Vol,
                         WindowType, mel_filterbank)

__all__ = ["AmplitudeToDB", "BorderType", "ComplexNorm", "Contrast", "DBToAmplitude", "DCShift", "Fade",
           "FadeShape", "FrequencyMasking", "Gain", "GainType", "Magphase", "MelScale", "MelSpectrogram", "MelType",
           "MuLawDecoding", "MuLawEncoding", "NormMode", "NormType", "ScaleType", "Spectrogram", "TimeMasking", "Vol",
           "WindowType"]
