"""Declaring a distributed servable in `servable_config.py` (MindSpore Serving's `distributed.declare_servable`)
and openspore's generation variant `distributed.declare_llm_servable`: a GPT whose tensor-parallel slices run in
agent processes (`startup_agents`), behind the same OpenAI-compatible routes as `register.declare_llm_servable`.

    # <servable>/servable_config.py
    from openspore.serving.server import distributed
    distributed.declare_llm_servable(rank_size=2, config="config.json", tokenizer="tokenizer", num_blocks=256)
"""
import json
import os

ENV = "OPENSPORE_DISTRIBUTED_SERVABLES"  # start_servable → the servable's worker: address, rank table, wait


def declare_servable(rank_size, stage_size, with_batch_dim=True, without_batch_dim_inputs=None,
                     enable_pipeline_infer=False):
    """MindSpore Serving's declaration of a distributed MindIR model. openspore runs distributed *generation*
    servables (`declare_llm_servable`); a sharded MindIR graph has no runtime here, so this says so."""
    _check_sizes(rank_size, stage_size, "declare_servable")
    raise RuntimeError("For 'declare_servable', openspore does not run distributed MindIR models (their graphs are "
                       "sharded for Ascend devices); declare a tensor-parallel GPT with "
                       "distributed.declare_llm_servable(rank_size, ...) instead.")


def _check_sizes(rank_size, stage_size, where):
    for name, value in (("rank_size", rank_size), ("stage_size", stage_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise RuntimeError(f"For '{where}', the parameter '{name}' should be an int >= 1, but got {value!r}.")
    if rank_size % stage_size:
        raise RuntimeError(f"For '{where}', rank_size ({rank_size}) should be a multiple of stage_size "
                           f"({stage_size}).")


def declare_llm_servable(rank_size, stage_size=1, *, config, tokenizer, **kw):
    """declare_llm_servable(rank_size, stage_size=1, *, config, tokenizer, model_name=None, max_queue=64,
    max_running=None, default_max_tokens=16, **engine_kw): a generation servable whose GPT runs tensor-parallel
    over `rank_size` agents. The checkpoints are the agents' `model_files`; `config` (GPTConfig JSON) and
    `tokenizer` are looked up in the servable's version folder, then its folder. `stage_size` must be 1 (no
    pipeline stages). The other arguments are `register.declare_llm_servable`'s."""
    from ..register.llm import declare_llm_servable as declare_local
    _check_sizes(rank_size, stage_size, "declare_llm_servable")
    if stage_size != 1:
        raise RuntimeError(f"For 'declare_llm_servable', openspore splits the GPT by tensor parallelism only: "
                           f"stage_size should be 1, but got {stage_size}.")
    decl = declare_local(checkpoint=config, config=config, tokenizer=tokenizer, **kw)
    decl.checkpoint = None  # the agents hold the weights
    decl.rank_size = rank_size
    decl.engine_factory = lambda servable_dir, version_dir, name: _connect_agents(decl, servable_dir, version_dir,
                                                                                  name)
    return decl


def _connect_agents(decl, servable_dir, version_dir, name):
    """In the servable's worker: listen for the agents and wait for them (start_servable's settings)."""
    from ....llm.config import GPTConfig
    from ..worker.llm_runtime import _find_file
    from .engine_proxy import AgentGroup, RemoteEngine
    settings = json.loads(os.environ.get(ENV, "{}")).get(name)
    if settings is None:
        raise RuntimeError(f"Servable '{name}' is distributed (distributed.declare_llm_servable): start it with "
                           f"distributed.start_servable, not start_servables / openspore serve.")
    if settings["rank_size"] != decl.rank_size:
        raise RuntimeError(f"Servable '{name}': the rank table lists {settings['rank_size']} ranks but the servable "
                           f"is declared with rank_size={decl.rank_size}.")
    config = GPTConfig.load(_find_file(decl.config, version_dir, servable_dir, "config"))
    if config.n_head % decl.rank_size:
        raise RuntimeError(f"Servable '{name}': n_head={config.n_head} cannot be split over rank_size="
                           f"{decl.rank_size} agents.")
    group = AgentGroup(settings["address"], decl.rank_size, config.to_dict(), decl.engine_kw)
    print(f"Serving: distributed servable '{name}' waits for {decl.rank_size} agents on {group.address}", flush=True)
    try:
        return RemoteEngine(group, settings["wait_s"])
    except BaseException:
        group.close()
        raise
