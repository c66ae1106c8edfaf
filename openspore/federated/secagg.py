"""PW_ENCRYPT secure aggregation (Bonawitz et al., CCS'17): pairwise masks that cancel in the server's sum,
an individual mask per client, and Shamir t-of-n sharing of both mask seeds so that clients may drop out.

Arithmetic is on fixed-point integers modulo 2^64 (numpy uint64 wraps): a weight x (already multiplied by the
client's data size) becomes round(x · 2^FRAC_BITS); masks are uniform uint64 vectors from ChaCha20, so the sum
of masked uploads minus the reconstructed masks is exactly the sum of the encodings.

>>> import numpy as np
>>> s = Shamir(threshold=2)
>>> shares = s.split(b"k" * 32, 3)
>>> s.combine(shares[1:]) == b"k" * 32
True
>>> decode_fixed(encode_fixed(np.array([1.5, -2.25])))
array([ 1.5 , -2.25])
"""
import os
import secrets

import numpy as np
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

FRAC_BITS = 24
PRIME = (1 << 521) - 1  # a Mersenne prime above every 256-bit secret


def encode_fixed(x):
    """float array → uint64 fixed point (two's complement of round(x · 2^FRAC_BITS))."""
    scaled = np.rint(np.asarray(x, np.float64) * (1 << FRAC_BITS))
    if np.any(np.abs(scaled) >= 2.0 ** 62):
        raise OverflowError("encode_fixed: a value is too large for the fixed-point range (|x| < 2^38).")
    return scaled.astype(np.int64).view(np.uint64)


def decode_fixed(u):
    return np.asarray(u, np.uint64).view(np.int64).astype(np.float64) / (1 << FRAC_BITS)


def prg(seed, count):
    """`count` uniform uint64 from a 32-byte seed (ChaCha20 keystream)."""
    enc = Cipher(algorithms.ChaCha20(seed, b"\0" * 16), mode=None).encryptor()
    return np.frombuffer(enc.update(b"\0" * (8 * count)), np.uint64).copy()


def _kdf(shared, info):
    return HKDF(hashes.SHA256(), 32, None, info).derive(shared)


def public_bytes(private_key):
    return private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def private_bytes(private_key):
    from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat
    return private_key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())


def agree(private_raw_or_key, peer_public_raw, info):
    """A 32-byte key shared by two parties: HKDF(X25519(own private, peer public), info)."""
    key = private_raw_or_key
    if isinstance(key, bytes):
        key = X25519PrivateKey.from_private_bytes(key)
    return _kdf(key.exchange(X25519PublicKey.from_public_bytes(peer_public_raw)), info)


def pair_mask_sign(u, v):
    """+1 when u adds the pair's mask, -1 when it subtracts it: the two ends of a pair use opposite signs."""
    return 1 if u < v else -1


def pairwise_seed(s_private, peer_s_public, iteration):
    return agree(s_private, peer_s_public, b"openspore-fl-mask/" + str(iteration).encode())


def seal(key, plaintext, associated):
    nonce = os.urandom(12)
    return nonce + AESGCM(key).encrypt(nonce, plaintext, associated)


def open_sealed(key, blob, associated):
    return AESGCM(key).decrypt(blob[:12], blob[12:], associated)


class Shamir:
    """t-of-n sharing of byte strings (≤ 64 bytes) over GF(2^521 - 1); share x-coordinates are 1..n."""

    def __init__(self, threshold):
        if threshold < 1:
            raise ValueError(f"Shamir: threshold must be >= 1, got {threshold}.")
        self.t = threshold

    def split(self, secret, n):
        if n < self.t:
            raise ValueError(f"Shamir.split: {n} shares cannot meet a threshold of {self.t}.")
        value = int.from_bytes(b"\1" + secret, "big")  # leading 1 keeps the length of secrets with leading zeros
        coeffs = [value] + [secrets.randbelow(PRIME) for _ in range(self.t - 1)]
        shares = []
        for x in range(1, n + 1):
            y = 0
            for c in reversed(coeffs):
                y = (y * x + c) % PRIME
            shares.append((x, y))
        return shares

    def combine(self, shares):
        if len(shares) < self.t:
            raise ValueError(f"Shamir.combine: {len(shares)} shares, {self.t} needed.")
        pts = shares[: self.t]
        xs = [x for x, _ in pts]
        if len(set(xs)) != len(xs):
            raise ValueError("Shamir.combine: two shares have the same index.")
        value = 0
        for i, (xi, yi) in enumerate(pts):
            num, den = 1, 1
            for j, xj in enumerate(xs):
                if j != i:
                    num = num * (-xj) % PRIME
                    den = den * (xi - xj) % PRIME
            value = (value + yi * num * pow(den, -1, PRIME)) % PRIME
        raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
        if not raw or raw[0] != 1:
            raise ValueError("Shamir.combine: the shares do not reconstruct a valid secret.")
        return raw[1:]


def share_to_bytes(share):
    x, y = share
    return x.to_bytes(4, "big") + y.to_bytes(66, "big")


def share_from_bytes(raw):
    if len(raw) != 70:
        raise ValueError(f"a Shamir share is 70 bytes, got {len(raw)}.")
    return int.from_bytes(raw[:4], "big"), int.from_bytes(raw[4:], "big")
