"""The Flower reference of bench/fl.py's FedAvg comparison: the same experiment on Flower's simulation engine
(flwr 1.42, Ray backend), run by bench/fl.py in a child process of a Python that has flwr (see docs/federated.md).

Same data partitions, the same .ms LeNet5 training model trained on each client by openspore.lite's LiteTrainer
(exactly as openspore's FLClient trains), the same epochs, learning rate, clients per round and rounds; Flower's
FedAvg (Message API) weights by the examples each client reports. Prints one line `RESULT {json}` with the time and
test accuracy after each round.

    python bench/fl_flower.py --work DIR --rounds 5 --participants 10 --epochs 2 --lr 0.05
"""
import argparse
import json
import os
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)


def _load(work):
    z = np.load(os.path.join(work, "data.npz"))
    bounds = z["bounds"]
    parts = [z["order"][bounds[k]:bounds[k + 1]] for k in range(len(bounds) - 1)]
    return z["x"], z["y"], z["xt"], z["yt"], parts


_TRAINER = {}


def _trainer(work, x, y):
    """One LiteTrainer per Ray worker process (loading the .ms once), pointed at this client's data."""
    from openspore.federated.trainer import LiteTrainer
    if "t" not in _TRAINER:
        _TRAINER["t"] = LiteTrainer(os.path.join(work, "lenet_train.ms"), x, y)
    t = _TRAINER["t"]
    t.x, t.y = x, y
    return t


def build_apps(work, rounds, participants, epochs, lr, times, accs):
    from flwr.app import ArrayRecord, ConfigRecord, Message, MetricRecord, RecordDict
    from flwr.clientapp import ClientApp
    from flwr.serverapp import ServerApp
    from flwr.serverapp.strategy import FedAvg

    names = json.load(open(os.path.join(work, "names.json")))
    client_app = ClientApp()

    @client_app.train()
    def train(msg, context):
        x, y, _, _, parts = _load(work)
        part = parts[int(context.node_config["partition-id"])]
        t = _trainer(work, x[part], y[part])
        arrays = msg.content["arrays"].to_numpy_ndarrays()
        t.set_weights(dict(zip(names, arrays)))
        t.reset_optimizer()
        cfg = msg.content["config"]
        loss = t.train(int(cfg["epochs"]), float(cfg["lr"]))
        w = t.get_weights()
        content = RecordDict({"arrays": ArrayRecord(numpy_ndarrays=[w[k] for k in names]),
                              "metrics": MetricRecord({"num-examples": len(part), "train_loss": loss})})
        return Message(content=content, reply_to=msg)

    server_app = ServerApp()

    @server_app.main()
    def main(grid, context):
        x, y, xt, yt, parts = _load(work)
        w0 = np.load(os.path.join(work, "w0.npz"))
        from openspore.federated.trainer import LiteTrainer
        evaluator = LiteTrainer(os.path.join(work, "lenet_train.ms"), xt, yt)

        def evaluate(server_round, arrays):
            evaluator.set_weights(dict(zip(names, arrays.to_numpy_ndarrays())))
            accs.append(evaluator.evaluate(xt, yt))
            times.append(time.perf_counter())
            return MetricRecord({"accuracy": accs[-1]})

        strategy = FedAvg(fraction_train=participants / len(parts), fraction_evaluate=0.0,
                          min_train_nodes=participants, min_available_nodes=len(parts))
        strategy.start(grid=grid, initial_arrays=ArrayRecord(numpy_ndarrays=[w0[k] for k in names]),
                       num_rounds=rounds, train_config=ConfigRecord({"epochs": epochs, "lr": lr}),
                       evaluate_fn=evaluate)

    return server_app, client_app


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True, help="the directory bench/fl.py prepared (data, model, weights)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--participants", type=int, default=10)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--cpus", type=int, default=2, help="Ray's CPUs; each client takes one")
    args = ap.parse_args(argv)
    import flwr
    from flwr.simulation import run_simulation
    # Ray workers import the apps from this file as the module `fl_flower` (a function of __main__ would be
    # pickled by value, with the module's globals); they find it and openspore on PYTHONPATH
    here = os.path.dirname(os.path.abspath(__file__))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (REPO, here, os.environ.get("PYTHONPATH")) if p)
    sys.path.insert(0, here)
    import fl_flower
    parts = _load(args.work)[4]
    times, accs = [], []
    server_app, client_app = fl_flower.build_apps(args.work, args.rounds, args.participants, args.epochs, args.lr, times, accs)
    t0 = time.perf_counter()
    run_simulation(server_app=server_app, client_app=client_app, num_supernodes=len(parts),
                   backend_config={"client_resources": {"num_cpus": 1, "num_gpus": 0.0},
                                   "init_args": {"num_cpus": args.cpus, "include_dashboard": False}})
    total = time.perf_counter() - t0
    # times[0] is the evaluation of the initial model, after the engine started; each later one ends a round
    print("RESULT " + json.dumps({"flwr": flwr.__version__, "round_s": np.diff(times).tolist(), "accuracy": accs,
                                  "startup_s": times[0] - t0 if times else None, "total_s": total}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
