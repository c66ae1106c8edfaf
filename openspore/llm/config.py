"""`GPTConfig`: the hyper-parameters of the GPT-2-architecture decoder (openspore.llm.model), saved as JSON next to
the checkpoint so a servable directory (or Hugging Face `transformers`' GPT2Config) can rebuild the same model.

>>> from openspore.llm.config import GPTConfig
>>> cfg = GPTConfig(n_embd=64, n_head=4)
>>> GPTConfig.from_dict(cfg.to_dict()) == cfg
True
>>> cfg.head_dim
16
"""
import dataclasses
import json
from dataclasses import dataclass

_DTYPES = ("float32", "float16")


@dataclass
class GPTConfig:
    """GPT-2 hyper-parameters (the names are GPT2Config's, so `transformers.GPT2Config(**cfg.to_dict())` works
    for every field but `dtype`)."""
    vocab_size: int = 256
    n_positions: int = 512
    n_embd: int = 128
    n_layer: int = 4
    n_head: int = 4
    layer_norm_epsilon: float = 1e-5
    dtype: str = "float32"

    def __post_init__(self):
        self.validate()

    def validate(self):
        """Raise ValueError naming the first field outside its allowed range."""
        for name in ("vocab_size", "n_positions", "n_embd", "n_layer", "n_head"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"GPTConfig.{name} must be a positive int, but got {value!r}.")
        if self.n_embd % self.n_head:
            raise ValueError(f"GPTConfig.n_embd ({self.n_embd}) must be divisible by n_head ({self.n_head}).")
        eps = self.layer_norm_epsilon
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not eps > 0:
            raise ValueError(f"GPTConfig.layer_norm_epsilon must be a positive number, but got {eps!r}.")
        if self.dtype not in _DTYPES:
            raise ValueError(f"GPTConfig.dtype must be one of {list(_DTYPES)}, but got {self.dtype!r}.")

    @property
    def head_dim(self):
        return self.n_embd // self.n_head

    def to_dict(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d):
        """Build from a dict (unknown keys, such as other GPT2Config fields, are an error naming them)."""
        if not isinstance(d, dict):
            raise TypeError(f"GPTConfig.from_dict expects a dict, but got {type(d).__name__}.")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"GPTConfig.from_dict: unknown field(s) {unknown}; expected some of {sorted(known)}.")
        return cls(**d)

    @classmethod
    def load(cls, path):
        """Read a config JSON file written by `save`."""
        with open(path, encoding="utf-8") as f:
            try:
                d = json.load(f)
            except json.JSONDecodeError as e:
                raise ValueError(f"GPTConfig.load: {path} is not valid JSON ({e}).") from None
        return cls.from_dict(d)

    def save(self, path):
        """Write the config as JSON (atomically: a temp file renamed into place)."""
        from ..common.files import write_atomic
        write_atomic(str(path), [json.dumps(self.to_dict(), indent=2).encode("utf-8")], read_only=False)
