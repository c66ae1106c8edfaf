"""HTTPService: an ASGI app on uvicorn, listening on one socket — in a background thread (`start`, for tests and
simulations) or in the calling thread (`serve_forever`, for a process). The standalone server (server.py), the
scheduler (scheduler.py) and the cluster's HTTP servers (cluster_server.py) share it; each gives `app()` and
`_address()`.

>>> HTTPService.__name__
'HTTPService'
"""
import socket

from ..common.files import write_atomic
from ..common.uvicorn_thread import serve_in_thread


class HTTPService:
    ctx = None
    server = thread = _sock = None
    banner = "fl server"

    def app(self):
        raise NotImplementedError

    def _address(self):
        """(host, port) to listen on; port 0 takes any free port."""
        return self.ctx.fl_server_ip, self.ctx.fl_server_port

    def _tls(self):
        return self.ctx.enable_ssl

    def _ssl_options(self):
        if not self._tls():
            return {}
        if not (self.ctx.server_cert_path and self.ctx.server_key_path):
            raise ValueError(f"{type(self).__name__}: enable_ssl=True needs server_cert_path and server_key_path.")
        opts = {"ssl_certfile": self.ctx.server_cert_path, "ssl_keyfile": self.ctx.server_key_path}
        if self.ctx.server_password:
            opts["ssl_keyfile_password"] = self.ctx.server_password
        return opts

    @property
    def url(self):
        scheme = "https" if self._tls() else "http"
        host, port = self._sock.getsockname()[:2]
        return f"{scheme}://{host}:{port}{self.ctx.http_url_prefix}"

    def _bind(self):
        host, port = self._address()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            raise RuntimeError(f"{type(self).__name__}: cannot listen on {host}:{port}: {exc.strerror}") from None
        sock.listen(1024)
        return sock

    def _uvicorn(self):
        import uvicorn
        config = uvicorn.Config(self.app(), log_level="warning", access_log=False, timeout_keep_alive=60,
                                timeout_graceful_shutdown=3, lifespan="on", **self._ssl_options())
        return uvicorn.Server(config)

    def start(self):
        """Serve from a background thread; returns self once the port is open."""
        self._sock = self._bind()
        self.server = self._uvicorn()
        self.thread = serve_in_thread(self.server, self._sock, self.banner, 15,
                                      f"{type(self).__name__}: the HTTP server did not start on {self.url}")
        return self

    def _started_note(self):
        return ""

    def serve_forever(self, ready_file=None):
        """Serve in this thread until the process is stopped (the standalone server: until the job finishes)."""
        self._sock = self._bind()
        self.server = self._uvicorn()
        print(f"[{self.banner}] {self.ctx.fl_name or 'fl'} listening on {self.url}{self._started_note()}", flush=True)
        if ready_file:
            write_atomic(ready_file, [self.url.encode()], read_only=False)
        self.server.run(sockets=[self._sock])

    def stop(self):
        if self.server is not None:
            self.server.should_exit = True
            if self.thread is not None:
                self.thread.join(timeout=10)
            self._sock.close()
            self.server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
