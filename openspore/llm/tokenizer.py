"""Tokenizers for the LLM servable: a byte-level one (no training, any text) and a byte-level BPE built on the
maintained Hugging Face `tokenizers` library, with one interface (LLM_API.md):

    encode(str) -> list[int]; decode(list[int]) -> str; eos_token_id; vocab_size; save(dir); load(dir);
    apply_chat_template(messages) -> str

`load_tokenizer(dir)` reads back whichever kind `save` wrote (the folder's tokenizer_config.json names it).
`StreamDecoder` turns a stream of token ids into text deltas without ever emitting half a UTF-8 character, which
is what a streaming server needs (one token may be a fraction of a character).

>>> tok = ByteTokenizer()
>>> ids = tok.encode("héllo")
>>> len(ids), tok.decode(ids)
(6, 'héllo')
>>> tok.decode(tok.encode("a<|endoftext|>b"), skip_special_tokens=False)
'a<|endoftext|>b'
"""
import json
import os
import re

from openspore.common.files import write_atomic

EOS_TOKEN = "<|endoftext|>"
CONFIG_FILE = "tokenizer_config.json"
BPE_FILE = "tokenizer.json"
CHAT_ROLES = ("system", "user", "assistant")


def _chat_text(messages, add_generation_prompt):
    """The simple chat template shared by both tokenizers: one `<|role|>` line then the content, per message."""
    if not isinstance(messages, (list, tuple)) or not messages:
        raise ValueError(f"chat messages should be a non-empty list of {{'role', 'content'}} dicts, but got "
                         f"{type(messages).__name__} {messages!r:.80}")
    parts = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or "role" not in message or "content" not in message:
            raise ValueError(f"chat message {i} should be a dict with 'role' and 'content', but got {message!r:.80}")
        role, content = message["role"], message["content"]
        if role not in CHAT_ROLES:
            raise ValueError(f"chat message {i} has role {role!r}; expected one of {', '.join(CHAT_ROLES)}")
        if isinstance(content, list):  # OpenAI's content parts: [{"type": "text", "text": ...}, ...]
            texts = []
            for part in content:
                if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                    raise ValueError(f"chat message {i}: only text content parts ({{'type': 'text', 'text': str}}) "
                                     f"are supported, but got {part!r:.80}")
                texts.append(part["text"])
            content = "".join(texts)
        if not isinstance(content, str):
            raise ValueError(f"chat message {i}: content should be a string, but got {type(content).__name__}")
        parts.append(f"<|{role}|>\n{content}\n")
    if add_generation_prompt:
        parts.append("<|assistant|>\n")
    return "".join(parts)


def _check_ids(ids, vocab_size):
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
        raise ValueError(f"token ids should be a list of ints, but got {type(ids).__name__}")
    out = []
    for i, t in enumerate(ids):
        if isinstance(t, bool) or not hasattr(t, "__index__"):
            raise ValueError(f"token id at position {i} should be an int, but got {type(t).__name__} {t!r:.40}")
        t = t.__index__()
        if not 0 <= t < vocab_size:
            raise ValueError(f"token id at position {i} is {t}; expected 0 <= id < vocab_size={vocab_size}")
        out.append(t)
    return out


def _write_json(path, obj):
    write_atomic(path, [json.dumps(obj, indent=2).encode()], read_only=False)


def _read_config(directory):
    path = os.path.join(directory, CONFIG_FILE)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"tokenizer folder {directory} does not exist")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{directory} is not a tokenizer folder: it has no {CONFIG_FILE} (written by "
                                "tokenizer.save(folder))")
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the tokenizer config {path}: {exc}") from None
    if not isinstance(config, dict) or "tokenizer_class" not in config:
        raise ValueError(f"the tokenizer config {path} should be a JSON object with 'tokenizer_class'")
    return config


class _Tokenizer:
    """What both kinds share: the chat template, the special-token split and the stream decoder."""
    eos_token = EOS_TOKEN

    def apply_chat_template(self, messages, add_generation_prompt=True):
        """Messages [{"role": "system"|"user"|"assistant", "content": str}] → the prompt text.

        >>> ByteTokenizer().apply_chat_template([{"role": "user", "content": "hi"}])
        '<|user|>\\nhi\\n<|assistant|>\\n'
        """
        return _chat_text(messages, add_generation_prompt)

    def _check_text(self, text):
        if not isinstance(text, str):
            raise ValueError(f"{type(self).__name__}.encode expects a str, but got {type(text).__name__}")
        return text

    def __repr__(self):
        return f"{type(self).__name__}(vocab_size={self.vocab_size}, eos_token_id={self.eos_token_id})"


class ByteTokenizer(_Tokenizer):
    """UTF-8 bytes are ids 0..255; `<|endoftext|>` is id 256 (vocab_size 257). Needs no training, never fails
    on text, and any id sequence decodes (invalid UTF-8 becomes U+FFFD)."""
    vocab_size = 257
    eos_token_id = 256

    def encode(self, text):
        """Text → byte ids; the literal `<|endoftext|>` in the text becomes the eos id.

        >>> ByteTokenizer().encode("hi")
        [104, 105]
        """
        ids = []
        for i, piece in enumerate(self._check_text(text).split(EOS_TOKEN)):
            if i:
                ids.append(self.eos_token_id)
            ids.extend(piece.encode("utf-8"))
        return ids

    def decode(self, ids, skip_special_tokens=True):
        """Byte ids → text; the eos id is dropped (or written as `<|endoftext|>`)."""
        out, chunk = [], bytearray()
        for t in _check_ids(ids, self.vocab_size):
            if t < 256:
                chunk.append(t)
                continue
            out.append(chunk.decode("utf-8", errors="replace"))
            chunk = bytearray()
            if not skip_special_tokens:
                out.append(EOS_TOKEN)
        out.append(chunk.decode("utf-8", errors="replace"))
        return "".join(out)

    def save(self, directory):
        os.makedirs(directory, exist_ok=True)
        _write_json(os.path.join(directory, CONFIG_FILE),
                    {"tokenizer_class": "ByteTokenizer", "eos_token": EOS_TOKEN, "vocab_size": self.vocab_size})

    @classmethod
    def load(cls, directory):
        config = _read_config(directory)
        if config["tokenizer_class"] != "ByteTokenizer":
            raise ValueError(f"{directory} holds a {config['tokenizer_class']}, not a ByteTokenizer; use "
                             "load_tokenizer(folder) to load either kind")
        return cls()


class BPETokenizer(_Tokenizer):
    """Byte-level BPE (GPT-2 style) from the `tokenizers` library; `<|endoftext|>` is a special token.

    >>> tok = BPETokenizer.train(["the cat sat on the mat"] * 20, vocab_size=280)
    >>> tok.decode(tok.encode("the cat"))
    'the cat'
    """

    def __init__(self, hf_tokenizer):
        eos = hf_tokenizer.token_to_id(EOS_TOKEN)
        if eos is None:
            raise ValueError(f"the tokenizers.Tokenizer has no {EOS_TOKEN!r} token; train it with "
                             "BPETokenizer.train or add it as a special token")
        self._tok = hf_tokenizer
        self.eos_token_id = eos
        self.vocab_size = hf_tokenizer.get_vocab_size(with_added_tokens=True)

    @classmethod
    def train(cls, texts, vocab_size=512, min_frequency=2):
        """Learn merges from an iterable of strings; every byte is in the alphabet, so no text is unknown."""
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
        if vocab_size < 257:
            raise ValueError(f"vocab_size should be at least 257 (256 byte symbols + {EOS_TOKEN}), but got "
                             f"{vocab_size}")
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency, show_progress=False,
                                      special_tokens=[EOS_TOKEN],
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
        tok.train_from_iterator(texts, trainer)
        return cls(tok)

    def encode(self, text):
        return self._tok.encode(self._check_text(text), add_special_tokens=False).ids

    def decode(self, ids, skip_special_tokens=True):
        return self._tok.decode(_check_ids(ids, self.vocab_size), skip_special_tokens=skip_special_tokens)

    def save(self, directory):
        os.makedirs(directory, exist_ok=True)
        write_atomic(os.path.join(directory, BPE_FILE), [self._tok.to_str().encode()], read_only=False)
        _write_json(os.path.join(directory, CONFIG_FILE),
                    {"tokenizer_class": "BPETokenizer", "eos_token": EOS_TOKEN, "vocab_size": self.vocab_size})

    @classmethod
    def load(cls, directory):
        from tokenizers import Tokenizer
        config = _read_config(directory)
        if config["tokenizer_class"] != "BPETokenizer":
            raise ValueError(f"{directory} holds a {config['tokenizer_class']}, not a BPETokenizer; use "
                             "load_tokenizer(folder) to load either kind")
        path = os.path.join(directory, BPE_FILE)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"the BPE tokenizer folder {directory} lacks {BPE_FILE}")
        try:
            return cls(Tokenizer.from_file(path))
        except Exception as exc:  # the library raises a bare Exception on a malformed file
            raise ValueError(f"cannot read the BPE tokenizer {path}: {exc}") from None


KINDS = {"ByteTokenizer": ByteTokenizer, "BPETokenizer": BPETokenizer}


def load_tokenizer(directory):
    """Load the tokenizer `save(directory)` wrote, whichever kind.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     ByteTokenizer().save(d)
    ...     load_tokenizer(d).vocab_size
    257
    """
    config = _read_config(directory)
    kind = KINDS.get(config["tokenizer_class"])
    if kind is None:
        raise ValueError(f"{directory}: unknown tokenizer_class {config['tokenizer_class']!r}; expected one of "
                         f"{', '.join(KINDS)}")
    return kind.load(directory)


def settled_text(tokenizer, ids, final=False, skip_special_tokens=True):
    """`ids` decoded; unless `final`, without a trailing U+FFFD run short enough (≤ 3) to be a character whose
    last bytes have not arrived yet — the text a stream can send now.

    >>> settled_text(ByteTokenizer(), list("é".encode())[:1]), settled_text(ByteTokenizer(), [195], final=True)
    ('', '\ufffd')
    """
    # the plain decode(ids) call is all a user's tokenizer object has to offer (serving accepts any such object)
    full = tokenizer.decode(ids) if skip_special_tokens else tokenizer.decode(ids, skip_special_tokens=False)
    return full if final else settled(full)


def settled(text):
    """`text` without a trailing U+FFFD run short enough (≤ 3) to be a character whose last bytes are still to come.

    >>> settled("ab\ufffd"), settled("ab")
    ('ab', 'ab')
    """
    held = _INCOMPLETE.search(text)
    if held and len(text) - held.start() <= 3:
        return text[:held.start()]
    return text


_INCOMPLETE = re.compile("\ufffd+$")


class StreamDecoder:
    """Token ids in, text deltas out, holding back a trailing incomplete UTF-8 character until its last byte
    arrives. `text` is everything emitted so far.

    >>> dec = StreamDecoder(ByteTokenizer())
    >>> [dec.push([t]) for t in "é!".encode()]
    ['', 'é', '!']
    """
    def __init__(self, tokenizer, skip_special_tokens=True):
        self.tokenizer, self.skip_special_tokens = tokenizer, skip_special_tokens
        self.ids, self.text = [], ""

    def push(self, ids):
        self.ids.extend(ids)
        full = settled_text(self.tokenizer, self.ids, skip_special_tokens=self.skip_special_tokens)
        if not full.startswith(self.text):  # a later byte changed an earlier character: emit nothing until settled
            return ""
        delta, self.text = full[len(self.text):], full
        return delta

    def flush(self):
        """The rest, including replacement characters for bytes that never formed a character."""
        full = settled_text(self.tokenizer, self.ids, final=True, skip_special_tokens=self.skip_special_tokens)
        delta = full[len(self.text):] if full.startswith(self.text) else ""
        self.text = full
        return delta
