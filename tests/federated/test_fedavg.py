"""FedAvg over a real server: 10 clients training on openspore.lite give, over 3 iterations, the weighted average
computed directly (plain ≤ 1e-6; PW_ENCRYPT within fixed-point precision ≤ 1e-5); PW_ENCRYPT survives 30% of the
clients dropping after shareSecrets; too few survivors fail the iteration cleanly and the next one runs."""
import numpy as np
import pytest

from openspore.federated import FLContext, FLServer
from openspore.federated.client import FLClient
from openspore.federated.trainer import LiteTrainer
from tests.federated.conftest import run_clients


def _ctx(**kw):
    base = dict(fl_name="digits", fl_server_port=0, start_fl_job_threshold=10, start_fl_job_time_window=60000,
                update_model_time_window=60000, cipher_time_window=60000, fl_iteration_num=3, client_epoch_num=2,
                client_batch_size=8, client_learning_rate=0.1)
    base.update(kw)
    return FLContext(**base)


def _clients(url, mlp_model, parts):
    return [FLClient(url, "digits", f"dev{k:02d}", LiteTrainer(mlp_model[0], x, y), max_wait_s=120)
            for k, (x, y) in enumerate(parts)]


def _direct_average(mlp_model, parts, start, epochs, lr, who):
    """The same local training done here, client by client from `start`, and the weighted average."""
    total, acc = 0, {k: np.zeros(v.shape, np.float64) for k, v in start.items()}
    for k in who:
        x, y = parts[k]
        t = LiteTrainer(mlp_model[0], x, y)
        t.set_weights(start)
        t.train(epochs, lr)
        for name, v in t.get_weights().items():
            acc[name] += v.astype(np.float64) * len(y)
        total += len(y)
    return {k: (v / total).astype(np.float32) for k, v in acc.items()}


@pytest.mark.parametrize("encrypt_type,tol", [("NOT_ENCRYPT", 1e-6), ("PW_ENCRYPT", 1e-5)])
def test_three_iterations_equal_the_direct_weighted_average(mlp_model, digits_parts, encrypt_type, tol):
    srv = FLServer(_ctx(encrypt_type=encrypt_type), mlp_model[1]).start()
    try:
        clients = _clients(srv.url, mlp_model, digits_parts)
        expected = mlp_model[1]
        for it in range(1, 4):
            statuses = run_clients(clients)
            assert [s[0] for s in statuses] == ["done"] * 10, statuses
            expected = _direct_average(mlp_model, digits_parts, expected, 2, 0.1, range(10))
            got = srv.job.weights
            assert srv.job.model_iteration == it
            for name in expected:
                np.testing.assert_allclose(got[name], expected[name], rtol=0, atol=tol, err_msg=f"{name} iter {it}")
            for c in clients:   # every client ends the iteration holding the new global model
                np.testing.assert_array_equal(c.trainer.get_weights()["fc2.bias"], got["fc2.bias"])
        assert srv.job.finished
        assert [r["status"] for r in srv.job.finished_iterations] == ["succeeded"] * 3
    finally:
        srv.stop()


def test_pw_encrypt_survives_30_percent_dropping_after_share_secrets(mlp_model, digits_parts):
    ctx = _ctx(encrypt_type="PW_ENCRYPT", update_model_ratio=0.7, update_model_time_window=3000, fl_iteration_num=1)
    srv = FLServer(ctx, mlp_model[1]).start()
    try:
        clients = _clients(srv.url, mlp_model, digits_parts)
        dropped = {"dev01", "dev04", "dev08"}
        statuses = run_clients(clients, stop_after={d: "shareSecrets" for d in dropped})
        survivors = [k for k, c in enumerate(clients) if c.fl_id not in dropped]
        assert all(statuses[k] == ["done"] for k in survivors), statuses
        record = srv.job.finished_iterations[-1]
        assert record["status"] == "succeeded" and record["updates"] == 7
        expected = _direct_average(mlp_model, digits_parts, mlp_model[1], 2, 0.1, survivors)
        for name in expected:
            np.testing.assert_allclose(srv.job.weights[name], expected[name], rtol=0, atol=1e-5)
    finally:
        srv.stop()


def test_too_few_survivors_fail_the_iteration_and_the_next_one_runs(mlp_model, digits_parts):
    ctx = _ctx(encrypt_type="PW_ENCRYPT", start_fl_job_threshold=5, update_model_ratio=1.0,
               update_model_time_window=1500, fl_iteration_num=2, reconstruct_secrets_threshold=3)
    srv = FLServer(ctx, mlp_model[1]).start()
    try:
        clients = _clients(srv.url, mlp_model, digits_parts[:5])
        # iteration 1: 3 of 5 vanish after shareSecrets; 2 survivors < t + 1 = 4
        statuses = run_clients(clients, stop_after={f"dev0{k}": "shareSecrets" for k in (0, 1, 2)})
        first = srv.job.finished_iterations[0]
        assert first["status"] == "failed" and "updateModel" in first["reason"], first
        assert [s[0] for s in statuses[3:]] == ["out_of_time"] * 2, statuses
        np.testing.assert_array_equal(srv.job.weights["fc1.weight"], mlp_model[1]["fc1.weight"])  # unchanged
        # iteration 2: everyone stays
        statuses = run_clients(clients)
        assert [s[0] for s in statuses] == ["done"] * 5, statuses
        assert [r["status"] for r in srv.job.finished_iterations] == ["failed", "succeeded"]
        expected = _direct_average(mlp_model, digits_parts, mlp_model[1], 2, 0.1, range(5))
        np.testing.assert_allclose(srv.job.weights["fc1.weight"], expected["fc1.weight"], rtol=0, atol=1e-5)
    finally:
        srv.stop()
