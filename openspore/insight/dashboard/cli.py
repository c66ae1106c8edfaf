"""`openspore insight start|stop|serve` (also `mindinsight ...` and `python -m openspore.insight ...`).

`start` checks the flags, launches `serve` as a background process (logs in `<workspace>/log/`), waits until
it answers and prints the web address with the debugger token; `stop --port N` ends the service started on N.
`serve` runs in the foreground. Flags follow `mindinsight start`: `--summary-base-dir`, `--port` (8080),
`--workspace`, `--reload-interval`, `--enable-debugger`, `--debugger-port`; plus `--host` (127.0.0.1), which
accepts a non-loopback address only with `--allow-remote-access` and then prints a warning.
"""
import argparse
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time

TOKEN_ENV = "OPENSPORE_INSIGHT_TOKEN"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _bool(text):
    value = str(text).lower()
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected True/False/1/0, got {text!r}")


def _port(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"the port should be an integer in 1..65535, got {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"the port should be an integer in 1..65535, got {value}")
    return value


def _interval(text):
    value = int(text)
    if not 0 <= value <= 300:
        raise argparse.ArgumentTypeError(f"the reload interval should be 0..300 seconds, got {value}")
    return value


def add_arguments(parser):
    sub = parser.add_subparsers(dest="insight_command", metavar="{start,stop,serve}")
    for name, helptext in (("start", "start the dashboard in the background"),
                           ("serve", "run the dashboard in the foreground")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--summary-base-dir", default=os.getcwd(),
                       help="folder whose sub-folders hold summary files (default: the current folder)")
        p.add_argument("--port", type=_port, default=8080, help="web port (default 8080)")
        p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
        p.add_argument("--allow-remote-access", action="store_true",
                       help="allow a --host other than loopback (anyone who can reach it sees the summaries)")
        p.add_argument("--workspace", default=os.path.join(os.path.expanduser("~"), "mindinsight"),
                       help="folder for logs and the service records (default ~/mindinsight)")
        p.add_argument("--reload-interval", type=_interval, default=3,
                       help="seconds between the pages' checks for new data (0..300, default 3)")
        p.add_argument("--enable-debugger", type=_bool, default=False, help="True/False: the online debugger")
        p.add_argument("--debugger-port", type=_port, default=50051, help="gRPC port training connects to")
        p.set_defaults(insight_func=_start if name == "start" else _serve)
    stop = sub.add_parser("stop", help="stop the dashboard started on --port")
    stop.add_argument("--port", type=_port, default=8080)
    stop.add_argument("--workspace", default=os.path.join(os.path.expanduser("~"), "mindinsight"))
    stop.set_defaults(insight_func=_stop)


def run(args):
    func = getattr(args, "insight_func", None)
    if func is None:
        print("usage: openspore insight {start,stop,serve} ... (see --help)", file=sys.stderr)
        return 2
    return func(args)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="mindinsight", description="openspore insight: the training dashboard")
    from ...version import __version__
    parser.add_argument("--version", action="version", version=f"mindinsight (openspore {__version__})")
    add_arguments(parser)
    return run(parser.parse_args(argv))


def _check(args):
    """None, or the message of what is wrong with the flags."""
    if not os.path.isdir(args.summary_base_dir):
        return f"--summary-base-dir {args.summary_base_dir!r} is not a directory"
    if args.host not in LOOPBACK and not args.allow_remote_access:
        return (f"--host {args.host} would serve the summaries and the debugger beyond this machine; add "
                f"--allow-remote-access to do that on purpose")
    return None


def _remote_warning(args):
    if args.host not in LOOPBACK:
        print(f"WARNING: openspore insight listens on {args.host}:{args.port}: anyone who can reach this address "
              f"can read the summaries. Use it only on a trusted network.", file=sys.stderr)


def _port_free(host, port):
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT is no conflict
        try:
            s.bind((host, port))
            return True
        except OSError:
            return False


def _record_path(workspace, port):
    return os.path.join(workspace, f"insight-{port}.json")


def _start(args):
    problem = _check(args)
    if problem:
        print(f"openspore insight: {problem}", file=sys.stderr)
        return 2
    if not _port_free(args.host, args.port):
        print(f"openspore insight: port {args.port} is in use (another service, or insight already started: "
              f"'stop --port {args.port}' first)", file=sys.stderr)
        return 1
    _remote_warning(args)
    os.makedirs(os.path.join(args.workspace, "log"), exist_ok=True)
    token = secrets.token_urlsafe(24)
    log_path = os.path.join(args.workspace, "log", f"insight.{args.port}.log")
    cmd = [sys.executable, "-m", "openspore.insight", "serve", "--summary-base-dir",
           os.path.abspath(args.summary_base_dir), "--port", str(args.port), "--host", args.host,
           "--workspace", args.workspace, "--reload-interval", str(args.reload_interval),
           "--enable-debugger", str(args.enable_debugger), "--debugger-port", str(args.debugger_port)]
    if args.allow_remote_access:
        cmd.append("--allow-remote-access")
    env = dict(os.environ, **{TOKEN_ENV: token})
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True)
    url_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            print(f"openspore insight: the service exited with code {proc.returncode}; see {log_path}",
                  file=sys.stderr)
            return 1
        if _answers(url_host, args.port):
            break
        time.sleep(0.2)
    else:
        proc.terminate()
        print(f"openspore insight: the service did not answer within 60 s; see {log_path}", file=sys.stderr)
        return 1
    record = _record_path(args.workspace, args.port)
    fd = os.open(record + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({"pid": proc.pid, "port": args.port, "host": args.host}, f)
    os.replace(record + ".tmp", record)
    print(f"Web address: http://{url_host}:{args.port}/#token={token}")
    print(f"Debugger token: {token}")
    print("service start state: success")
    sys.stdout.flush()
    return 0


def _answers(host, port):
    import urllib.request
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/v1/mindinsight/ui-config", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def _serve(args):
    problem = _check(args)
    if problem:
        print(f"openspore insight: {problem}", file=sys.stderr)
        return 2
    _remote_warning(args)
    import uvicorn
    from .app import create_app
    token = os.environ.pop(TOKEN_ENV, None) or secrets.token_urlsafe(24)
    server = None
    if args.enable_debugger:
        from ..debugger.server import DebugServer
        server = DebugServer(host="127.0.0.1", port=args.debugger_port).start()
        print(f"debugger: training connects with ENABLE_MS_DEBUGGER=1 MS_DEBUGGER_HOST=127.0.0.1 "
              f"MS_DEBUGGER_PORT={server.port}", flush=True)
    hosts = ["*"] if args.host not in LOOPBACK else ["127.0.0.1", "localhost", "[::1]"]
    app = create_app(args.summary_base_dir, token, server, allowed_hosts=hosts, reload_interval=args.reload_interval)
    if not sys.stdout.isatty():
        print(f"serving {os.path.abspath(args.summary_base_dir)} on http://{args.host}:{args.port}/", flush=True)
    else:
        print(f"Web address: http://{args.host}:{args.port}/#token={token}", flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    finally:
        if server is not None:
            server.stop()
    return 0


def _stop(args):
    record = _record_path(args.workspace, args.port)
    try:
        with open(record) as f:
            pid = int(json.load(f)["pid"])
    except (OSError, ValueError, KeyError):
        print(f"openspore insight: no service started on port {args.port} (no {record})", file=sys.stderr)
        return 1
    if not _is_ours(pid):
        os.remove(record)
        print(f"openspore insight: the service on port {args.port} is not running any more", file=sys.stderr)
        return 1
    os.kill(pid, signal.SIGTERM)
    deadline = time.time() + 3
    while time.time() < deadline and _alive(pid):
        time.sleep(0.1)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)
    os.remove(record)
    print("Stop mindinsight service successfully")
    return 0


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of this process is gone for our purposes
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def _is_ours(pid):
    """The pid is alive and runs `openspore.insight serve` (not a process that reused the pid)."""
    if not _alive(pid):
        return False
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"openspore.insight" in f.read()
    except OSError:
        return True  # no /proc: trust the record
