"""The single-node dataset cache: a server daemon (`dataset-cache`) and the `DatasetCache` client.

`from openspore.dataset import DatasetCache`; see docs/dataset_cache.md for the whole workflow.
"""
from .client import CacheStat, DatasetCache  # noqa: F401

__all__ = ["DatasetCache", "CacheStat"]
