"""The server as a process: configured from YAML, checkpointing each iteration, killed mid-iteration and restarted
from its checkpoint without losing the job; TLS when given a certificate; a device process without torch."""
import datetime
import json
import signal
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

from openspore.federated import FLContext, FLServer, load_fl_config
from tests.conftest import REPO, child_env
from tests.federated.test_hostile import W0, join, ones, post, update


def _start(tmp_path, config, extra=()):
    ready = tmp_path / "url.txt"
    if ready.exists():
        ready.unlink()
    proc = subprocess.Popen([sys.executable, "-m", "openspore.federated.server", "--config", str(config),
                             "--ready-file", str(ready), *extra], cwd=REPO, env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while not ready.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"server did not start: {proc.communicate()[0]}")
        time.sleep(0.1)
    return proc, ready.read_text()


def _state(url):
    with urllib.request.urlopen(url + "/state", timeout=30) as r:
        return json.loads(r.read())


def test_yaml_config_checkpoints_and_restart_after_a_crash(tmp_path):
    ckpt = tmp_path / "ckpt"
    config = tmp_path / "fl.yaml"
    config.write_text(f"fl_name: job\nfl_server_port: 0\nstart_fl_job_threshold: 2\nfl_iteration_num: 3\n"
                      f"round:\n  start_fl_job_time_window: 60000\n  update_model_time_window: 60000\n"
                      f"checkpoint_dir: {ckpt}\n")
    assert load_fl_config(str(config)).update_model_time_window == 60000
    np.savez(tmp_path / "w0.npz", **W0)
    proc, url = _start(tmp_path, config, ["--weights", str(tmp_path / "w0.npz")])
    try:
        a, b = join(url, "alice", 10), join(url, "bob", 30)
        post(url, "updateModel", update("alice", a["token"], ones(1)))
        post(url, "updateModel", update("bob", b["token"], ones(3)))
        assert _state(url)["model_iteration"] == 1
        join(url, "carol", 5)                     # iteration 2 under way when the process dies
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (ckpt / "job_iteration_1.npz").exists() and not list(ckpt.glob("*.tmp"))
    metrics = json.loads((ckpt / "metrics.json").read_text())
    assert [m["iteration"] for m in metrics] == [1] and metrics[0]["status"] == "succeeded"

    proc, url = _start(tmp_path, config)           # no --weights: the checkpoint holds the job
    try:
        state = _state(url)
        assert state["iteration"] == 2 and state["model_iteration"] == 1
        reply = post(url, "getModel", {"fl_name": "job", "iteration": 1})[1]
        got = {f["weight_fullname"]: f["data"] for f in reply["feature_map"]}
        assert reply["iteration"] == 1 and set(got) == set(W0)
        a, b = join(url, "alice", 10), join(url, "bob", 10)
        assert a["iteration"] == 2
        post(url, "updateModel", update("alice", a["token"], ones(4), iteration=2))
        post(url, "updateModel", update("bob", b["token"], ones(6), iteration=2))
        assert _state(url)["model_iteration"] == 2
        metrics = json.loads((ckpt / "metrics.json").read_text())
        assert [m["iteration"] for m in metrics] == [1, 2]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _self_signed(tmp_path):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    import ipaddress
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_path), str(key_path)


def test_tls_when_given_a_certificate(tmp_path, mlp_model, digits_parts):
    from openspore.federated.client import FLClient
    from openspore.federated.trainer import LiteTrainer
    cert, key = _self_signed(tmp_path)
    ctx = FLContext(fl_name="tls", fl_server_port=0, enable_ssl=True, server_cert_path=cert, server_key_path=key,
                    fl_iteration_num=1, client_epoch_num=1, client_batch_size=8)
    srv = FLServer(ctx, mlp_model[1]).start()
    try:
        assert srv.url.startswith("https://127.0.0.1:")
        with pytest.raises(Exception, match="CERTIFICATE_VERIFY_FAILED"):   # no trust in the cert: refused
            FLClient(srv.url, "tls", "x", LiteTrainer(mlp_model[0], *digits_parts[0])).start()
        client = FLClient(srv.url, "tls", "d0", LiteTrainer(mlp_model[0], *digits_parts[0]), cafile=cert)
        assert client.run_iteration() == "done"
        assert srv.job.model_iteration == 1
    finally:
        srv.stop()


DEVICE = r"""
import sys
class NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("no torch on this device")
sys.meta_path.insert(0, NoTorch())
import numpy as np
from openspore.federated.client import SyncFLJob
url, model, data = sys.argv[1:4]
z = np.load(data)
job = SyncFLJob(url, "notorch", "phone-1", model, z["x"], z["y"])
print(job.run(), "torch" in sys.modules)
"""


def test_a_device_process_without_torch(tmp_path, mlp_model, digits_parts):
    ctx = FLContext(fl_name="notorch", fl_server_port=0, fl_iteration_num=2, client_epoch_num=1, client_batch_size=8,
                    download_compress_type="QUANT")
    srv = FLServer(ctx, mlp_model[1]).start()
    try:
        np.savez(tmp_path / "d.npz", x=digits_parts[0][0], y=digits_parts[0][1])
        res = subprocess.run([sys.executable, "-c", DEVICE, srv.url, mlp_model[0], str(tmp_path / "d.npz")],
                             cwd=REPO, env=child_env(), capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stderr
        assert res.stdout.strip() == "['done', 'done', 'finished'] False", res.stdout
        assert srv.job.finished and srv.job.model_iteration == 2
    finally:
        srv.stop()


def test_server_cli_refuses_a_missing_or_bad_config_in_one_line(tmp_path):
    bad = tmp_path / "fl.yaml"
    bad.write_text("not_a_key: 3\n")
    for config, expected in ((tmp_path / "absent.yaml", "No such file"), (bad, "unknown key 'not_a_key'")):
        out = subprocess.run([sys.executable, "-m", "openspore.federated.server", "--config", str(config)],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 2 and expected in out.stderr and "Traceback" not in out.stderr
