"""The job: a state machine over iterations and their rounds, with no HTTP in it (server.py serves it).

One iteration (sync federated learning) is a sequence of rounds; each round has a time window and a threshold:

    NOT_ENCRYPT/DP/SIGNDS: startFLJob → updateModel → (getModel)
    PW_ENCRYPT:            startFLJob → exchangeKeys → shareSecrets → updateModel → reconstructSecrets → (getModel)
    (getKeys, getSecrets, getClientList answer SucNotReady until the round they read from has closed)

A round closes early once everyone expected has answered (startFLJob: once `start_fl_job_threshold` clients are
in; updateModel: once ⌈start_fl_job_threshold × update_model_ratio⌉ have uploaded, as in MindSpore — later uploads
get OutOfTime); when its window ends it goes on with whoever answered if that meets the round's threshold, else the iteration
fails and the next one starts with the same model. State kept per device lives only inside the current
iteration and is dropped when it ends: devices are stateless, and the server's memory does not grow with the
number of devices that ever took part.

Every handler takes the decoded JSON message and returns (retcode, reply); a refused request changes nothing.
"""
import hashlib
import hmac
import secrets
import time

import numpy as np

from . import compression, privacy
from . import secagg
from .aggregation import WeightedSum, make_aggregator
from .wire import (OUT_OF_TIME, REQUEST_ERROR, SUC_NOT_READY, SUCCEED, WireError, decode_array,
                   decode_feature_map, encode_array, encode_feature_map, field)

POLL_MS = 100
MAX_DATA_SIZE = 1 << 30
MAX_FL_ID = 128


class Refused(Exception):
    def __init__(self, retcode, reason, **extra):
        super().__init__(reason)
        self.retcode, self.reason, self.extra = retcode, reason, extra


class Iteration:
    """Everything the server holds about the current iteration; dropped as a whole when it ends."""

    def __init__(self, number, now, ctx):
        self.number = number
        self.started = now
        self.phase = "startFLJob"
        self.deadline = now + ctx.start_fl_job_time_window / 1000
        self.participants = {}          # fl_id → data size (accepted by startFLJob)
        self.keys = {}                  # PW: fl_id → {c_pk, s_pk} (exchangeKeys)
        self.sharers = {}               # PW: fl_id → [{fl_id (receiver), share, index}] (shareSecrets)
        self.updated = {}               # fl_id → data size (updateModel)
        self.reconstructions = {}       # PW: fl_id → [{owner, share}]
        self.masked_sum = None          # PW: uint64 running sum of masked uploads
        self.sum = None                 # WeightedSum
        self.signs = None               # SIGNDS: votes per dimension
        self.closed = set()             # rounds that have closed


class FLJob:
    def __init__(self, ctx, weights, iteration=1, aggregator_state=None, clock=time.time):
        self.ctx = ctx
        self.clock = clock
        self.weights = {k: np.asarray(v, np.float32) for k, v in weights.items()}
        self.names = sorted(self.weights)
        self.size = sum(v.size for v in self.weights.values())
        self.secret = (ctx.job_secret or secrets.token_hex(32)).encode()
        self.aggregator = make_aggregator(ctx)
        if aggregator_state:
            self.aggregator.load_state(aggregator_state)
        self.model_iteration = iteration - 1      # the iteration that produced the current model
        self.accountant = privacy.GaussianAccountant(ctx) if ctx.encrypt_type == "DP_ENCRYPT" else None
        self.finished_iterations = []             # metrics records, in order (server.py persists them)
        self.listeners = []                       # callables(record) run when an iteration ends
        self.it = Iteration(iteration, self.clock(), ctx) if iteration <= ctx.fl_iteration_num else None

    # ---- the iteration's life ------------------------------------------------------------------------
    @property
    def finished(self):
        return self.it is None

    def tick(self):
        """Close the rounds whose windows have ended (called on every request and by a timer)."""
        it, now = self.it, self.clock()
        if it is None or now < it.deadline:
            return
        expected, threshold, done = self._round_rule(it)
        if it.phase == "startFLJob" and done == 0:
            # nobody came: an idle server keeps waiting instead of burning its iteration budget
            it.started, it.deadline = now, now + self.ctx.start_fl_job_time_window / 1000
            return
        if done < threshold:
            self._fail(f"round {it.phase} ended with {done} of the {threshold} clients it needs")
        else:
            self._close_round()

    def _round_rule(self, it):
        """(who is expected, the threshold, how many have answered) for the open round."""
        c = self.ctx
        if it.phase == "startFLJob":
            return c.start_fl_job_threshold, c.start_fl_job_threshold, len(it.participants)
        if it.phase == "exchangeKeys":
            return len(it.participants), min(c.exchange_keys_threshold, len(it.participants)), len(it.keys)
        if it.phase == "shareSecrets":
            return len(it.keys), max(self._t() + 1, min(c.exchange_keys_threshold, len(it.keys))), len(it.sharers)
        if it.phase == "updateModel":
            pool = it.sharers if self._pw else it.participants
            need = min(c.update_model_threshold, len(pool))
            if self._pw:
                need = max(need, self._t() + 1)  # each secret needs t shares from the *other* survivors
            return need, need, len(it.updated)   # MindSpore's rule: the round completes at its threshold
        if it.phase == "reconstructSecrets":
            return len(it.updated), self._t() + 1, len(it.reconstructions)
        raise AssertionError(it.phase)

    @property
    def _pw(self):
        return self.ctx.encrypt_type == "PW_ENCRYPT"

    def _t(self):
        return self.ctx.reconstruct_threshold

    def _maybe_close(self):
        it = self.it
        expected, _, done = self._round_rule(it)
        if done >= expected:
            self._close_round()

    def _close_round(self):
        it, c, now = self.it, self.ctx, self.clock()
        it.closed.add(it.phase)
        order = (["startFLJob", "exchangeKeys", "shareSecrets", "updateModel", "reconstructSecrets"] if self._pw
                 else ["startFLJob", "updateModel"])
        nxt = order.index(it.phase) + 1
        if nxt == len(order):
            try:
                self._aggregate()
            except Refused as e:
                self._fail(e.reason)
            return
        it.phase = order[nxt]
        window = c.update_model_time_window if it.phase == "updateModel" and not self._pw else c.cipher_time_window
        if it.phase == "updateModel" and self._pw:
            window = max(c.update_model_time_window, 1)
        it.deadline = now + window / 1000
        if it.phase == "reconstructSecrets" and len(it.updated) < self._t() + 1:
            self._fail(f"{len(it.updated)} clients uploaded, fewer than the {self._t() + 1} needed to unmask")

    def _end(self, status, reason=""):
        it = self.it
        record = {"iteration": it.number, "status": status, "reason": reason,
                  "participants": len(it.participants), "updates": len(it.updated),
                  "data_size": int(sum(it.updated.values())), "started_at": it.started,
                  "duration_s": round(self.clock() - it.started, 6), "model_iteration": self.model_iteration}
        if self.accountant is not None:
            record.update(self.accountant.report())
        self.finished_iterations.append(record)
        nxt = it.number + 1
        self.it = Iteration(nxt, self.clock(), self.ctx) if nxt <= self.ctx.fl_iteration_num else None
        for listener in self.listeners:
            listener(record)

    def _fail(self, reason):
        self._end("failed", reason)

    def _aggregate(self):
        it = self.it
        if self._pw:
            sums = self._unmask()
            total = sum(it.updated.values())
            agg = WeightedSum(self.weights)
            agg.add_presummed(sums, total, len(it.updated))
            average = agg.average()
        elif self.ctx.encrypt_type == "SIGNDS":
            average = privacy.signds_apply(self.weights, it.signs, len(it.updated), self.ctx)
        else:
            average = it.sum.average()
        self.weights = self.aggregator.finish(self.weights, average)
        self.model_iteration = it.number
        if self.accountant is not None:
            self.accountant.step()
        self._end("succeeded")

    # ---- request plumbing ----------------------------------------------------------------------------
    def handle(self, msg_type, msg):
        """Dispatch one decoded request; returns (retcode, reply)."""
        handler = getattr(self, "on_" + msg_type, None)
        if handler is None:
            return REQUEST_ERROR, {"reason": f"unknown message type {msg_type!r}"}
        self.tick()
        try:
            reply = handler(msg)
            return reply.pop("retcode", SUCCEED), reply
        except Refused as e:
            return e.retcode, {"reason": e.reason, **e.extra}
        except WireError as e:
            return REQUEST_ERROR, {"reason": str(e)}

    def _not_closed(self, phase):
        """The reply to a device polling for a phase's results before the phase closed: ask again shortly."""
        return {"retcode": SUC_NOT_READY, "reason": f"{phase} has not closed", "next_req_time": self._now_ms() + POLL_MS}

    def _now_ms(self):
        return int(self.clock() * 1000)

    def _next_iteration_ms(self):
        """When a client turned away now should come back: the end of the current iteration's window."""
        it = self.it
        return int(it.deadline * 1000) if it is not None else -1

    def _token(self, fl_id, number):
        msg = f"{self.ctx.fl_name}|{number}|{fl_id}".encode()
        return hmac.new(self.secret, msg, hashlib.sha256).hexdigest()

    def _current(self, msg, where, phase=None):
        """The iteration a request names must be the current one, and its fl_id must carry the token the
        server gave it at startFLJob (so nobody speaks for another client, nor joins without startFLJob)."""
        if self.it is None:
            raise Refused(OUT_OF_TIME, "the job has finished all its iterations", next_req_time=-1, job_finished=True)
        fl_id = field(msg, "fl_id", str, where)
        number = field(msg, "iteration", int, where)
        if number < self.it.number:
            raise Refused(OUT_OF_TIME, f"{where}: iteration {number} has ended; the current iteration is "
                          f"{self.it.number}, start again with startFLJob", next_req_time=self._now_ms(),
                          iteration=self.it.number)
        if number > self.it.number:
            raise Refused(REQUEST_ERROR, f"{where}: iteration {number} is ahead of the current iteration "
                          f"{self.it.number}")
        token = field(msg, "token", str, where)
        if fl_id not in self.it.participants or not hmac.compare_digest(token, self._token(fl_id, number)):
            raise Refused(REQUEST_ERROR, f"{where}: fl_id {fl_id!r} is not enrolled in iteration {number} "
                          "(no startFLJob accepted it, or its token does not match)")
        if phase is not None and self.it.phase != phase:
            if phase in self.it.closed:
                raise Refused(OUT_OF_TIME, f"{where}: round {phase} has closed (now {self.it.phase})",
                              next_req_time=self._next_iteration_ms())
            raise Refused(SUC_NOT_READY, f"{where}: round {phase} has not opened yet (now {self.it.phase})",
                          next_req_time=self._now_ms() + POLL_MS)
        return fl_id

    # ---- startFLJob / updateModel / getModel ---------------------------------------------------------
    def on_startFLJob(self, msg):
        where = "startFLJob"
        fl_name = field(msg, "fl_name", str, where)
        if fl_name != self.ctx.fl_name:
            raise Refused(REQUEST_ERROR, f"{where}: fl_name {fl_name!r} is not this job ({self.ctx.fl_name!r})")
        fl_id = field(msg, "fl_id", str, where)
        if not 0 < len(fl_id) <= MAX_FL_ID:
            raise Refused(REQUEST_ERROR, f"{where}: fl_id must be 1..{MAX_FL_ID} characters")
        data_size = field(msg, "data_size", int, where)
        if not 0 < data_size <= MAX_DATA_SIZE:
            raise Refused(REQUEST_ERROR, f"{where}: data_size must be in 1..{MAX_DATA_SIZE}, got {data_size}")
        if self.it is None:
            raise Refused(OUT_OF_TIME, "the job has finished all its iterations", next_req_time=-1, job_finished=True)
        it = self.it
        if fl_id in it.participants:
            raise Refused(REQUEST_ERROR, f"{where}: fl_id {fl_id!r} has already joined iteration {it.number}")
        if it.phase != "startFLJob" or len(it.participants) >= self.ctx.start_fl_job_threshold:
            raise Refused(OUT_OF_TIME, "Current amount for startFLJob has reached the threshold. Please startFLJob "
                          "later.", next_req_time=self._next_iteration_ms(), iteration=it.number)
        it.participants[fl_id] = data_size
        reply = {"iteration": it.number, "is_selected": True, "token": self._token(fl_id, it.number),
                 "fl_plan_config": self.plan(), "timestamp": self._now_ms(),
                 "upload_compress_type": self.ctx.upload_compress_type,
                 "upload_sparse_rate": self.ctx.upload_sparse_rate}
        reply.update(self._model_payload(msg))
        self._maybe_close()
        return reply

    def plan(self):
        c = self.ctx
        return {"server_mode": c.server_mode, "fl_name": c.fl_name, "iterations": c.fl_iteration_num,
                "epochs": c.client_epoch_num, "mini_batch": c.client_batch_size, "lr": c.client_learning_rate,
                "aggregation": {"type": c.aggregation_type, "fedprox_mu": c.fedprox_mu},
                "cipher": {"encrypt_type": c.encrypt_type, "pw_params": {"t": self._t()},
                           "dp_params": {"dp_eps": c.dp_eps, "dp_delta": c.dp_delta, "dp_norm_clip": c.dp_norm_clip},
                           "ds_params": {"sign_k": c.sign_k, "sign_eps": c.sign_eps, "sign_thr_ratio":
                                         c.sign_thr_ratio, "sign_global_lr": c.sign_global_lr,
                                         "sign_dim_out": c.sign_dim_out}}}

    def _model_payload(self, msg):
        """The global model as a reply field, encoded once per model version (every device of an iteration gets
        the same bytes)."""
        wanted = msg.get("download_compress_types", [])
        quant = self.ctx.download_compress_type == "QUANT" and isinstance(wanted, list) and "QUANT" in wanted
        key = (self.model_iteration, quant)
        cache = getattr(self, "_payload_cache", {})
        if key not in cache:
            cache = {key: {"download_compress_type": "QUANT", "compress_feature_map":
                           compression.quantize_map(self.weights)} if quant else
                     {"download_compress_type": "NO_COMPRESS", "feature_map": encode_feature_map(self.weights)}}
            cache.update({k: v for k, v in getattr(self, "_payload_cache", {}).items() if k[0] == key[0]})
            self._payload_cache = cache
        return dict(cache[key])

    def _checked_weights(self, weights, where):
        if set(weights) != set(self.weights):
            missing, extra = sorted(set(self.weights) - set(weights)), sorted(set(weights) - set(self.weights))
            raise Refused(REQUEST_ERROR, f"{where}: the weights do not match the model (missing {missing[:5]}, "
                          f"unknown {extra[:5]})")
        for k, v in weights.items():
            want = self.weights[k]
            if v.shape != want.shape or v.dtype != want.dtype:
                raise Refused(REQUEST_ERROR, f"{where}: weight {k!r} is {v.dtype}{list(v.shape)}, the model's is "
                              f"{want.dtype}{list(want.shape)}")
            if not np.all(np.isfinite(v)):
                raise Refused(REQUEST_ERROR, f"{where}: weight {k!r} holds NaN or infinity")
        return weights

    def on_updateModel(self, msg):
        where = "updateModel"
        fl_id = self._current(msg, where, "updateModel")
        it = self.it
        if fl_id in it.updated:
            raise Refused(REQUEST_ERROR, f"{where}: fl_id {fl_id!r} has already uploaded in iteration {it.number} "
                          "(a replayed update is refused)")
        data_size = it.participants[fl_id]
        if self._pw:
            if fl_id not in it.sharers:
                raise Refused(REQUEST_ERROR, f"{where}: fl_id {fl_id!r} took no part in shareSecrets")
            masked = decode_array(msg.get("masked_data"), f"{where}.masked_data")
            if masked.dtype != np.uint64 or masked.shape != (self.size,):
                raise Refused(REQUEST_ERROR, f"{where}: masked_data must be uint64[{self.size}], got "
                              f"{masked.dtype}{list(masked.shape)}")
            it.masked_sum = masked.copy() if it.masked_sum is None else it.masked_sum + masked
        elif self.ctx.encrypt_type == "SIGNDS":
            votes = privacy.signds_decode(msg, self.size, where)
            it.signs = votes if it.signs is None else it.signs + votes
        else:
            if msg.get("upload_compress_type", "NO_COMPRESS") == "DIFF_SPARSE_QUANT":
                if self.ctx.upload_compress_type != "DIFF_SPARSE_QUANT":
                    raise Refused(REQUEST_ERROR, f"{where}: this job does not take DIFF_SPARSE_QUANT uploads")
                # the difference is to the model as the client received it (8-bit under a QUANT download)
                base = self.weights
                if msg.get("download_compress_type") == "QUANT" and self.ctx.download_compress_type == "QUANT":
                    base = self._quantized_view()
                weights = compression.decode_diff_sparse(msg.get("compress_feature_map"), base,
                                                         self._sparse_seed(fl_id), self.ctx.upload_sparse_rate, where)
            else:
                weights = decode_feature_map(msg.get("feature_map"), f"{where}.feature_map")
            weights = self._checked_weights(weights, where)
            if it.sum is None:
                it.sum = WeightedSum(self.weights)
            it.sum.add(weights, data_size)
        it.updated[fl_id] = data_size
        self._maybe_close()
        return {"timestamp": self._now_ms()}

    def _quantized_view(self):
        if getattr(self, "_qview", (None,))[0] != self.model_iteration:
            q = compression.quantize_map(self.weights)
            self._qview = (self.model_iteration, compression.dequantize_map(q, self.weights))
        return self._qview[1]

    def _sparse_seed(self, fl_id):
        return compression.sparse_seed(self.ctx.fl_name, self.it.number, fl_id)

    def on_getModel(self, msg):
        where = "getModel"
        number = field(msg, "iteration", int, where)
        if self.it is not None and number >= self.it.number:
            return {"retcode": SUC_NOT_READY, "reason": f"iteration {number} has not finished",
                    "next_req_time": self._now_ms() + POLL_MS, "iteration": self.it.number}
        reply = {"iteration": self.model_iteration, "timestamp": self._now_ms(),
                 "next_iteration": None if self.it is None else self.it.number}
        reply.update(self._model_payload(msg))
        return reply

    # ---- PW_ENCRYPT rounds ---------------------------------------------------------------------------
    def _need_pw(self, where):
        if not self._pw:
            raise Refused(REQUEST_ERROR, f"{where}: this job's encrypt_type is {self.ctx.encrypt_type}, not PW_ENCRYPT")

    def on_exchangeKeys(self, msg):
        where = "exchangeKeys"
        self._need_pw(where)
        fl_id = self._current(msg, where, "exchangeKeys")
        if fl_id in self.it.keys:
            raise Refused(REQUEST_ERROR, f"{where}: fl_id {fl_id!r} has already sent its keys")
        keys = {}
        for name in ("c_pk", "s_pk"):
            raw = decode_array(msg.get(name), f"{where}.{name}")
            if raw.dtype != np.uint8 or raw.shape != (32,):
                raise Refused(REQUEST_ERROR, f"{where}: {name} must be 32 bytes (an X25519 public key)")
            keys[name] = encode_array(raw)   # as the device sent it (a cluster server sends it decoded)
        self.it.keys[fl_id] = keys
        self._maybe_close()
        return {"timestamp": self._now_ms()}

    def on_getKeys(self, msg):
        where = "getKeys"
        self._need_pw(where)
        self._current(msg, where)
        if "exchangeKeys" not in self.it.closed:
            return self._not_closed("exchangeKeys")
        return {"remote_publickeys": [{"fl_id": k, **v} for k, v in sorted(self.it.keys.items())],
                "threshold": self._t()}

    def on_shareSecrets(self, msg):
        where = "shareSecrets"
        self._need_pw(where)
        fl_id = self._current(msg, where, "shareSecrets")
        it = self.it
        if fl_id not in it.keys:
            raise Refused(REQUEST_ERROR, f"{where}: fl_id {fl_id!r} sent no keys in exchangeKeys")
        if fl_id in it.sharers:
            raise Refused(REQUEST_ERROR, f"{where}: fl_id {fl_id!r} has already shared its secrets")
        shares = msg.get("encrypted_shares")
        if not isinstance(shares, list):
            raise Refused(REQUEST_ERROR, f"{where}: encrypted_shares must be a list")
        receivers = set()
        for k, s in enumerate(shares):
            if (not isinstance(s, dict) or s.get("fl_id") not in it.keys or not isinstance(s.get("share"), str)
                    or len(s["share"]) > 4096 or s["fl_id"] == fl_id):
                raise Refused(REQUEST_ERROR, f"{where}: encrypted_shares[{k}] must be {{fl_id of another key "
                              "holder, share: base64 ≤ 4096}")
            receivers.add(s["fl_id"])
        if receivers != set(it.keys) - {fl_id}:
            raise Refused(REQUEST_ERROR, f"{where}: shares must go to every other key holder exactly once")
        it.sharers[fl_id] = [{"fl_id": s["fl_id"], "share": s["share"]} for s in shares]
        self._maybe_close()
        return {"timestamp": self._now_ms()}

    def on_getSecrets(self, msg):
        where = "getSecrets"
        self._need_pw(where)
        fl_id = self._current(msg, where)
        it = self.it
        if "shareSecrets" not in it.closed:
            return self._not_closed("shareSecrets")
        if fl_id not in it.sharers:
            raise Refused(REQUEST_ERROR, f"{where}: fl_id {fl_id!r} took no part in shareSecrets")
        mine = [{"fl_id": owner, "share": s["share"]} for owner, shares in sorted(it.sharers.items())
                for s in shares if s["fl_id"] == fl_id]
        return {"encrypted_shares": mine}

    def on_getClientList(self, msg):
        where = "getClientList"
        self._need_pw(where)
        self._current(msg, where)
        if "updateModel" not in self.it.closed:
            return self._not_closed("updateModel")
        return {"clients": sorted(self.it.updated)}

    def on_reconstructSecrets(self, msg):
        where = "reconstructSecrets"
        self._need_pw(where)
        fl_id = self._current(msg, where, "reconstructSecrets")
        it = self.it
        if fl_id not in it.updated:
            raise Refused(REQUEST_ERROR, f"{where}: fl_id {fl_id!r} did not upload in updateModel")
        if fl_id in it.reconstructions:
            raise Refused(REQUEST_ERROR, f"{where}: fl_id {fl_id!r} has already sent its shares")
        shares = msg.get("reconstruct_secret_shares")
        if not isinstance(shares, list):
            raise Refused(REQUEST_ERROR, f"{where}: reconstruct_secret_shares must be a list")
        clean = []
        for k, s in enumerate(shares):
            if (not isinstance(s, dict) or s.get("fl_id") not in it.sharers or s["fl_id"] == fl_id
                    or not isinstance(s.get("share"), str) or len(s["share"]) > 512):
                raise Refused(REQUEST_ERROR, f"{where}: reconstruct_secret_shares[{k}] must be {{fl_id of another "
                              "sharer, share: base64}")
            clean.append({"fl_id": s["fl_id"], "share": s["share"]})
        it.reconstructions[fl_id] = clean
        self._maybe_close()
        return {"timestamp": self._now_ms()}

    def _unmask(self):
        """Remove the individual masks of the survivors and the pairwise masks the dropped sharers left behind."""
        import base64
        it = self.it
        t = secagg.Shamir(self._t())
        by_owner = {}
        for shares in it.reconstructions.values():
            for s in shares:
                by_owner.setdefault(s["fl_id"], []).append(base64.b64decode(s["share"]))
        total = it.masked_sum.copy()
        s_pks = {k: base64.b64decode(v["s_pk"]["data"]) for k, v in it.keys.items()}
        for owner in it.sharers:
            try:
                secret = t.combine([secagg.share_from_bytes(b) for b in by_owner.get(owner, [])])
            except ValueError as e:
                raise Refused(REQUEST_ERROR, f"reconstruct secret failed for {owner!r}: {e}") from None
            if owner in it.updated:      # online: its secret is the individual mask seed b_u
                total -= secagg.prg(secret, self.size)
            else:                        # dropped after sharing: its secret is s_sk; undo its pairs with survivors
                for u in it.updated:
                    seed = secagg.pairwise_seed(secret, s_pks[u], it.number)
                    mask = secagg.prg(seed, self.size)
                    if secagg.pair_mask_sign(u, owner) > 0:
                        total -= mask
                    else:
                        total += mask
        flat = secagg.decode_fixed(total)
        out, offset = {}, 0
        for k in self.names:
            n = self.weights[k].size
            out[k] = flat[offset:offset + n].reshape(self.weights[k].shape)
            offset += n
        return out


def flatten(weights, names):
    return np.concatenate([np.asarray(weights[k], np.float64).ravel() for k in names]) if names else np.zeros(0)

