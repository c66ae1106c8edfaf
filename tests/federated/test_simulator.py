"""The in-process fleet: non-IID Dirichlet splits, availability, 30% of each iteration's devices vanishing, and the
server keeping no per-device state once an iteration ends."""
import numpy as np

from openspore.federated import FLContext, FLServer
from openspore.federated.simulator import dirichlet_split, simulate
from openspore.federated.trainer import LiteTrainer


def test_dirichlet_split_is_a_partition_and_skewed():
    labels = np.repeat(np.arange(10), 50)
    parts = dirichlet_split(labels, 20, alpha=0.1, rng=np.random.default_rng(1), min_size=3)
    assert sorted(np.concatenate(parts).tolist()) == list(range(500))
    assert min(len(p) for p in parts) >= 3
    classes = [len(np.unique(labels[p])) for p in parts]
    assert np.median(classes) < 6          # alpha 0.1: most devices see few of the 10 classes


def test_fleet_with_drop_outs_keeps_iterating(mlp_model, digits_parts):
    x = np.concatenate([p[0] for p in digits_parts])
    y = np.concatenate([p[1] for p in digits_parts])
    parts = dirichlet_split(y, 12, alpha=0.5, rng=np.random.default_rng(0), min_size=4)
    devices = [(f"dev{k}", x[p], y[p]) for k, p in enumerate(parts)]
    ctx = FLContext(fl_name="sim", fl_server_port=0, start_fl_job_threshold=6, start_fl_job_time_window=60000,
                    update_model_ratio=0.5, update_model_time_window=1500, fl_iteration_num=3, client_epoch_num=1,
                    client_batch_size=8, client_learning_rate=0.1)
    seen = []
    with FLServer(ctx, mlp_model[1]) as srv:
        records = simulate(srv, devices, lambda xs, ys: LiteTrainer(mlp_model[0], xs, ys), 3, 6, availability=0.9,
                           drop_rate=0.3, drop_phase="startFLJob",
                           on_iteration=lambda rec, st, dt: seen.append(sorted(st.values())))
        assert srv.job.finished and srv.job.it is None    # nothing per device is left once the job ends
    assert [r["status"] for r in records] == ["succeeded"] * 3
    # updateModel completes at its threshold ⌈6 × 0.5⌉ = 3; a fourth survivor, if slower, gets OutOfTime
    assert [r["updates"] for r in records] == [3] * 3 and [r["participants"] for r in records] == [6] * 3
    assert all(s.count("dropped") == 2 and s.count("done") + s.count("out_of_time") == 4 for s in seen), seen
