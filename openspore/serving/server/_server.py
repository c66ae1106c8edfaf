"""The module-level server API of MindSpore Serving: one master per process."""
import atexit
import logging
import threading

from ._start_config import merge_configs
from .master._master import Master

logger = logging.getLogger("openspore.serving")
_LOCK = threading.RLock()
_MASTER = None


def _master():
    global _MASTER
    with _LOCK:
        if _MASTER is None:
            _MASTER = Master()
        return _MASTER


def _check_mb(value, where):
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 512:
        raise RuntimeError(f"For '{where}', the parameter 'max_msg_mb_size' should be an int in [1, 512], but got "
                           f"{value!r}.")


def _check_address(address, where):
    if not isinstance(address, str) or not address:
        raise RuntimeError(f"For '{where}', the parameter 'address' should be a non-empty str, but got {address!r}.")


class SSLConfig:
    """SSLConfig(certificate, private_key, custom_ca=None, verify_client=False): PEM file paths for TLS;
    `verify_client=True` requires client certificates signed by `custom_ca`."""

    def __init__(self, certificate, private_key, custom_ca=None, verify_client=False):
        for name, value in (("certificate", certificate), ("private_key", private_key)):
            if not isinstance(value, str) or not value:
                raise RuntimeError(f"For 'SSLConfig', the parameter '{name}' should be a non-empty str, but got "
                                   f"{value!r}.")
        if custom_ca is not None and (not isinstance(custom_ca, str) or not custom_ca):
            raise RuntimeError(f"For 'SSLConfig', the parameter 'custom_ca' should be a str, but got {custom_ca!r}.")
        if not isinstance(verify_client, bool):
            raise RuntimeError(f"For 'SSLConfig', the parameter 'verify_client' should be a bool, but got "
                               f"{verify_client!r}.")
        if verify_client and custom_ca is None:
            raise RuntimeError("For 'SSLConfig', 'custom_ca' is required when 'verify_client' is True.")
        self.certificate, self.private_key = certificate, private_key
        self.custom_ca, self.verify_client = custom_ca, verify_client

    def server_credentials(self):
        import grpc

        def read(path):
            with open(path, "rb") as f:
                return f.read()
        ca = read(self.custom_ca) if self.custom_ca else None
        return grpc.ssl_server_credentials([(read(self.private_key), read(self.certificate))],
                                           root_certificates=ca, require_client_auth=self.verify_client)

    def uvicorn_options(self):
        import ssl
        options = {"ssl_certfile": self.certificate, "ssl_keyfile": self.private_key}
        if self.custom_ca:
            options["ssl_ca_certs"] = self.custom_ca
        if self.verify_client:
            options["ssl_cert_reqs"] = ssl.CERT_REQUIRED
        return options


def start_servables(servable_configs, enable_lite=False):
    """start_servables(servable_configs, enable_lite=False): start the worker processes of one or more
    ServableStartConfig and wait until their models are loaded. Raises RuntimeError('Fail to start workers: ...')
    when a worker fails; then everything started is stopped."""
    if not isinstance(enable_lite, bool):
        raise RuntimeError(f"For 'start_servables', the parameter 'enable_lite' should be a bool, but got "
                           f"{enable_lite!r}.")
    configs = merge_configs(servable_configs)
    try:
        _master().start_servables(configs)
    except BaseException:
        stop()
        raise


def start_grpc_server(address, max_msg_mb_size=100, ssl_config=None):
    """start_grpc_server(address, max_msg_mb_size=100, ssl_config=None): serve MSService on `ip:port` or
    `unix:path`. Port 0 picks a free port; the address listened on is printed and returned."""
    from .master.grpc_server import GrpcServer
    _check_address(address, "start_grpc_server")
    return _start_server("start_grpc_server", "grpc_server", "gRPC", GrpcServer, address, max_msg_mb_size, ssl_config)


def start_restful_server(address, max_msg_mb_size=100, ssl_config=None):
    """start_restful_server(address, max_msg_mb_size=100, ssl_config=None): serve MindSpore Serving's REST API, the
    KServe v2 endpoints and /metrics on `ip:port`. Port 0 picks a free port; the address is printed and
    returned."""
    from .master.restful import RestServer
    _check_address(address, "start_restful_server")
    if address.startswith("unix:"):
        raise RuntimeError("RESTful server does not support binding to unix domain socket")
    return _start_server("start_restful_server", "rest_server", "RESTful", RestServer, address, max_msg_mb_size,
                         ssl_config)


def _start_server(api, slot, kind, server_class, address, max_msg_mb_size, ssl_config):
    """The shared part of start_grpc_server / start_restful_server: checks, one server per kind, and a failed
    start stops everything started so far."""
    _check_mb(max_msg_mb_size, api)
    if ssl_config is not None and not isinstance(ssl_config, SSLConfig):
        raise RuntimeError(f"For '{api}', 'ssl_config' should be a server.SSLConfig, but got "
                           f"{type(ssl_config).__name__}.")
    master = _master()
    with _LOCK:
        if getattr(master, slot) is not None:
            raise RuntimeError(f"Serving {kind} server is already running")
        try:
            setattr(master, slot, server_class(master, address, max_msg_mb_size, ssl_config))
        except BaseException:
            stop()
            raise
    server = getattr(master, slot)
    print(f"Serving: Serving {kind} server start success, listening on {server.address}", flush=True)
    return server.address


def stop():
    """stop(): refuse new requests, finish the queued and in-flight ones, stop the servers and the workers."""
    global _MASTER
    with _LOCK:
        master, _MASTER = _MASTER, None
    if master is not None:
        master.stop()


def metrics_text():
    """The Prometheus metrics of the running server as text (also served at GET /metrics)."""
    with _LOCK:
        return _MASTER.metrics.render().decode() if _MASTER is not None else ""


atexit.register(stop)
