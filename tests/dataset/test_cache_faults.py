"""Cache faults with real servers: killed mid-epoch, spilling (and a spill dir that cannot be written), no leftovers."""
import os
import shutil

import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset.cache import admin

from .cache_support import (Server, free_port, make_image_folder, mapped_by_me, pid_alive, pipeline, rows,
                            same_rows, shm_names)

pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="the cache server needs Linux")


@pytest.fixture()
def folder(tmp_path):
    return make_image_folder(tmp_path / "images", classes=2, per_class=8)


@pytest.fixture()
def server():
    srv = Server()
    yield srv
    srv.close()


def _read_then_kill(srv, folder, cache, after):
    """Fill the cache in epoch 1, read `after` rows of epoch 2, kill the server; return (rows read, iterator)."""
    it = pipeline(folder, cache).create_tuple_iterator(output_numpy=True, num_epochs=2)
    first = [[np.array(c) for c in r] for r in it]
    got = []
    for _ in range(after):
        got.append([np.array(c) for c in next(it)])
    srv.kill()
    return first, got, it


def test_server_killed_mid_epoch_gives_a_clear_error(server, folder):
    reference = rows(pipeline(folder))
    cache = ds.DatasetCache(server.session(), port=server.port, prefetch_size=2)
    first, got, it = _read_then_kill(server, folder, cache, after=3)
    with pytest.raises(RuntimeError, match=f"Cache server with port {server.port} is unreachable"):
        for row in it:
            got.append([np.array(c) for c in row])
    assert same_rows(first, reference)
    assert same_rows(got, reference[:len(got)])  # whatever came before the error was right
    server.assert_gone()
    assert not mapped_by_me(server.port)  # the client let go of the dead server's memory


def test_server_killed_mid_epoch_with_fallback_reads_uncached(server, folder):
    reference = rows(pipeline(folder))
    cache = ds.DatasetCache(server.session(), port=server.port, prefetch_size=2, fallback=True)
    first, got, it = _read_then_kill(server, folder, cache, after=5)
    with pytest.warns(RuntimeWarning, match="goes on reading without the cache"):
        got += [[np.array(c) for c in r] for r in it]
    assert same_rows(first, reference) and same_rows(got, reference)
    server.assert_gone()
    with pytest.warns(RuntimeWarning, match="unreachable"):  # a later run with the server gone: uncached too
        assert same_rows(rows(pipeline(folder, cache)), reference)


def test_session_destroyed_mid_epoch_is_an_error_not_wrong_rows(server, folder, capsys):
    reference = rows(pipeline(folder))
    cache = ds.DatasetCache(server.session(), port=server.port, prefetch_size=5)
    it = pipeline(folder, cache).create_tuple_iterator(output_numpy=True, num_epochs=2)
    assert same_rows([[np.array(c) for c in r] for r in it], reference)
    got = [[np.array(c) for c in next(it)]]  # rows 0-4 of epoch 2 are looked up: their blocks are known
    assert admin.main(["-d", str(cache.session_id), "-p", str(server.port)]) == 0
    other = ds.DatasetCache(server.session(), port=server.port)  # another cache takes the freed memory
    rows(pipeline(folder, other, shuffle=True))
    with pytest.raises(RuntimeError, match="was dropped from cache .* while the pipeline read it"):
        for row in it:
            got.append([np.array(c) for c in row])
    assert same_rows(got, reference[:len(got)])


def test_server_killed_during_the_first_epoch(server, folder):
    reference = rows(pipeline(folder))
    cache = ds.DatasetCache(server.session(), port=server.port, prefetch_size=2)
    it = pipeline(folder, cache).create_tuple_iterator(output_numpy=True, num_epochs=1)
    got = [[np.array(c) for c in next(it)] for _ in range(4)]
    server.kill()
    with pytest.raises(RuntimeError, match="unreachable"):
        for row in it:
            got.append([np.array(c) for c in row])
    assert same_rows(got, reference[:len(got)])
    server.assert_gone()


def test_spilling_to_disk_and_a_spill_dir_lost_while_running(tmp_path):
    spill = tmp_path / "spill"
    spill.mkdir()
    big = make_image_folder(tmp_path / "big", classes=1, per_class=8, size=(200, 200))
    reference = rows(pipeline(big), 2)
    srv = Server("-s", str(spill))
    try:
        cache = ds.DatasetCache(srv.session(), size=1, spilling=True, port=srv.port)
        assert same_rows(rows(pipeline(big, cache), 2), reference)
        stat = cache.get_stat()
        assert stat.num_mem_cached == 2 and stat.num_disk_cached == 6 and stat.hits == 8
        # the spill folder disappears under the server: rows beyond memory stay uncached, rows stay right
        for sub in os.listdir(spill):
            shutil.rmtree(spill / sub)
        other = ds.DatasetCache(srv.session(), size=1, spilling=True, port=srv.port)
        assert same_rows(rows(pipeline(big, other), 2), reference)
        stat = other.get_stat()
        assert stat.num_mem_cached == 2 and stat.num_disk_cached == 0 and stat.num_not_cached >= 6
    finally:
        srv.close()
    srv.assert_gone()
    assert os.listdir(spill) == []  # the server removed its spill files when it stopped


@pytest.mark.parametrize("kind", ["missing", "file", "unwritable"])
def test_spill_dir_that_cannot_be_used_stops_the_start(tmp_path, capsys, kind):
    if kind == "missing":
        path, message = tmp_path / "nope", "does not exist"
    elif kind == "file":
        path, message = tmp_path / "afile", "is not a directory"
        path.write_text("x")
    else:
        message = "is not writable"
        if os.geteuid() == 0:
            path = "/sys"  # root writes anywhere a permission bit allows; sysfs takes no new folders
        else:
            path = tmp_path / "ro"
            path.mkdir()
            path.chmod(0o500)
    port = free_port()
    before = shm_names()
    assert admin.main(["--start", "-p", str(port), "-s", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Cache server startup failed" in err and message in err
    assert admin.main(["--server_info", "-p", str(port)]) == 1  # nothing is listening
    assert "unreachable" in capsys.readouterr().err
    assert shm_names() == before


def test_stop_when_no_server(capsys):
    port = free_port()
    assert admin.main(["--stop", "-p", str(port)]) == 1
    assert capsys.readouterr().err.strip() == (f"Server on port {port} is not reachable or has been shutdown "
                                               f"already.")


def test_stop_leaves_nothing(tmp_path):
    srv = Server()
    pid = srv.pid
    srv.stop()
    assert not pid_alive(pid)
    srv.assert_gone()
