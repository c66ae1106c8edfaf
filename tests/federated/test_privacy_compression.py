"""DP_ENCRYPT, SIGNDS, upload/download compression and FedAdam, each checked against the same computation done
directly on what the clients uploaded; the context's checks; the accountant."""
import numpy as np
import pytest

from openspore.federated import FLContext, FLServer, get_fl_context, reset_fl_context, set_fl_context
from openspore.federated import compression, privacy
from openspore.federated.client import FLClient
from openspore.federated.trainer import LiteTrainer
from tests.federated.conftest import run_clients


def _run(mlp_model, parts, iterations=1, n=4, **kw):
    base = dict(fl_name="p", fl_server_port=0, start_fl_job_threshold=n, start_fl_job_time_window=60000,
                update_model_time_window=60000, fl_iteration_num=iterations, client_epoch_num=1, client_batch_size=8,
                client_learning_rate=0.1)
    base.update(kw)
    srv = FLServer(FLContext(**base), mlp_model[1]).start()
    clients = [FLClient(srv.url, "p", f"c{k}", LiteTrainer(mlp_model[0], *parts[k]), seed=k) for k in range(n)]
    return srv, clients


def _weighted(maps, sizes):
    total = sum(sizes)
    return {k: sum(m[k].astype(np.float64) * s for m, s in zip(maps, sizes)) / total for k in maps[0]}


def test_dp_encrypt_averages_the_noised_uploads_and_reports_epsilon(mlp_model, digits_parts):
    srv, clients = _run(mlp_model, digits_parts, iterations=2, encrypt_type="DP_ENCRYPT", dp_eps=10.0,
                        dp_delta=0.01, dp_norm_clip=0.5)
    try:
        start = {k: v.copy() for k, v in srv.job.weights.items()}
        run_clients(clients)
        expected = _weighted([c.last["uploaded"] for c in clients], [c.last["data_size"] for c in clients])
        for k in expected:
            np.testing.assert_allclose(srv.job.weights[k], expected[k], rtol=0, atol=1e-6)
        for c in clients:   # the upload is the clipped update plus noise, not the local weights
            assert not np.allclose(c.last["uploaded"]["fc1.weight"], c.last["weights"]["fc1.weight"])
        sigma = privacy.dp_sigma(0.5, 0.01, 10.0)
        noise = np.concatenate([(clients[0].last["uploaded"][k] - start[k]).ravel() for k in start])
        assert abs(noise.std() - sigma) < 0.2 * sigma    # dominated by the noise of the calibrated σ
        run_clients(clients)
        first, second = srv.job.finished_iterations
        assert first["dp_eps_round"] == pytest.approx(second["dp_eps_round"])
        assert first["dp_eps_round"] > 0
        assert second["dp_eps_total"] > first["dp_eps_total"] > 0
    finally:
        srv.stop()


def test_accountant_composes_rdp():
    one = privacy.rdp_epsilon(1, 1.0, 1e-5)
    many = privacy.rdp_epsilon(100, 1.0, 1e-5)
    assert one < many < 100 * one            # better than adding up the rounds
    assert privacy.rdp_epsilon(10, 4.0, 1e-5) < privacy.rdp_epsilon(10, 1.0, 1e-5)   # more noise, less ε


def test_signds_moves_only_the_voted_dimensions(mlp_model, digits_parts):
    srv, clients = _run(mlp_model, digits_parts, encrypt_type="SIGNDS", sign_k=0.05, sign_global_lr=0.5)
    try:
        start = np.concatenate([srv.job.weights[k].ravel() for k in sorted(srv.job.weights)]).astype(np.float64)
        run_clients(clients)
        after = np.concatenate([srv.job.weights[k].ravel() for k in sorted(srv.job.weights)]).astype(np.float64)
        moved = np.flatnonzero(np.abs(after - start) > 1e-7)
        assert 0 < len(moved) <= 4 * int(round(0.05 * start.size))
        steps = (after - start)[moved] / (0.5 / 4)      # sign_global_lr × (sum of ±1 votes) / 4 uploads
        np.testing.assert_allclose(steps, np.round(steps), atol=1e-4)
    finally:
        srv.stop()


def test_diff_sparse_quant_upload_and_quant_download(mlp_model, digits_parts):
    srv, clients = _run(mlp_model, digits_parts, upload_compress_type="DIFF_SPARSE_QUANT", upload_sparse_rate=0.4,
                        download_compress_type="QUANT")
    try:
        start = {k: v.copy() for k, v in srv.job.weights.items()}
        run_clients(clients)
        rebuilt = []
        for c in clients:
            seed = compression.sparse_seed("p", 1, c.fl_id)
            sent = compression.encode_diff_sparse(c.last["weights"], c.global_weights, seed, 0.4)
            rebuilt.append(compression.decode_diff_sparse(sent, c.global_weights, seed, 0.4, "t"))
            assert sum(s["compress_data"]["shape"][0] for s in sent) < 0.5 * sum(v.size for v in start.values())
            for k in start:   # the download was quantised to 8 bits
                assert np.abs(c.global_weights[k] - start[k]).max() <= (start[k].max() - start[k].min()) / 255
        expected = _weighted(rebuilt, [c.last["data_size"] for c in clients])
        for k in expected:
            np.testing.assert_allclose(srv.job.weights[k], expected[k], rtol=0, atol=1e-6)
        got = clients[0].trainer.get_weights()["fc1.weight"]
        assert np.abs(got - srv.job.weights["fc1.weight"]).max() <= np.ptp(srv.job.weights["fc1.weight"]) / 255 + 1e-6
    finally:
        srv.stop()


def test_fedadam_steps_towards_the_average(mlp_model, digits_parts):
    srv, clients = _run(mlp_model, digits_parts, aggregation_type="FedAdam", fedadam_lr=0.01)
    try:
        start = {k: v.copy() for k, v in srv.job.weights.items()}
        run_clients(clients)
        avg = _weighted([c.last["weights"] for c in clients], [c.last["data_size"] for c in clients])
        for k in start:
            d = avg[k] - start[k]
            m, v = 0.1 * d, 0.01 * d * d
            np.testing.assert_allclose(srv.job.weights[k], start[k] + 0.01 * m / (np.sqrt(v) + 1e-3), atol=1e-6)
    finally:
        srv.stop()


def test_set_fl_context_checks_keys_and_values():
    try:
        set_fl_context(enable_fl=True, start_fl_job_threshold=8, update_model_ratio=0.5, encrypt_type="PW_ENCRYPT")
        assert get_fl_context("start_fl_job_threshold") == 8 and get_fl_context("fl_server_port") == 6668
        with pytest.raises(ValueError, match="unknown key 'no_such_key'"):
            set_fl_context(no_such_key=1)
        with pytest.raises(ValueError, match="'update_model_ratio' must be in \\(0, 1\\]"):
            set_fl_context(update_model_ratio=1.5)
        with pytest.raises(ValueError, match="encrypt_type"):
            set_fl_context(encrypt_type="ROT13")
        with pytest.raises(TypeError, match="'start_fl_job_threshold' must be int"):
            set_fl_context(start_fl_job_threshold="8")
        ctx = FLContext(start_fl_job_threshold=10, update_model_ratio=0.7, share_secrets_ratio=1.0)
        assert ctx.update_model_threshold == 7 and ctx.exchange_keys_threshold == 10 and ctx.reconstruct_threshold == 6
    finally:
        reset_fl_context()
