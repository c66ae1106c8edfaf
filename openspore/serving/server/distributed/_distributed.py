"""`distributed.start_servable`: the master side of a distributed servable (MindSpore Serving's API)."""
import json
import os

from .agent import read_rank_table
from .engine_proxy import split_address
from .register import ENV


def start_servable(servable_directory, servable_name, rank_table_json_file, version_number=1,
                   distributed_address="0.0.0.0:6200", wait_agents_time_in_seconds=0):
    """start_servable(servable_directory, servable_name, rank_table_json_file, version_number=1,
    distributed_address="0.0.0.0:6200", wait_agents_time_in_seconds=0): start the servable's worker, which
    listens on `distributed_address` for the agents (`startup_agents`) and returns once they have all registered
    and loaded their slices (wait_agents_time_in_seconds=0: wait for ever; otherwise RuntimeError after it)."""
    from .. import ServableStartConfig, start_servables
    from .._start_config import _abs_path
    for name, value in (("servable_directory", servable_directory), ("servable_name", servable_name),
                        ("rank_table_json_file", rank_table_json_file)):
        if not isinstance(value, str) or not value:
            raise RuntimeError(f"For 'start_servable', the parameter '{name}' should be a non-empty str, but got "
                               f"{value!r}.")
    split_address(distributed_address, "start_servable")
    wait = wait_agents_time_in_seconds
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or wait < 0:
        raise RuntimeError(f"For 'start_servable', 'wait_agents_time_in_seconds' should be a number >= 0, but got "
                           f"{wait!r}.")
    if isinstance(version_number, bool) or not isinstance(version_number, int) or version_number < 0:
        raise RuntimeError(f"For 'start_servable', 'version_number' should be an int >= 0, but got "
                           f"{version_number!r}.")
    rank_size = read_rank_table(_abs_path(rank_table_json_file))
    settings = json.loads(os.environ.get(ENV, "{}"))
    settings[servable_name] = {"address": distributed_address, "rank_size": rank_size, "wait_s": wait}
    os.environ[ENV] = json.dumps(settings)  # the worker inherits it
    start_servables(ServableStartConfig(servable_directory, servable_name, device_ids=0,
                                        version_number=version_number or 1))
