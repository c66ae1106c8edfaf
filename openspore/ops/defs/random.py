"""Primitives: random family."""
