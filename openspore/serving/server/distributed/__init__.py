"""MindSpore Serving's distributed inference (`mindspore_serving.server.distributed`): a servable whose model is
split over agent processes. openspore splits a GPT by tensor parallelism (`openspore.llm.tensor_parallel`).

* `servable_config.py`: `distributed.declare_llm_servable(rank_size, config=..., tokenizer=...)`.
* master: `distributed.start_servable(servable_directory, servable_name, rank_table_json_file, version_number,
  distributed_address, wait_agents_time_in_seconds)`, then `server.start_restful_server(...)` as usual.
* each machine: `distributed.startup_agents(distributed_address, model_files, ...)`.

>>> from openspore.serving.server import distributed
>>> distributed.startup_agents("127.0.0.1:6200", [])
Traceback (most recent call last):
  ...
RuntimeError: For 'startup_agents', the parameter 'model_files' should be a non-empty list/tuple, one entry per local device, but got [].
"""
from ._distributed import start_servable
from .agent import startup_agents
from .engine_proxy import AgentFailed
from .register import declare_llm_servable, declare_servable

__all__ = ["start_servable", "startup_agents", "declare_servable", "declare_llm_servable", "AgentFailed"]
