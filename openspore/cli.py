"""The `openspore` command: `openspore --version`, `openspore info`, `openspore serve SERVABLE_DIR`,
`openspore dataset-cache ...` (the cache server tool, same flags as `dataset-cache`), `openspore debug ...` (the
offline debugger), `openspore insight start|stop` (the dashboard)."""
import argparse
import sys


def _info(args):
    import openspore as ms
    from openspore import backends
    backend = backends.current()
    threads = "n/a"
    if backend.name == "torch":
        import torch
        threads = torch.get_num_threads()
    else:
        import os
        threads = os.cpu_count()
    print(f"openspore {ms.__version__}")
    print(f"backend:        {backend.name}")
    print(f"device target:  {ms.get_context('device_target')} ({backend.device})")
    print(f"threads:        {threads}")
    print(f"mode:           {'GRAPH_MODE' if ms.get_context('mode') == ms.GRAPH_MODE else 'PYNATIVE_MODE'}")
    print(f"primitives:     {len(ms.ops.primitive_table())}")
    return 0


def _serve_command():
    # Lazy: the serving stack (grpc, uvicorn) loads only for `openspore serve`.
    from openspore.serving import serve_command
    return serve_command


def _dataset_cache(args):
    from openspore.dataset.cache.admin import main as cache_main
    return cache_main(args.cache_args)


def main(argv=None):
    from openspore.version import __version__
    parser = argparse.ArgumentParser(prog="openspore", description="openspore: the MindSpore 2.x system in Python.")
    parser.add_argument("--version", action="version", version=f"openspore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    info = sub.add_parser("info", help="print version, backend, device target and thread count")
    info.set_defaults(func=_info)
    serve = sub.add_parser("serve", help="serve servables over gRPC and REST (MindSpore Serving API)",
                           description="Serve the servables of SERVABLE_DIR until Ctrl-C / SIGTERM.")
    _serve_command().add_arguments(serve)
    serve.set_defaults(func=lambda a: _serve_command().run(a))
    cache = sub.add_parser("dataset-cache", add_help=False, prefix_chars="\0",
                           help="start, query and stop the dataset cache server (flags of MindSpore's dataset-cache)")
    cache.add_argument("cache_args", nargs="*")
    cache.set_defaults(func=_dataset_cache)
    debug = sub.add_parser("debug", help="offline debugger over dump directories (watchpoints, code <-> graph)",
                           description="Check watchpoint rules over dumps, map code lines to graph nodes.")
    from openspore.insight.debugger import cli as debug_cli  # argparse only: the analyzer loads when it runs
    debug_cli.add_arguments(debug)
    debug.set_defaults(func=debug_cli.run)
    insight = sub.add_parser("insight", help="the training dashboard: summaries, graphs, lineage, the debugger UI",
                             description="Start or stop the dashboard (the flags of 'mindinsight start/stop').")
    from openspore.insight.dashboard import cli as insight_cli  # argparse only: the server loads when it runs
    insight_cli.add_arguments(insight)
    insight.set_defaults(func=insight_cli.run)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
