"""`mindspore.dataset.audio`: audio transforms (a subset of MindSpore's module: resampling, pitch/vad effects and
the file datasets are not here yet)."""
from .filters import (AllpassBiquad, BandBiquad, BandpassBiquad, BandrejectBiquad, BassBiquad, Biquad,  # noqa: F401
                      DeemphBiquad, EqualizerBiquad, Filtfilt, HighpassBiquad, LFilter, LowpassBiquad, TrebleBiquad)
from .transforms import (AmplitudeToDB, BorderType, ComplexNorm, Contrast, DBToAmplitude, DCShift, Fade,  # noqa: F401
                         FadeShape, FrequencyMasking, Gain, GainType, Magphase, MelScale, MelSpectrogram, MelType,
                         MuLawDecoding, MuLawEncoding, NormMode, NormType, ScaleType, Spectrogram, TimeMasking, Vol,
                         WindowType, mel_filterbank)

__all__ = ["AmplitudeToDB", "BorderType", "ComplexNorm", "Contrast", "DBToAmplitude", "DCShift", "Fade",
           "FadeShape", "FrequencyMasking", "Gain", "GainType", "Magphase", "MelScale", "MelSpectrogram", "MelType",
           "MuLawDecoding", "MuLawEncoding", "NormMode", "NormType", "ScaleType", "Spectrogram", "TimeMasking", "Vol",
           "WindowType", "AllpassBiquad", "BandBiquad", "BandpassBiquad", "BandrejectBiquad", "BassBiquad", "Biquad",
           "DeemphBiquad", "EqualizerBiquad", "Filtfilt", "HighpassBiquad", "LFilter", "LowpassBiquad", "TrebleBiquad"]
