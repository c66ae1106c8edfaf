"""int8 kernels (registered by the quantization work)."""
