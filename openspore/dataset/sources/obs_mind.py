"""`OBSMindDataset`: MindRecord files kept in an object store, copied to a local cache on first use and then read
as `MindDataset` reads them.

The store is named by `server`: a `file://` URL (or a plain folder) is an object store on a shared file system —
the object keys in `dataset_files` are paths under it, and `sync_obs_path` is a folder every rank sees, where
`ds.sync_wait_for_dataset` keeps its barrier marks. An `http(s)://` OBS endpoint needs Huawei's OBS SDK
(`pip install esdk-obs-python`, module `obs`), as MindSpore's does; `dataset_files` are then `obs://bucket/key`
(or `s3://bucket/key`). Files are cached under `$OPENSPORE_OBS_CACHE` (default: a folder in the temp dir).

>>> import os, tempfile
>>> import numpy as np
>>> import openspore.dataset as ds
>>> from openspore.mindrecord import FileWriter
>>> store = tempfile.mkdtemp()
>>> writer = FileWriter(os.path.join(store, "train.mindrecord"), shard_num=1)
>>> _ = writer.add_schema({"label": {"type": "int32"}}, "labels")
>>> writer.write_raw_data([{"label": 3}, {"label": 4}])
>>> writer.commit()
>>> data = ds.OBSMindDataset(["train.mindrecord"], "file://" + store, "ak", "sk", os.path.join(store, "sync"),
...                          shuffle=False)
>>> [int(r[0]) for r in data.create_tuple_iterator(output_numpy=True)]
[3, 4]
"""
import hashlib
import os
import shutil
import tempfile

from .. import config
from ..engine.samplers import Shuffle
from .mindrecord import MindDataset


def _cache_dir():
    folder = os.environ.get("OPENSPORE_OBS_CACHE") or os.path.join(tempfile.gettempdir(), "openspore_obs_cache")
    os.makedirs(folder, exist_ok=True)
    return folder


def _local_root(server):
    if server.startswith("file://"):
        return server[len("file://"):]
    if "://" not in server:
        return server
    return None


def _copy_if_newer(source, target):
    if not os.path.isfile(source):
        raise RuntimeError(f"For 'OBSMindDataset', the object {source} does not exist in the store.")
    if os.path.isfile(target) and os.path.getmtime(target) >= os.path.getmtime(source) \
            and os.path.getsize(target) == os.path.getsize(source):
        return
    os.makedirs(os.path.dirname(target), exist_ok=True)
    tmp = target + ".tmp"
    shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def _download_obs(server, ak, sk, key, target):
    try:
        from obs import ObsClient  # Huawei's OBS SDK (esdk-obs-python), the client MindSpore uses as well
    except ImportError:
        raise ImportError("For 'OBSMindDataset', reading from an OBS endpoint needs the OBS SDK: "
                          "pip install esdk-obs-python (or use a file:// store).") from None
    scheme, _, rest = key.partition("://")
    if scheme not in ("obs", "s3") or "/" not in rest:
        raise ValueError(f"For 'OBSMindDataset', with an OBS endpoint each file must be obs://bucket/key, but got "
                         f"{key!r}.")
    bucket, object_key = rest.split("/", 1)
    client = ObsClient(access_key_id=ak, secret_access_key=sk, server=server)
    try:
        resp = client.getObject(bucket, object_key, downloadPath=target)
        if resp.status >= 300:
            raise RuntimeError(f"For 'OBSMindDataset', downloading {key} failed: {resp.errorCode} "
                               f"{resp.errorMessage}.")
    finally:
        client.close()


class OBSMindDataset(MindDataset):
    """`OBSMindDataset(dataset_files, server, ak, sk, sync_obs_path, columns_list=None, shuffle=Shuffle.GLOBAL,
    num_shards=None, shard_id=None, shard_equal_rows=True)`: the MindRecord files (and their .db indexes) of
    `dataset_files` fetched from the store into the local cache, then read as MindDataset with the same columns,
    shuffle and shards."""

    _where = "OBSMindDataset"

    def __init__(self, dataset_files, server, ak, sk, sync_obs_path, columns_list=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, shard_equal_rows=True):
        where = self._where
        if isinstance(dataset_files, str) or not isinstance(dataset_files, (list, tuple)) or not dataset_files:
            raise TypeError(f"For '{where}', 'dataset_files' must be a non-empty list of object keys, but got "
                            f"{dataset_files!r}.")
        for name, value in (("server", server), ("ak", ak), ("sk", sk), ("sync_obs_path", sync_obs_path)):
            if not isinstance(value, str):
                raise TypeError(f"For '{where}', '{name}' must be a str, but got {type(value).__name__}.")
        self.server, self.sync_obs_path, self.shard_equal_rows = server, sync_obs_path, bool(shard_equal_rows)
        local = [self._fetch(key, ak, sk) for key in dataset_files]
        root = _local_root(server)
        if root is not None:
            config._obs_sync_dir = sync_obs_path if os.path.isabs(sync_obs_path) else os.path.join(root,
                                                                                                    sync_obs_path)
        super().__init__(local, columns_list=columns_list, shuffle=shuffle, num_shards=num_shards,
                         shard_id=shard_id)

    def _fetch(self, key, ak, sk):
        """The local copy of one MindRecord object, with its .db index beside it (one cache folder per store)."""
        store = hashlib.sha1(self.server.encode()).hexdigest()[:12]
        root = _local_root(self.server)
        relative = key.split("://", 1)[-1].lstrip("/")
        target = os.path.join(_cache_dir(), store, relative)
        for suffix in ("", ".db"):
            if root is not None:
                _copy_if_newer(os.path.join(root, relative) + suffix, target + suffix)
            elif not os.path.isfile(target + suffix):
                os.makedirs(os.path.dirname(target), exist_ok=True)
                _download_obs(self.server, ak, sk, key + suffix, target + suffix)
        return target
