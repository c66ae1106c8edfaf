"""Graph-mode compiler: the frontend (tracing `construct` into IR), the optimization passes and `pipeline.py`."""
