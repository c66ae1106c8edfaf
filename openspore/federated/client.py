"""The device side: `FLClient` runs iterations of a job against an FLServer; `SyncFLJob` is the
MindSpore-Lite-style loop (`flJobRun`) around it. Imports numpy, the standard library, `cryptography` (PW_ENCRYPT)
and `openspore.lite` — never torch.

One iteration: startFLJob (OutOfTime → wait until next_req_time and try again) → [PW_ENCRYPT: exchangeKeys,
getKeys, shareSecrets, getSecrets] → local training → updateModel → [PW_ENCRYPT: getClientList,
reconstructSecrets] → getModel (polled while SucNotReady).

>>> FLClient.__name__, SyncFLJob.__name__
('FLClient', 'SyncFLJob')
"""
import json
import ssl
import time
import urllib.error
import urllib.request

import numpy as np

from . import compression, privacy
from .wire import (OUT_OF_TIME, SUC_NOT_READY, SUCCEED, decode_feature_map, encode_array, encode_feature_map)

PHASES = ("startFLJob", "exchangeKeys", "shareSecrets", "updateModel", "reconstructSecrets", "getModel")


class FLJobFailed(RuntimeError):
    """A request got an answer the client cannot go on from (RequestError, SystemError, or too many retries)."""

    def __init__(self, msg_type, retcode, reason):
        super().__init__(f"{msg_type}: retcode {retcode}: {reason}")
        self.msg_type, self.retcode, self.reason = msg_type, retcode, reason


class OutOfTime(Exception):
    def __init__(self, reply):
        super().__init__(reply.get("reason", ""))
        self.reply = reply


class FLClient:
    """One device. `trainer` has get_weights/set_weights/train/data_size (trainer.LiteTrainer on a .ms model).
    `url` may be a list: the servers of one job (cluster_server.py); when the one in use cannot be reached the
    device goes on with the next (its token is valid on every server of the job)."""

    def __init__(self, url, fl_name, fl_id, trainer, cafile=None, timeout=60, max_wait_s=120, seed=None,
                 download_compress=True):
        self.urls = [u.rstrip("/") for u in ([url] if isinstance(url, str) else url)]
        if not self.urls:
            raise ValueError("FLClient: give the server URL (or a list of the job's server URLs).")
        self.url = self.urls[0]
        self.fl_name, self.fl_id, self.trainer = fl_name, str(fl_id), trainer
        self.timeout, self.max_wait_s = timeout, max_wait_s
        self.ssl = ssl.create_default_context(cafile=cafile) if self.url.startswith("https") else None
        self.rng = np.random.default_rng(seed)
        self.download_compress = download_compress
        self.last = {}            # what the last iteration did (for simulators and tests)

    # ---- HTTP ------------------------------------------------------------------------------------------
    def post(self, msg_type, msg):
        body = json.dumps(msg, separators=(",", ":")).encode()
        for tried in range(len(self.urls)):
            req = urllib.request.Request(f"{self.url}/{msg_type}", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=self.timeout, context=self.ssl) as r:
                    return json.loads(r.read())
            except urllib.error.HTTPError as e:
                try:
                    return json.loads(e.read())
                except ValueError:
                    return {"retcode": e.code, "reason": f"HTTP {e.code}"}
            except (urllib.error.URLError, ConnectionError) as e:
                if tried == len(self.urls) - 1 or isinstance(getattr(e, "reason", None), ssl.SSLError):
                    raise
                self.url = self.urls[(self.urls.index(self.url) + 1) % len(self.urls)]   # that server is down

    def _call(self, msg_type, msg, poll=True):
        """POST, waiting out SucNotReady (poll) up to max_wait_s; OutOfTime raises OutOfTime."""
        start = time.time()
        while True:
            reply = self.post(msg_type, msg)
            code = reply.get("retcode")
            if code == SUCCEED:
                return reply
            if code == OUT_OF_TIME:
                raise OutOfTime(reply)
            if code == SUC_NOT_READY and poll:
                if time.time() - start > self.max_wait_s:
                    raise FLJobFailed(msg_type, code, f"still not ready after {self.max_wait_s} s")
                _sleep_until(reply.get("next_req_time"))
                continue
            raise FLJobFailed(msg_type, code, reply.get("reason", ""))

    def _ids(self):
        return {"fl_name": self.fl_name, "fl_id": self.fl_id, "iteration": self.iteration, "token": self.token,
                "timestamp": int(time.time() * 1000)}

    # ---- one iteration ---------------------------------------------------------------------------------
    def start(self, max_tries=100):
        """startFLJob until accepted; returns False when the job has finished."""
        for _ in range(max_tries):
            msg = {"fl_name": self.fl_name, "fl_id": self.fl_id, "data_size": int(self.trainer.data_size),
                   "timestamp": int(time.time() * 1000),
                   "download_compress_types": ["QUANT"] if self.download_compress else []}
            try:
                reply = self._call("startFLJob", msg, poll=False)
            except OutOfTime as e:
                if e.reply.get("job_finished"):
                    return False
                _sleep_until(e.reply.get("next_req_time"), cap=5.0)
                continue
            self.iteration, self.token, self.plan = reply["iteration"], reply["token"], reply["fl_plan_config"]
            self.upload_compress = reply.get("upload_compress_type", "NO_COMPRESS")
            self.sparse_rate = reply.get("upload_sparse_rate", 1.0)
            self.global_weights = self._weights_from(reply)
            self.download_type = reply.get("download_compress_type", "NO_COMPRESS")
            return True
        raise FLJobFailed("startFLJob", OUT_OF_TIME, f"not accepted after {max_tries} tries")

    def _weights_from(self, reply):
        if reply.get("download_compress_type") == "QUANT":
            return compression.dequantize_map(reply["compress_feature_map"], self.trainer.get_weights())
        return decode_feature_map(reply["feature_map"])

    def run_iteration(self, stop_after=None):
        """One iteration. `stop_after` (a name in PHASES) makes the device vanish after that step (simulating
        a phone going offline). Returns 'done', 'finished' (the job is over), 'dropped' or 'out_of_time'."""
        if not self.start():
            return "finished"
        if stop_after == "startFLJob":
            return "dropped"
        try:
            encrypt = self.plan["cipher"]["encrypt_type"]
            if encrypt == "PW_ENCRYPT":
                from .pw_client import PWSession
                pw = PWSession(self)
                pw.exchange_keys()
                if stop_after == "exchangeKeys":
                    return "dropped"
                pw.share_secrets()
                if stop_after == "shareSecrets":
                    return "dropped"
            self.trainer.set_weights(self.global_weights)
            if hasattr(self.trainer, "reset_optimizer"):
                self.trainer.reset_optimizer()
            agg = self.plan["aggregation"]
            prox = agg.get("fedprox_mu", 0.0) if agg.get("type") == "FedProx" else 0.0
            loss = self.trainer.train(self.plan["epochs"], self.plan["lr"], prox, self.global_weights)
            local = self.trainer.get_weights()
            self.last = {"iteration": self.iteration, "loss": loss, "weights": local,
                         "data_size": self.trainer.data_size}
            msg = self._ids()
            if encrypt == "PW_ENCRYPT":
                msg["masked_data"] = encode_array(pw.masked(local))
            elif encrypt == "DP_ENCRYPT":
                dp = self.plan["cipher"]["dp_params"]
                noisy = privacy.dp_perturb(local, self.global_weights, dp["dp_norm_clip"], dp["dp_delta"],
                                           dp["dp_eps"], self.rng)
                self.last["uploaded"] = noisy
                msg["feature_map"] = encode_feature_map(noisy)
            elif encrypt == "SIGNDS":
                msg.update(privacy.signds_encode(local, self.global_weights, _DS(self.plan), self.rng))
            elif self.upload_compress == "DIFF_SPARSE_QUANT":
                seed = compression.sparse_seed(self.fl_name, self.iteration, self.fl_id)
                msg["upload_compress_type"] = "DIFF_SPARSE_QUANT"
                msg["download_compress_type"] = self.download_type
                msg["compress_feature_map"] = compression.encode_diff_sparse(local, self.global_weights, seed,
                                                                             self.sparse_rate)
            else:
                msg["feature_map"] = encode_feature_map(local)
            self._call("updateModel", msg)
            if stop_after == "updateModel":
                return "dropped"
            if encrypt == "PW_ENCRYPT":
                pw.reconstruct()
                if stop_after == "reconstructSecrets":
                    return "dropped"
            self.get_model()
            return "done"
        except OutOfTime:
            return "out_of_time"

    def get_model(self):
        msg = {"fl_name": self.fl_name, "iteration": self.iteration, "timestamp": int(time.time() * 1000),
               "download_compress_types": ["QUANT"] if self.download_compress else []}
        reply = self._call("getModel", msg)
        self.model_iteration = reply["iteration"]
        weights = self._weights_from(reply)
        self.trainer.set_weights(weights)
        return weights


class _DS:
    def __init__(self, plan):
        for k, v in plan["cipher"]["ds_params"].items():
            setattr(self, k, v)


class SyncFLJob:
    """The device loop: `SyncFLJob(url, fl_name, fl_id, model_path, x, y).run()` takes part in iterations until the
    job finishes (or `iterations` have been done), retrying after OutOfTime. `flJobRun` is the Java name."""

    def __init__(self, url, fl_name, fl_id, model_path, x, y, iterations=None, cafile=None, seed=0):
        from .trainer import LiteTrainer
        self.client = FLClient(url, fl_name, fl_id, LiteTrainer(model_path, x, y, seed=seed), cafile=cafile,
                               seed=seed)
        self.iterations = iterations
        self.results = []

    def run(self):
        while self.iterations is None or sum(r == "done" for r in self.results) < self.iterations:
            status = self.client.run_iteration()
            self.results.append(status)
            if status == "finished":
                break
        return self.results

    flJobRun = run

    def get_model(self):
        return self.client.trainer.get_weights()


def _sleep_until(next_req_time_ms, cap=1.0):
    if not isinstance(next_req_time_ms, (int, float)) or next_req_time_ms < 0:
        time.sleep(0.05)
        return
    time.sleep(min(cap, max(0.01, next_req_time_ms / 1000 - time.time())))
