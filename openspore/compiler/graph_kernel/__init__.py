"""Graph-kernel fusion (MindSpore's GraphKernel): switches (flags.py), the op lists (ops.py), the fused-kernel
primitive and its compiler (fused.py), the clusters as text (dump.py). The passes themselves are
compiler/passes/graph_kernel_expand.py and graph_kernel_cluster.py, run by compiler/pipeline.py when fusion
is on; docs/graph_kernel.md is the user's guide."""
