"""A summary base dir as a person would have it: two LeNet runs (SummaryCollector) and the dump of a diverging
GRAPH_MODE run, written by real training. Built once per test session (it takes a few seconds)."""
import os

import openspore as ms
from openspore.insight.debugger.dump_writer import disable_dump, enable_dump
from tests.insight import nets, summary_runs

DIVERGING_LR = 1e10  # openspore's LeNet overflows from the first iteration at this rate (test_dump_graph_mode.py)


def build(base):
    """Writes base/lenet_lr0.01, base/lenet_lr0.05 (summaries) and base/diverging (a dump); returns
    {'losses': {run: [per-step losses]}}."""
    losses = {}
    for mode, lr in ((ms.GRAPH_MODE, 0.01), (ms.PYNATIVE_MODE, 0.05)):
        ms.set_context(mode=mode)
        name = f"lenet_lr{lr}"
        losses[name] = summary_runs.train_lenet(os.path.join(base, name), lr=lr,
                                                custom_lineage_data={"mode": "graph" if mode == ms.GRAPH_MODE
                                                                     else "pynative"})
    ms.set_context(mode=ms.GRAPH_MODE)
    dump = os.path.join(base, "diverging")
    enable_dump({"common_dump_settings": {"dump_mode": 0, "path": dump, "net_name": "LeNet", "iteration": "all",
                                          "saved_data": "tensor", "input_output": 0, "kernels": [],
                                          "support_device": [0]},
                 "e2e_dump_settings": {"enable": True, "trans_flag": True}})
    try:
        ms.set_seed(1)
        _, step = nets.train_step(lr=DIVERGING_LR)
        x, y = nets.data()
        for _ in range(3):
            step(x, y)
    finally:
        disable_dump()
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return {"losses": losses}
