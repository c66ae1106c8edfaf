"""`mindspore.dataset.audio`: audio transforms, cepstral features, resampling, STFT-domain transforms (inverse
spectrogram, Griffin-Lim, phase vocoder, time stretch, pitch shift), pitch detection and effects (phaser,
flanger, ...): MindSpore's module except Vad, which is not here yet."""
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
from .effects import DensityFunction, Dither, Overdrive, Resample, ResampleMethod, SlidingWindowCmn  # noqa: F401,E402

__all__ += ["DensityFunction", "Dither", "Overdrive", "Resample", "ResampleMethod", "SlidingWindowCmn"]
from .spectral import GriffinLim, InverseSpectrogram, PhaseVocoder, PitchShift, TimeStretch  # noqa: F401,E402
from .vinyl import Interpolation, Modulation, RiaaBiquad  # noqa: F401,E402

__all__ += ["GriffinLim", "InverseSpectrogram", "PhaseVocoder", "PitchShift", "TimeStretch", "Interpolation",
            "Modulation", "RiaaBiquad"]
from .modulated import Flanger, Phaser  # noqa: F401,E402
from .pitch import DetectPitchFrequency  # noqa: F401,E402

__all__ += ["Flanger", "Phaser", "DetectPitchFrequency"]
from .inverse_mel import InverseMelScale  # noqa: F401,E402

__all__ += ["InverseMelScale"]
