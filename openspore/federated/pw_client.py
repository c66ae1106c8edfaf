"""The device's half of PW_ENCRYPT: keys, secret shares, masking and the shares it gives back for unmasking.

Per iteration the device makes two X25519 key pairs — c (to encrypt the shares it sends) and s (pairwise mask
seeds) — and a random seed b for its individual mask. It Shamir-shares s_sk and b among the key holders, each
share sealed with AES-GCM under HKDF(X25519(c_sk, peer c_pk)). Its upload is

    encode_fixed(data_size · w) + PRG(b) + Σ_v ±PRG(HKDF(X25519(s_sk, s_pk_v)))   (mod 2^64)

over the other sharers v (+ when its id sorts first). For unmasking it returns, for every other sharer, the share
of b if that sharer uploaded, else the share of s_sk — never both for the same sharer.
"""
import base64
import os

import numpy as np
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from . import secagg
from .job import flatten
from .wire import decode_array, encode_array


class PWSession:
    def __init__(self, client):
        self.client = client
        self.c_key = X25519PrivateKey.generate()
        self.s_key = X25519PrivateKey.generate()
        self.b_seed = os.urandom(32)

    def _info(self, tag):
        return f"openspore-fl-{tag}/{self.client.iteration}".encode()

    def exchange_keys(self):
        c = self.client
        msg = c._ids()
        msg["c_pk"] = encode_array(np.frombuffer(secagg.public_bytes(self.c_key), np.uint8))
        msg["s_pk"] = encode_array(np.frombuffer(secagg.public_bytes(self.s_key), np.uint8))
        c._call("exchangeKeys", msg)
        reply = c._call("getKeys", c._ids())
        self.t = reply["threshold"]
        self.keys = {k["fl_id"]: {"c_pk": decode_array(k["c_pk"], "c_pk").tobytes(),
                                  "s_pk": decode_array(k["s_pk"], "s_pk").tobytes()} for k in reply["remote_publickeys"]}
        self.holders = sorted(self.keys)

    def share_secrets(self):
        c = self.client
        n = len(self.holders)
        shamir = secagg.Shamir(self.t)
        s_shares = shamir.split(secagg.private_bytes(self.s_key), n)
        b_shares = shamir.split(self.b_seed, n)
        out = []
        for k, v in enumerate(self.holders):
            if v == c.fl_id:
                continue
            key = secagg.agree(self.c_key, self.keys[v]["c_pk"], self._info("share"))
            plain = secagg.share_to_bytes(s_shares[k]) + secagg.share_to_bytes(b_shares[k])
            blob = secagg.seal(key, plain, f"{c.iteration}|{c.fl_id}|{v}".encode())
            out.append({"fl_id": v, "share": base64.b64encode(blob).decode(), "index": k + 1})
        msg = c._ids()
        msg["encrypted_shares"] = out
        c._call("shareSecrets", msg)
        reply = c._call("getSecrets", c._ids())
        self.received = {}
        for item in reply["encrypted_shares"]:
            owner = item["fl_id"]
            key = secagg.agree(self.c_key, self.keys[owner]["c_pk"], self._info("share"))
            plain = secagg.open_sealed(key, base64.b64decode(item["share"]), f"{c.iteration}|{owner}|{c.fl_id}".encode())
            self.received[owner] = (plain[:70], plain[70:])
        self.sharers = sorted(set(self.received) | {c.fl_id})

    def masked(self, weights):
        c = self.client
        names = sorted(weights)
        flat = flatten(weights, names) * c.trainer.data_size
        out = secagg.encode_fixed(flat)
        out += secagg.prg(self.b_seed, out.size)
        for v in self.sharers:
            if v == c.fl_id:
                continue
            mask = secagg.prg(secagg.pairwise_seed(self.s_key, self.keys[v]["s_pk"], c.iteration), out.size)
            if secagg.pair_mask_sign(c.fl_id, v) > 0:
                out += mask
            else:
                out -= mask
        return out

    def reconstruct(self):
        c = self.client
        survivors = set(c._call("getClientList", c._ids())["clients"])
        if len(survivors) < self.t + 1:
            raise RuntimeError(f"PW_ENCRYPT: only {len(survivors)} clients uploaded, fewer than t + 1 = {self.t + 1}")
        shares = []
        for owner, (s_share, b_share) in sorted(self.received.items()):
            chosen = b_share if owner in survivors else s_share
            shares.append({"fl_id": owner, "share": base64.b64encode(chosen).decode()})
        msg = c._ids()
        msg["reconstruct_secret_shares"] = shares
        c._call("reconstructSecrets", msg)
