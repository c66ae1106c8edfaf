"""`mindspore.dataset.audio`: audio transforms and cepstral features (a subset of MindSpore's module: resampling,
pitch/vad effects and the file datasets are not here yet)."""
from .filters import (AllpassBiquad, BandBiquad, BandpassBiquad, BandrejectBiquad, BassBiquad, Biquad,  # noqa: F401
                      DeemphBiquad, EqualizerBiquad, Filtfilt, HighpassBiquad, LFilter, LowpassBiquad, TrebleBiquad)
from .features import (Angle, ComputeDeltas, LFCC, MaskAlongAxis, MaskAlongAxisIID, MFCC,  # noqa: F401
                       SpectralCentroid, create_dct, linear_fbanks, melscale_fbanks)
from .transforms import (AmplitudeToDB, BorderType, ComplexNorm, Contrast, DBToAmplitude, DCShift, Fade,  # noqa: F401
                         FadeShape, FrequencyMasking, Gain, GainType, Magphase, MelScale, MelSpectrogram, MelType,
                         MuLawDecoding, MuLawEncoding, NormMode, NormType, ScaleType, Spectrogram, TimeMasking, Vol,
                         WindowType, mel_filterbank)

__all__ = ["AmplitudeToDB", "BorderType", "ComplexNorm", "Contrast", "DBToAmplitude", "DCShift", "Fade",
           "FadeShape", "FrequencyMasking", "Gain", "GainType", "Magphase", "MelScale", "MelSpectrogram", "MelType",
           "MuLawDecoding", "MuLawEncoding", "NormMode", "NormType", "ScaleType", "Spectrogram", "TimeMasking", "Vol",
           "WindowType", "AllpassBiquad", "BandBiquad", "BandpassBiquad", "BandrejectBiquad", "BassBiquad", "Biquad",
           "DeemphBiquad", "EqualizerBiquad", "Filtfilt", "HighpassBiquad", "LFilter", "LowpassBiquad", "TrebleBiquad",
           "Angle", "ComputeDeltas", "LFCC", "MFCC", "create_dct", "linear_fbanks", "melscale_fbanks",
           "MaskAlongAxis", "MaskAlongAxisIID", "SpectralCentroid"]
