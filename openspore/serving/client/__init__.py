"""The serving Python client: `Client(address, servable_name, method_name).infer(instances)`."""
from .client import Client, SSLConfig, ClientGrpcAsyncResult, ClientGrpcAsyncError  # noqa: F401

__all__ = ["Client", "SSLConfig"]
