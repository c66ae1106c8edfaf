"""Check that real MindInsight reads openspore's summary files (a development tool, not run in CI).

Trains the insight tests' LeNet with `SummaryCollector` (GRAPH_MODE, 2 epochs of 4 steps), then loads the run with
MindInsight's own summary loader (`MSDataLoader`) in a separate environment and compares the loss per step:

    python -m venv /tmp/mienv && /tmp/mienv/bin/pip install mindinsight==2.3.1   # pins protobuf<=3.20.1
    python tools/check_mindinsight.py --mindinsight-python /tmp/mienv/bin/python

Prints the plugins and tags MindInsight found and `match True` when every step's loss is the value training saw.
Checked with a Python 3.9 venv (MindInsight 2.3.1 from PyPI, protobuf 3.20.1).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

_READER = r'''
import json, sys
from mindinsight.datavisual.data_transform.ms_data_loader import MSDataLoader


def main(run_dir, losses_file):
    loader = MSDataLoader(run_dir)
    loader.load()
    events = loader.get_events_data()
    for plugin in ("scalar", "histogram", "image", "graph"):
        print(plugin, events.list_tags_by_plugin(plugin))
    points = [(t.step, t.value) for t in events.tensors("loss/auto/scalar")]
    want = json.load(open(losses_file))
    print("loss/auto per step", points)
    same = [s for s, _ in points] == list(range(1, len(want) + 1)) and all(
        abs(v - w) <= 1e-6 * max(1.0, abs(w)) for (_, v), w in zip(points, want))
    print("match", same)
    return 0 if same else 1


if __name__ == "__main__":  # MindInsight parses in a process pool (spawn): the guard is required
    sys.exit(main(sys.argv[1], sys.argv[2]))
'''


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mindinsight-python", required=True, help="the Python of an environment with MindInsight")
    args = parser.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import numpy as np
    import openspore as ms
    from tests.insight import summary_runs
    with tempfile.TemporaryDirectory(prefix="openspore-mindinsight-") as tmp:
        ms.set_context(mode=ms.GRAPH_MODE)
        losses = summary_runs.train_lenet(os.path.join(tmp, "lenet"))
        losses_file = os.path.join(tmp, "losses.json")
        with open(losses_file, "w") as f:
            json.dump([float(np.float32(v)) for v in losses], f)
        reader = os.path.join(tmp, "read_with_mindinsight.py")
        with open(reader, "w") as f:
            f.write(_READER)
        return subprocess.run([args.mindinsight_python, reader, os.path.join(tmp, "lenet"), losses_file],
                              cwd=tmp).returncode


if __name__ == "__main__":
    sys.exit(main())
