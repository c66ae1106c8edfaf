"""Functional random_func ops (MindSpore 2.x signatures)."""

__all__ = []
