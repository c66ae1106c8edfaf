"""The `nn` layers (facts §1.7): MindSpore signatures, defaults and parameter names."""
from .activation import *  # noqa: F401,F403
from .basic import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .rnn_cells import *  # noqa: F401,F403
from .rnns import *  # noqa: F401,F403
from . import activation, basic, conv, pooling, normalization, embedding, attention, transformer, rnn_cells, rnns
from .extra import *  # noqa: F401,F403  (padding layers, Threshold, PixelShuffle, Moments, ...)
from . import extra
from .more import (BiDense, TimeDistributed, Upsample, LPPool1d, LPPool2d, RReLU, SyncBatchNorm,  # noqa: F401
                   Conv2dBnAct, DenseBnAct, ParameterUpdate, EmbeddingLookup, MicroBatchInterleaved,
                   GradAccumulationCell)
from . import more
from .image import PSNR, SSIM, MSSSIM  # noqa: F401
from . import image
from .sparse import SparseToDense, SparseTensorDenseMatmul  # noqa: F401
from . import sparse
from .conv3d import Conv3d, Conv3dTranspose  # noqa: F401
from .pooling3d import (AvgPool3d, MaxPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d, MaxUnpool1d,  # noqa: F401
                        MaxUnpool2d, MaxUnpool3d, LRN)
from .ext import (AvgPool1dExt, AvgPool2dExt, AvgPool3dExt, MaxPool2dExt, DropoutExt, Dropout2dExt,  # noqa: F401
                  EmbeddingExt, LayerNormExt, LogSoftmaxExt, PReLUExt)
from .math_cells import DiGamma, IGamma, LBeta, LGamma, MatDet  # noqa: F401
from . import conv3d, pooling3d, ext, math_cells
from .fractional import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: F401
from . import fractional
from .multifield import MultiFieldEmbeddingLookup  # noqa: F401
from . import multifield

__all__ = (activation.__all__ + basic.__all__ + conv.__all__ + pooling.__all__ + normalization.__all__
           + embedding.__all__ + attention.__all__ + transformer.__all__ + rnn_cells.__all__ + rnns.__all__
           + extra.__all__ + more.__all__ + image.__all__ + sparse.__all__ + conv3d.__all__ + pooling3d.__all__
           + ext.__all__ + math_cells.__all__ + fractional.__all__ + multifield.__all__)
