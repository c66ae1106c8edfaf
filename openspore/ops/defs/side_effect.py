"""Primitives: side_effect family."""
