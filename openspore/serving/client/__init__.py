"""The serving Python client: `Client(address, servable_name, method_name).infer(instances)`, and
`GenerateClient(address, model)` for the token stream of generation servables."""
from .client import Client, SSLConfig, ClientGrpcAsyncResult, ClientGrpcAsyncError  # noqa: F401
from .generate_client import GenerateClient  # noqa: F401

__all__ = ["Client", "SSLConfig", "GenerateClient"]
