"""`declare_llm_servable`: make a servable a text-generation servable (openspore's addition to the register API).

A generation servable holds a GPT checkpoint, its config and a tokenizer; its worker runs an `LLMEngine` under a
`ContinuousBatchingScheduler`. The master serves it through the OpenAI-compatible routes (`/v1/completions`,
`/v1/chat/completions`, `/v1/models`), the `MSGenerate/Generate` gRPC stream and, MindSpore Serving style, the
method `generate(prompt) -> text` (`POST /model/<name>:generate`, `MSService/Predict`).

    # <servable>/servable_config.py; the files are looked up in the version folder, then the servable folder
    from openspore.serving.server import register
    register.declare_llm_servable(checkpoint="gpt.ckpt", config="config.json", tokenizer="tokenizer",
                                  max_queue=64, max_running=16, num_blocks=256)
"""
from . import registry
from .utils import check_str, get_servable_dir

# Sampling defaults of a request that leaves them out (OpenAI's defaults; max_tokens 16 as in /v1/completions).
DEFAULT_SAMPLING = {"max_tokens": 16, "temperature": 1.0, "top_k": 0, "top_p": 1.0, "repetition_penalty": 1.0}
_ENGINE_KEYS = ("block_size", "num_blocks", "max_batch_size", "max_model_len", "memory_bytes")


class LLMDecl:
    """What `declare_llm_servable` recorded; the worker fills `runtime` once the engine is loaded."""

    def __init__(self, checkpoint, config, tokenizer, model_name, max_queue, max_running, engine_kw, defaults,
                 stream_interval_ms=0):
        self.checkpoint, self.config, self.tokenizer = checkpoint, config, tokenizer
        self.stream_interval_ms = stream_interval_ms
        self.model_name, self.max_queue, self.max_running = model_name, max_queue, max_running
        self.engine_kw, self.defaults = engine_kw, defaults
        self.runtime = None


def _positive_int(name, value, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RuntimeError(f"For 'declare_llm_servable', the parameter '{name}' should be an int >= 1, but got "
                           f"{value!r}.")
    return value


def declare_llm_servable(checkpoint, config, tokenizer, *, model_name=None, max_queue=64, max_running=None,
                         default_max_tokens=16, stream_interval_ms=0, **engine_kw):
    """declare_llm_servable(checkpoint, config, tokenizer, *, model_name=None, max_queue=64, max_running=None,
    default_max_tokens=16, stream_interval_ms=0, **engine_kw): declare this servable as a text-generation servable.

    `checkpoint` (a MindSpore checkpoint of `openspore.llm.GPT`) and `config` (its GPTConfig JSON) are file names
    looked up in the version folder, then in the servable folder; `tokenizer` is a folder written by a tokenizer's
    `save` (same lookup) or a tokenizer object. `model_name` is the id clients name in `"model"` (default: the
    servable name). `max_queue` bounds the requests waiting (more are refused: HTTP 429); `max_running` bounds the
    sequences decoded together (default the engine's max_batch_size; 1 = one request at a time; `openspore serve
    --max-batch-size N` overrides it). `stream_interval_ms`: a stream sends its first token at once, then at most
    one message per this many milliseconds, carrying every token generated meanwhile (0: one per decode step;
    fewer messages cost the server less CPU under many streams). `engine_kw`: the LLMEngine's block_size, num_blocks, max_batch_size,
    max_model_len, memory_bytes.
    """
    name = get_servable_dir()
    spec = registry.servable(name)
    if spec.llm is not None:
        raise RuntimeError(f"Servable '{name}': declare_llm_servable was called twice; a servable holds one model.")
    if spec.models:
        raise RuntimeError(f"Servable '{name}': declare_llm_servable cannot be combined with declare_model in one "
                           "servable; put the generation model in a servable of its own.")
    check_str("checkpoint", checkpoint, "declare_llm_servable")
    check_str("config", config, "declare_llm_servable")
    if not isinstance(tokenizer, str) and not (hasattr(tokenizer, "encode") and hasattr(tokenizer, "decode")):
        raise RuntimeError(f"For 'declare_llm_servable', the parameter 'tokenizer' should be a folder name or a "
                           f"tokenizer object (encode/decode), but got {tokenizer!r}.")
    if model_name is not None:
        check_str("model_name", model_name, "declare_llm_servable")
    unknown = sorted(set(engine_kw) - set(_ENGINE_KEYS))
    if unknown:
        raise RuntimeError(f"For 'declare_llm_servable', unknown parameter(s) {unknown}; the engine takes "
                           f"{list(_ENGINE_KEYS)}.")
    for key in ("block_size", "num_blocks", "max_batch_size", "max_model_len", "memory_bytes"):
        _positive_int(key, engine_kw.get(key))
    if isinstance(stream_interval_ms, bool) or not isinstance(stream_interval_ms, (int, float)) or \
            not 0 <= stream_interval_ms <= 1000:
        raise RuntimeError(f"For 'declare_llm_servable', the parameter 'stream_interval_ms' should be a number in "
                           f"[0, 1000], but got {stream_interval_ms!r}.")
    defaults = dict(DEFAULT_SAMPLING, max_tokens=_positive_int("default_max_tokens", default_max_tokens, False))
    decl = LLMDecl(checkpoint, config, tokenizer, model_name or name, _positive_int("max_queue", max_queue, False),
                   _positive_int("max_running", max_running), engine_kw, defaults, stream_interval_ms)
    spec.llm = decl
    if "generate" in spec.methods:
        raise RuntimeError(f"Servable '{name}': a generation servable defines the method 'generate' itself.")
    method = registry.MethodDef("generate", ["prompt"], ["text"])
    method.stages.append(registry.Stage("function", _generate_texts(decl), [(0, 0)], 1, 64, "Generate"))
    method.outputs = [(1, 0)]
    spec.methods["generate"] = method
    return decl


def _generate_texts(decl):
    """The batch stage of the `generate` method: every prompt of the batch goes to the scheduler at once."""
    def generate(instances):
        handles = []
        for (prompt,) in instances:
            try:
                handles.append(decl.runtime.submit_text(prompt))
            except Exception as exc:  # noqa: BLE001 - that instance fails with the reason
                handles.append(exc)
        return _Results(decl, handles)
    return generate


class _Results:
    """One text per instance; a failed instance raises from `next` and the following ones still come (a
    generator could not go on after raising)."""

    def __init__(self, decl, handles):
        self.decl, self.handles = decl, iter(handles)

    def __iter__(self):
        return self

    def __next__(self):
        handle = next(self.handles)
        if isinstance(handle, Exception):
            raise handle
        return self.decl.runtime.collect_text(handle)
