"""The dataset cache with a real server on 127.0.0.1: rows, sharing, statistics, placement rules, the admin tool."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import vision
from openspore.dataset.cache import admin

from tests.conftest import child_env

from .cache_support import Server, make_image_folder, mapped_by_me, pipeline, rows, same_rows, scale

pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="the cache server needs Linux")


@pytest.fixture(scope="module")
def server():
    srv = Server()
    yield srv
    srv.close()
    srv.assert_gone()


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return make_image_folder(tmp_path_factory.mktemp("images"))


def test_dataset_cache_arguments():
    cache = ds.DatasetCache(3926725217)
    assert (cache.session_id, cache.size, cache.spilling, cache.hostname, cache.port, cache.num_connections,
            cache.prefetch_size) == (3926725217, 0, False, None, None, None, None)
    with pytest.raises(ValueError, match=r"Input port is not within the required interval of \[1025, 65535\]"):
        ds.DatasetCache(1, port=80)
    with pytest.raises(ValueError, match="session_id is not within the required interval"):
        ds.DatasetCache(0)
    with pytest.raises(TypeError, match="Argument session_id with value '7' is not of type"):
        ds.DatasetCache("7")
    with pytest.raises(TypeError, match="spilling"):
        ds.DatasetCache(1, spilling=1)
    with pytest.raises(TypeError, match="Argument cache with value 5 is not of type"):
        ds.ImageFolderDataset(os.path.dirname(__file__), cache=5)
    assert ds.DatasetCache(1).get_stat().num_mem_cached == 0  # nothing ran yet


def test_map_cache_rows_equal_uncached_and_second_epoch_hits(server, folder):
    reference = rows(pipeline(folder), 2)
    cache = ds.DatasetCache(server.session(), port=server.port, prefetch_size=5)
    cached = rows(pipeline(folder, cache), 2)
    assert same_rows(cached, reference)
    stat = cache.get_stat()
    assert (stat.num_mem_cached, stat.num_disk_cached) == (12, 0)
    assert stat.misses == 12 and stat.hits == 12  # the second epoch came from the cache
    assert stat.avg_cache_sz >= 3 * 20 * 24 * 4
    assert mapped_by_me(server.port)  # local rows travel through the server's shared memory


def test_rows_over_tcp_as_a_remote_client(server, folder):
    reference = rows(pipeline(folder), 2)
    cache = ds.DatasetCache(server.session(), port=server.port, prefetch_size=3)
    cache._use_shm = False  # what a client on another machine does: row bytes inside the gRPC messages
    assert same_rows(rows(pipeline(folder, cache), 2), reference)
    stat = cache.get_stat()
    assert (stat.num_mem_cached, stat.hits, stat.misses) == (12, 12, 12)
    local = ds.DatasetCache(cache.session_id, port=server.port)  # a local reader of the remote writer's copy
    assert same_rows(rows(pipeline(folder, local)), reference[:12])
    assert local.get_stat().hits == 24


def test_mindrecord_source_cache(server, tmp_path):
    from openspore.mindrecord import FileWriter
    path = str(tmp_path / "rows.mindrecord")
    writer = FileWriter(path, shard_num=1)
    writer.add_schema({"label": {"type": "int32"}, "vec": {"type": "float32", "shape": [3]}}, "rows")
    writer.write_raw_data([{"label": i, "vec": np.full(3, i / 2, np.float32)} for i in range(10)])
    writer.commit()
    reference = rows(ds.MindDataset(path, shuffle=False), 2)
    cache = ds.DatasetCache(server.session(), port=server.port)
    assert same_rows(rows(ds.MindDataset(path, shuffle=False, cache=cache), 2), reference)
    stat = cache.get_stat()
    assert (stat.num_mem_cached, stat.hits) == (10, 10)


def test_leaf_cache_keeps_the_sampler_order(server, folder):
    ds.config.set_seed(5)
    reference = rows(ds.ImageFolderDataset(folder, shuffle=True), 3)
    ds.config.set_seed(5)
    cache = ds.DatasetCache(server.session(), port=server.port)
    cached = rows(ds.ImageFolderDataset(folder, shuffle=True, cache=cache), 3)
    assert same_rows(cached, reference)
    assert [r[1].item() for r in cached[:12]] != sorted(r[1].item() for r in cached[:12])  # really shuffled
    assert cache.get_stat().num_mem_cached == 12


def test_shards_of_one_pipeline_share_one_cache(server, folder):
    cache = ds.DatasetCache(server.session(), port=server.port)
    parts = [rows(pipeline_shard(folder, cache, k)) for k in range(2)]
    whole = rows(pipeline(folder))
    assert sorted(r[1].item() for p in parts for r in p) == sorted(r[1].item() for r in whole)
    assert cache.get_stat().num_mem_cached == 12


def pipeline_shard(folder, cache, shard):
    data = ds.ImageFolderDataset(folder, shuffle=False, num_shards=2, shard_id=shard)
    return data.map([vision.Decode(), scale], input_columns="image", cache=cache)


def test_multiprocess_map_under_a_cache(server, folder):
    cache = ds.DatasetCache(server.session(), port=server.port)
    got = rows(pipeline(folder, cache, num_parallel_workers=2, python_multiprocessing=True), 2)
    assert same_rows(got, rows(pipeline(folder), 2))


_SECOND_PROCESS = """
import json, sys
import numpy as np
import openspore.dataset as ds
from openspore.dataset import vision
folder, sid, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def scale(image):
    return (image.astype(np.float32) * 0.5 + 1.0).transpose(2, 0, 1)
cache = ds.DatasetCache(sid, port=port)
data = ds.ImageFolderDataset(folder, shuffle=False).map([vision.Decode(), scale], input_columns="image", cache=cache)
sums = [float(r[0].sum()) for r in data.create_tuple_iterator(output_numpy=True, num_epochs=1)]
s = cache.get_stat()
print(json.dumps({"sums": sums, "hits": s.hits, "misses": s.misses, "mem": s.num_mem_cached}))
"""


def test_second_process_with_the_same_session_reads_the_first_copy(server, folder):
    sid = server.session()
    cache = ds.DatasetCache(sid, port=server.port)
    first = rows(pipeline(folder, cache))
    out = subprocess.run([sys.executable, "-c", _SECOND_PROCESS, folder, str(sid), str(server.port)], env=child_env(),
                         capture_output=True, text=True, timeout=300, check=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["sums"] == [float(r[0].sum()) for r in first]
    # one shared copy: its statistics count the first process's 12 misses and the second one's 12 hits
    assert report["mem"] == 12 and report["misses"] == 12 and report["hits"] == 12


def test_placement_rules_and_unknown_session(server, folder):
    cache = ds.DatasetCache(server.session(), port=server.port)
    random_map = ds.ImageFolderDataset(folder).map([vision.Decode(), vision.RandomHorizontalFlip()],
                                                    input_columns="image", cache=cache)
    with pytest.raises(RuntimeError, match="MapNode containing random operation is not supported as a descendant "
                                           "of cache."):
        rows(random_map)
    gen = ds.GeneratorDataset(lambda: iter([(np.ones(2),)]), column_names=["x"]).map(lambda x: x, cache=cache)
    with pytest.raises(RuntimeError, match="There is currently no support for GeneratorOp under cache."):
        rows(gen)
    batched = ds.ImageFolderDataset(folder).batch(2).map(lambda x, y: (x, y), input_columns=["image", "label"],
                                                          cache=cache)
    with pytest.raises(RuntimeError, match="BatchNode is not supported as a descendant operator under a cache."):
        rows(batched)
    nested = ds.ImageFolderDataset(folder, cache=cache).map(lambda x: x, cache=cache)
    with pytest.raises(RuntimeError, match="Nested cache operations are not supported"):
        rows(nested)
    with pytest.raises(TypeError):
        ds.ImageFolderDataset(folder).batch(2, cache=cache)  # only sources and map take a cache
    unknown = ds.DatasetCache(12345, port=server.port)
    with pytest.raises(RuntimeError, match="A cache creation has been requested but the session was not found!"):
        rows(pipeline(folder, unknown))


def test_memory_cap_without_spilling_keeps_rows_uncached(server, tmp_path):
    big = make_image_folder(tmp_path / "big", classes=1, per_class=10, size=(200, 200))  # ~480 KB per row
    cache = ds.DatasetCache(server.session(), size=1, port=server.port)  # 1 MB: two rows fit
    got = rows(pipeline(big, cache), 2)
    assert same_rows(got, rows(pipeline(big), 2))
    stat = cache.get_stat()
    assert stat.num_mem_cached == 2 and stat.num_disk_cached == 0 and stat.num_not_cached >= 8


def test_spilling_needs_a_server_spill_dir(server, folder):
    cache = ds.DatasetCache(server.session(), spilling=True, port=server.port)
    with pytest.raises(RuntimeError, match="Server is not set up with spill support"):
        rows(pipeline(folder, cache))


def test_admin_commands(server, capsys):
    assert admin.main(["-g", "-p", str(server.port)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Session created for server on port {server.port}: ")
    sid = int(out.strip().rsplit(" ", 1)[1])
    assert admin.main(["--server_info", "-p", str(server.port)]) == 0
    out = capsys.readouterr().out
    assert "Cache Server Configuration" in out and "number of workers  2" in out and str(sid) in out
    assert admin.main(["--list_sessions", "-p", str(server.port)]) == 0
    assert str(sid) in capsys.readouterr().out
    assert admin.main(["-d", str(sid), "-p", str(server.port)]) == 0
    assert capsys.readouterr().out.strip() == f"Drop session {sid} successfully for server on port {server.port}"
    assert admin.main(["-d", "999", "-p", str(server.port)]) == 1
    assert capsys.readouterr().err.strip() == f"Session id 999 not found in server on port {server.port}."
    from openspore import cli
    assert cli.main(["dataset-cache", "--list_sessions", "-h", "127.0.0.1", "-p", str(server.port)]) == 0
    assert "Session" in capsys.readouterr().out


def test_env_port_and_admin_errors(server, folder, monkeypatch, capsys):
    monkeypatch.setenv("MS_CACHE_PORT", str(server.port))
    cache = ds.DatasetCache(server.session())
    assert len(rows(pipeline(folder, cache))) == 12
    assert admin.main(["-g"]) == 0
    capsys.readouterr()
    assert admin.main(["--start", "-w", "101"]) == 1
    assert "Number of workers must be in range of 1 and 100." in capsys.readouterr().err
    assert admin.main(["--bogus"]) == 1
    assert "Unknown argument: --bogus" in capsys.readouterr().err
    assert admin.main(["--start"]) == 1  # already running on MS_CACHE_PORT
    assert "already up and running" in capsys.readouterr().err
