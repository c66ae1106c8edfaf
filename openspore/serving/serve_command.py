"""`openspore serve SERVABLE_DIR`: start servables and the gRPC/REST front ends until SIGINT or SIGTERM.

SERVABLE_DIR is either one servable (a folder with servable_config.py) or a servable directory holding several;
`--servable NAME` picks some of the latter. Front ends bind 127.0.0.1 by default; `--grpc none` / `--rest none`
turn one off. Addresses are checked before anything starts. Worker logs go to `--log-dir`, by default
`serving_logs/` inside the servable directory (the folder holding the servables), printed at start.
"""
import ipaddress
import os
import signal
import sys
import threading


def add_arguments(parser):
    parser.add_argument("servable_dir", metavar="SERVABLE_DIR",
                        help="a servable (folder with servable_config.py) or a directory of servables")
    parser.add_argument("--servable", action="append", default=None, metavar="NAME",
                        help="serve only this servable of SERVABLE_DIR (repeatable)")
    parser.add_argument("--grpc", default="127.0.0.1:5500", metavar="ADDR",
                        help="gRPC address, 'ip:port' or 'unix:path'; 'none' = no gRPC (default 127.0.0.1:5500)")
    parser.add_argument("--rest", default="127.0.0.1:1500", metavar="ADDR",
                        help="REST address 'ip:port'; 'none' = no REST (default 127.0.0.1:1500)")
    parser.add_argument("--device-ids", default="0", metavar="IDS",
                        help="comma-separated device ids, one worker process each (default 0)")
    parser.add_argument("--device-type", default=None, choices=["CPU", "GPU", "cpu", "gpu"])
    parser.add_argument("--version", dest="version_number", type=int, default=0, metavar="N",
                        help="version to serve (default 0 = the newest)")
    parser.add_argument("--max-batch-size", type=int, default=None, metavar="N",
                        help="instances per worker batch (default: the model batch size); for a generation "
                             "servable, the most sequences decoded together (1 = one request at a time)")
    parser.add_argument("--max-queue-delay", type=float, default=0.0, metavar="SECONDS",
                        help="how long a batch may wait to fill (default 0)")
    parser.add_argument("--max-msg-mb-size", type=int, default=100, metavar="MB")
    parser.add_argument("--log-dir", default=None,
                        help="worker log directory (default SERVABLE_DIR/serving_logs)")


def _servables(root, picked):
    root = os.path.abspath(root)
    if not os.path.isdir(root):
        raise SystemExit(f"openspore serve: {root} is not a directory")
    if os.path.isfile(os.path.join(root, "servable_config.py")):
        return os.path.dirname(root), [os.path.basename(root)]
    names = sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "servable_config.py")))
    if picked:
        missing = [p for p in picked if p not in names]
        if missing:
            raise SystemExit(f"openspore serve: no servable {missing} in {root} (found {names})")
        names = list(picked)
    if not names:
        raise SystemExit(f"openspore serve: {root} holds no servable (no <name>/servable_config.py)")
    return root, names


def _device_ids(text):
    try:
        return tuple(int(t) for t in text.split(",") if t.strip())
    except ValueError:
        raise SystemExit(f"openspore serve: --device-ids should be comma-separated ints, but got {text!r}") from None


def check_address(text, option, unix_ok=False):
    """Refuse a bad --grpc/--rest value before anything starts: 'ip:port' (IPv4, [IPv6] or localhost, port
    0-65535; 0 = any free port), 'unix:PATH' where allowed, or 'none'."""
    if text.lower() == "none" or (unix_ok and text.startswith("unix:") and len(text) > 5):
        return text
    host, sep, port = text.rpartition(":")
    expected = "'ip:port'" + (", 'unix:PATH'" if unix_ok else "") + " or 'none'"
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise SystemExit(f"openspore serve: {option} should be {expected} (e.g. 127.0.0.1:1500), but got {text!r}")
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if bare != "localhost":
        try:
            ipaddress.ip_address(bare)
        except ValueError:
            raise SystemExit(f"openspore serve: {option} should name an IP address (or localhost), but got "
                             f"{host!r} in {text!r}") from None
        if ":" in bare and not host.startswith("["):
            raise SystemExit(f"openspore serve: an IPv6 address in {option} goes in brackets, e.g. [::1]:1500, but got "
                             f"{text!r}")
    return text


def _log_dir(args, directory):
    """--log-dir, else `<SERVABLE_DIR>/serving_logs` (documented in docs/serving.md; not the caller's cwd)."""
    path = os.path.abspath(args.log_dir or os.path.join(directory, "serving_logs"))
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise SystemExit(f"openspore serve: cannot create the worker log directory {path} ({exc.strerror}); "
                         "choose one with --log-dir") from None
    if not os.access(path, os.W_OK):
        raise SystemExit(f"openspore serve: the worker log directory {path} is not writable; choose one with "
                         "--log-dir")
    return path


def run(args):
    check_address(args.grpc, "--grpc", unix_ok=True)
    check_address(args.rest, "--rest")
    directory, names = _servables(args.servable_dir, args.servable)
    log_dir = _log_dir(args, directory)
    from openspore.serving import server
    from openspore.serving.server.master import context
    context.set_worker_log_dir(log_dir)
    print(f"Serving: worker logs in {log_dir}", flush=True)
    stop_event = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop_event.set())
    try:
        configs = [server.ServableStartConfig(directory, name, device_ids=_device_ids(args.device_ids),
                                              version_number=args.version_number, device_type=args.device_type,
                                              max_batch_size=args.max_batch_size,
                                              max_queue_delay=args.max_queue_delay) for name in names]
        server.start_servables(configs)
        if args.grpc.lower() != "none":
            server.start_grpc_server(args.grpc, max_msg_mb_size=args.max_msg_mb_size)
        if args.rest.lower() != "none":
            server.start_restful_server(args.rest, max_msg_mb_size=args.max_msg_mb_size)
    except RuntimeError as exc:
        server.stop()
        print(f"openspore serve: {exc}", file=sys.stderr)
        return 1
    print(f"Serving: {', '.join(names)} ready; press Ctrl-C to stop", flush=True)
    while not stop_event.wait(0.5):
        pass
    print("Serving: stopping (draining in-flight requests)", flush=True)
    server.stop()
    print("Serving: stopped", flush=True)
    return 0
