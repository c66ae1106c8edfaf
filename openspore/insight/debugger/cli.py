"""`openspore debug ...`: the offline debugger on the command line.

    openspore debug check DUMP_DIR --rule tensor_overflow [--rule weight_too_large:abs_mean_gt=10]
                          [--iteration 0|3-5] [--rank 0] [--node REGEX] [--json]
    openspore debug nodes DUMP_DIR --code lenet.py:35        (code -> graph)
    openspore debug nodes DUMP_DIR --name Conv2D-op0         (graph -> code)
    openspore debug first-nan DUMP_DIR                       (which rank, iteration and node went non-finite first)
    openspore debug recommend DUMP_DIR [--check]             (MindInsight's recommended watchpoints)

Rules are MindInsight condition ids (`weight_overflow`, `tensor_too_large`, ...) or the extra ones
(`loss_not_decreasing`, `dead_relu`, `first_nonfinite`, `update_ratio_out_of_band`); a rule for weights,
gradients or activations watches the nodes of that category. Progress goes to stderr on long scans.
"""
import argparse
import json
import sys

from .analyzer import DumpAnalyzer
from .catalog import CONDITIONS, make_condition
from .dump_names import parse_iterations
from .engine import Watchpoint


def add_arguments(parser):
    sub = parser.add_subparsers(dest="debug_command", metavar="ACTION")
    check = sub.add_parser("check", help="check watchpoint rules over a dump directory")
    check.add_argument("dump_dir")
    check.add_argument("--rule", action="append", required=True,
                       help="condition id, optionally with parameters: ID[:name=value,...]; repeatable")
    check.add_argument("--iteration", default="all", help='iterations to check, e.g. "0|3-5" (default: all)')
    check.add_argument("--rank", type=int, action="append", help="rank(s) to check (default: all)")
    check.add_argument("--node", help="only nodes whose name matches this regex")
    check.add_argument("--json", action="store_true", help="print hits as JSON lines")
    check.set_defaults(debug_func=_check)
    nodes = sub.add_parser("nodes", help="find nodes by code location or name, with their code stacks")
    nodes.add_argument("dump_dir")
    group = nodes.add_mutually_exclusive_group(required=True)
    group.add_argument("--code", help="a code location such as lenet.py:35")
    group.add_argument("--name", help="a node name (substring), e.g. Conv2D-op0")
    nodes.add_argument("--rank", type=int, action="append")
    nodes.set_defaults(debug_func=_nodes)
    first = sub.add_parser("first-nan", help="the first node that produced NaN/Inf, per rank")
    first.add_argument("dump_dir")
    first.set_defaults(debug_func=_first_nan)
    rec = sub.add_parser("recommend", help="MindInsight's recommended watchpoints for the dumped graphs")
    rec.add_argument("dump_dir")
    rec.add_argument("--check", action="store_true", help="also check them and print the hits")
    rec.set_defaults(debug_func=_recommend)


def run(args):
    if not getattr(args, "debug_func", None):
        print("usage: openspore debug {check,nodes,first-nan,recommend} DUMP_DIR ...", file=sys.stderr)
        return 2
    try:
        return args.debug_func(args)
    except (ValueError, TypeError) as exc:
        print(f"openspore debug: error: {exc}", file=sys.stderr)
        return 2


def parse_rule(text):
    """`weight_too_large:abs_mean_gt=10,max_gt=5` -> (condition id, condition object)."""
    cid, _, params = text.partition(":")
    values = {}
    for item in filter(None, (p.strip() for p in params.split(","))):
        name, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"rule {text!r}: parameter {item!r} should be name=value.")
        try:
            values[name.strip()] = float(value)
        except ValueError:
            raise ValueError(f"rule {text!r}: parameter {name!r} should be a number, got {value!r}.") from None
    return cid, make_condition(cid, **values)


def _progress(done, total):
    if total >= 2:
        print(f"\rchecked {done}/{total} (rank, iteration) pairs", end="\n" if done == total else "",
              file=sys.stderr, flush=True)


def _check(args):
    analyzer = DumpAnalyzer(args.dump_dir)
    keep = parse_iterations(args.iteration, "--iteration")
    its = [i for i in analyzer.get_iterations(args.rank) if keep(i)]
    watchpoints = []
    for k, text in enumerate(args.rule):
        cid, condition = parse_rule(text)
        target = CONDITIONS[cid][1]
        nodes = analyzer.select_nodes(args.node or ".*", use_regex=True, ranks=args.rank)
        if target in ("weight", "gradient", "activation"):
            nodes = [n for n in nodes if n.category == target]
        elif target == "loss":
            nodes = [n for n in nodes if "loss" in n.name.lower() and not n.name.startswith("Gradients")]
        tensors = [t for n in nodes for t in n.get_output_tensors(iterations=its)]
        watchpoints.append(Watchpoint(tensors, condition, watchpoint_id=k, name=cid))
    hits = analyzer.check_watchpoints(watchpoints, progress=_progress)
    for hit in hits:
        print(json.dumps(hit.to_dict()) if args.json else _hit_text(hit, args.rule[hit.watchpoint_id]))
    if not args.json:
        print(f"{len(hits)} hit(s) over ranks {analyzer.get_ranks() if not args.rank else args.rank}, "
              f"iterations {its}")
    return 1 if hits else 0


def _hit_text(hit, rule):
    n, t = hit.tensor.node, hit.tensor
    detail = ", ".join(f"{p.name}={p.actual:g} (threshold {p.threshold:g})" for p in hit.params if p.hit)
    user = _user_frame(n.stack)
    lines = [f"[{rule}] rank {n.rank} iteration {t.iteration} {n.op_type} {n.name} slot {t.slot}"
             + (f": {detail}" if detail else "") + (f"  ({'; '.join(hit.error_msg)})" if hit.error_msg else "")]
    if user:
        lines.append(f"    at {user}")
    lines.extend(f"    hint: {h}" for h in hit.tuning_hints[:2])
    return "\n".join(lines)


def _user_frame(stack):
    """The innermost frame outside framework code (the user's line), else the innermost one."""
    frames = [f for f in stack if "site-packages" not in f.file_path and "/openspore/" not in f.file_path]
    return str(frames[-1] if frames else stack[-1]) if stack else ""


def _nodes(args):
    analyzer = DumpAnalyzer(args.dump_dir)
    if args.code:
        nodes = analyzer.select_nodes(args.code, select_by="code_stack", ranks=args.rank)
    else:
        nodes = analyzer.select_nodes(args.name, ranks=args.rank)
    for n in nodes:
        print(f"rank {n.rank} graph {n.root_graph_id} {n.op_type} {n.name}")
        for frame in n.stack:
            print(f"    # {frame}")
    print(f"{len(nodes)} node(s)")
    return 0 if nodes else 1


def _first_nan(args):
    analyzer = DumpAnalyzer(args.dump_dir)
    found = analyzer.first_nonfinite()
    for rank, it, node in found:
        print(f"rank {rank} iteration {it}: {node.op_type} {node.name}")
        if node.stack:
            print(f"    at {_user_frame(node.stack)}")
    if not found:
        print("no NaN/Inf in the dump")
    return 1 if found else 0


def _recommend(args):
    analyzer = DumpAnalyzer(args.dump_dir)
    wps = analyzer.recommend_watchpoints()
    for wp in wps:
        nodes = {(t.rank, t.name) for t in wp.tensors}
        print(f"{wp.name}: {wp.condition!r} on {len(nodes)} node(s)")
    if args.check:
        all_tensors = [Watchpoint([t for n in wp.tensors for t in n.get_output_tensors()], wp.condition,
                                  watchpoint_id=k) for k, wp in enumerate(wps)]
        hits = analyzer.check_watchpoints(all_tensors, progress=_progress)
        for hit in hits:
            print(_hit_text(hit, wps[hit.watchpoint_id].name))
        print(f"{len(hits)} hit(s)")
        return 1 if hits else 0
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="openspore debug", description="openspore's offline debugger")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
