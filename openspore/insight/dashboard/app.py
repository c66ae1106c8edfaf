"""The dashboard's ASGI app: the static single-page front end and the REST routes under `/v1/mindinsight`.

    >>> import tempfile
    >>> app = create_app(tempfile.mkdtemp(), token="t0k3n")
    >>> sorted({r.path for r in app.routes if r.path.startswith("/v1/mindinsight/ui")})
    ['/v1/mindinsight/ui-config']

Served on loopback by default (`cli.py`); the Host header must name the address served (a page on another
site cannot reach the dashboard through DNS rebinding), pages may load scripts only from the dashboard itself.
"""
import os

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..summary_reader import SummaryIndex
from . import summary_api
from .debugger_api import Debugger

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
API = "/v1/mindinsight"
_HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; style-src 'self' "
                                       "'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
            "Cache-Control": "no-store"}


class _SecurityHeaders:
    """Adds the headers above to every response."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                for key, value in _HEADERS.items():
                    if key.lower().encode() not in present:
                        headers.append((key.lower().encode(), value.encode()))
                message["headers"] = headers
            await send(message)
        await self.app(scope, receive, with_headers)


def create_app(summary_base_dir, token, debug_server=None, allowed_hosts=("127.0.0.1", "localhost"),
               reload_interval=3):
    """The app over `summary_base_dir`; `token` guards the debugger routes; `debug_server` (a started
    DebugServer) enables the online debugger page."""
    index = SummaryIndex(summary_base_dir)
    debugger = Debugger(index, token, debug_server)

    async def page(request):
        return FileResponse(os.path.join(STATIC, "index.html"))

    async def ui_config(request):
        return JSONResponse({"enable_debugger": debug_server is not None, "reload_interval": reload_interval,
                             "summary_base_dir": os.path.basename(index.base)})

    routes = [Route("/", page), Route(f"{API}/ui-config", ui_config)]
    for path, handler, methods in summary_api.routes(index) + debugger.routes():
        routes.append(Route(API + path, handler, methods=methods))
    routes.append(Mount("/static", app=StaticFiles(directory=STATIC), name="static"))
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)),
                  Middleware(_SecurityHeaders)]
    app = Starlette(routes=routes, middleware=middleware)
    app.state.index, app.state.debugger = index, debugger
    return app
