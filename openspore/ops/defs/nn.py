"""Primitives: nn family."""
