"""openspore.serving: MindSpore Serving's API and wire formats over the openspore runtime.

`openspore.serving.server` starts servables (worker processes that load models) and the gRPC / REST front ends;
`openspore.serving.client.Client` talks to them. A servable is a directory `<name>/servable_config.py` plus
versioned model files `<name>/<version>/...`; see docs/serving.md.
"""
