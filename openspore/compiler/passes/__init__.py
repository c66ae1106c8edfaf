"""Optimization passes: one pure function `Graph -> Graph` per module; `pipeline.py` orders them per level."""
