"""Writing files so that nothing half-written is ever left: checkpoints, MindIR/ONNX exports, graph dumps."""
import os


def write_atomic(path, chunks, read_only=True):
    """Write the byte chunks to `path.tmp`, then rename it over `path`: readers see the old file or the whole
    new one. `read_only` leaves it 0400, as MindSpore leaves checkpoints. A `path.tmp` left by a crash is
    replaced; on any failure the temporary is removed and `path` is untouched."""
    tmp = path + ".tmp"
    if os.path.lexists(tmp):
        os.remove(tmp)
    try:
        with open(tmp, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
        if read_only:
            os.chmod(tmp, 0o400)
        if os.name == "nt" and os.path.exists(path):  # Windows refuses to replace a read-only file
            os.chmod(path, 0o600)
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.remove(tmp)
        raise
