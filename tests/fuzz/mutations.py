"""Seeded byte-level damage for the fuzz tests: every variant says what it did and whether the file's structure
is damaged in a way the reader must notice (not only bytes inside stored values)."""
import numpy as np


def variants(data, seed, count, boundaries=()):
    """`count` (kind, bytes) pairs: truncations (anywhere and, if given, exactly at record `boundaries`),
    bit flips, overwrites, inserted and appended junk, the file twice, an empty and an all-zero file."""
    rng = np.random.default_rng(seed)
    fixed = [("empty", b""), ("zeros", bytes(len(data))), ("twice", data + data)]
    inner = [b for b in boundaries if 0 < b < len(data)]
    out = list(fixed)
    for case in range(count - len(fixed)):
        kind = ("truncate", "flip", "overwrite", "insert", "append", "boundary")[case % 6]
        if kind == "boundary" and not inner:
            kind = "truncate"
        if kind == "truncate":
            out.append((kind, data[:int(rng.integers(1, len(data)))]))
        elif kind == "boundary":
            out.append((kind, data[:int(rng.choice(inner))]))
        elif kind == "append":
            out.append((kind, data + rng.bytes(int(rng.integers(1, 64)))))
        elif kind == "insert":
            pos = int(rng.integers(len(data)))
            out.append((kind, data[:pos] + rng.bytes(int(rng.integers(1, 16))) + data[pos:]))
        else:
            buf = bytearray(data)
            for _ in range(int(rng.integers(1, 6))):
                pos = int(rng.integers(len(buf)))
                if kind == "flip":
                    buf[pos] ^= 1 << int(rng.integers(8))
                else:
                    buf[pos] = int(rng.integers(256))
            out.append((kind, bytes(buf)))
    return out


def write(path, content):
    with open(path, "wb") as f:
        f.write(content)
    return str(path)
