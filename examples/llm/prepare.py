"""Train a small GPT on the project's own documentation and write the `gpt` servable's model files, so that
`openspore serve examples/llm` serves it (REST on 127.0.0.1:1500, OpenAI-compatible routes under /v1).

    python examples/llm/prepare.py                       # 300 steps; writes examples/llm/gpt/1/ (docs/llm.md)
    python examples/llm/prepare.py --steps 20            # a quick, barely trained model (tests)
    python examples/llm/prepare.py --tokenizer byte --text my_corpus.txt

The text is README.md and docs/**/*.md of this repository (nothing is downloaded); --text FILE trains on other
text. A byte-level BPE (the `tokenizers` library, --tokenizer bpe, the default) or a plain byte tokenizer
(--tokenizer byte) is trained on the text first. Training runs in GRAPH_MODE through `Model` and
`nn.TrainOneStepCell` (a progress bar on a terminal, the loss every --log-every steps). The version folder
(gpt/1/ by default) gets:

    gpt.ckpt        the weights, MindSpore's checkpoint format (ms.load_checkpoint reads it)
    config.json     the GPTConfig (GPT-2 hyper-parameters)
    tokenizer/      the tokenizer (openspore.llm.tokenizer.load_tokenizer reads it)

Finally a few prompts are completed by the paged-KV engine (openspore.llm.LLMEngine); the samples should read
like the documentation.
"""
import argparse
import glob
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SERVABLE = "gpt"
SAMPLE_PROMPTS = ["openspore serve", "The dataset", "Graph mode"]


def corpus_files(text_files):
    if text_files:
        missing = [p for p in text_files if not os.path.isfile(p)]
        if missing:
            raise SystemExit(f"prepare.py: --text file(s) not found: {', '.join(missing)}")
        return list(text_files)
    files = [os.path.join(REPO, "README.md")] + sorted(glob.glob(os.path.join(REPO, "docs", "**", "*.md"),
                                                                recursive=True))
    files = [p for p in files if os.path.isfile(p)]
    if not files:
        raise SystemExit(f"prepare.py: no README.md or docs/*.md under {REPO}; pass --text FILE")
    return files


def read_documents(files):
    docs = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read().strip()
        if text:
            docs.append(text)
    return docs


def build_tokenizer(kind, docs, vocab_size):
    from openspore.llm.tokenizer import BPETokenizer, ByteTokenizer
    if kind == "byte":
        return ByteTokenizer()
    return BPETokenizer.train(docs, vocab_size=vocab_size)


def token_stream(tokenizer, docs):
    """All documents as one id array, an end-of-text token after each (so the model learns to stop)."""
    ids = []
    for doc in docs:
        ids.extend(tokenizer.encode(doc))
        ids.append(tokenizer.eos_token_id)
    return np.asarray(ids, np.int32)


def training_windows(stream, steps, batch, context, seed):
    """`steps * batch` random windows of context+1 tokens: inputs are the first `context`, labels the next ones."""
    if len(stream) < context + 2:
        raise SystemExit(f"prepare.py: the text has {len(stream)} tokens, fewer than --context {context} + 2")
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, len(stream) - context - 1, size=steps * batch)
    windows = np.stack([stream[s:s + context + 1] for s in starts])
    return windows[:, :-1].copy(), windows[:, 1:].copy()


def learning_rates(peak, steps):
    """Linear warm-up over the first 5% of the steps, then cosine decay to a tenth of the peak."""
    warm = max(1, steps // 20)
    out = []
    for s in range(steps):
        if s < warm:
            out.append(peak * (s + 1) / warm)
        else:
            progress = (s - warm) / max(1, steps - warm)
            out.append(peak * (0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * progress))))
    return out


def make_loss_cell(net, vocab_size):
    from openspore import nn, ops

    class LMLoss(nn.Cell):
        """Mean next-token cross-entropy of the GPT's logits over every position."""

        def __init__(self):
            super().__init__(auto_prefix=False)  # keep the GPT's own parameter names in the checkpoint
            self.net = net
            self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

        def construct(self, input_ids, labels):
            logits = self.net(input_ids)
            return self.loss(ops.reshape(logits, (-1, vocab_size)), ops.reshape(labels, (-1,)))

    return LMLoss()


def train(args, tokenizer, stream):
    import openspore as ms
    from openspore import nn
    from openspore import dataset as ds
    from openspore.llm import GPT, GPTConfig
    from openspore.train.callback import LossMonitor

    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(args.seed)
    config = GPTConfig(vocab_size=tokenizer.vocab_size, n_positions=args.n_positions, n_embd=args.n_embd,
                       n_layer=args.n_layer, n_head=args.n_head)
    net = GPT(config)
    inputs, labels = training_windows(stream, args.steps, args.batch_size, args.context, args.seed)
    data = ds.NumpySlicesDataset({"input_ids": inputs, "labels": labels}, shuffle=False).batch(args.batch_size)
    optimizer = nn.Adam(net.trainable_params(), learning_rate=learning_rates(args.lr, args.steps))
    model = ms.Model(nn.TrainOneStepCell(make_loss_cell(net, config.vocab_size), optimizer))
    n_params = sum(int(np.prod(p.shape)) for p in net.trainable_params())
    print(f"training a {n_params / 1e6:.2f}M-parameter GPT ({config.n_layer} layers, {config.n_embd} wide, "
          f"vocab {config.vocab_size}) for {args.steps} steps of {args.batch_size}x{args.context} tokens",
          flush=True)
    t0 = time.perf_counter()
    model.train(1, data, callbacks=[LossMonitor(args.log_every)], dataset_sink_mode=False)
    print(f"trained in {time.perf_counter() - t0:.1f} s", flush=True)
    net.set_train(False)
    return net, config


def evaluate_loss(net, stream, context, vocab_size):
    """Mean next-token loss on a few windows of the text (the training text: how well it was learnt)."""
    import openspore as ms
    inputs, labels = training_windows(stream, 1, 8, context, seed=12345)
    logits = net(ms.Tensor(inputs)).asnumpy().reshape(-1, vocab_size).astype(np.float64)
    logits -= logits.max(-1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    return float(-logp[np.arange(len(logp)), labels.reshape(-1)].mean())


def write_servable(version_dir, net, config, tokenizer):
    import openspore as ms
    os.makedirs(version_dir, exist_ok=True)
    ms.save_checkpoint(net, os.path.join(version_dir, "gpt.ckpt"))
    config.save(os.path.join(version_dir, "config.json"))
    tokenizer.save(os.path.join(version_dir, "tokenizer"))


def show_samples(net, tokenizer, max_tokens, seed):
    from openspore.llm import LLMEngine, SamplingParams, generate
    engine = LLMEngine(net, block_size=16, max_batch_size=len(SAMPLE_PROMPTS))
    prompts = [tokenizer.encode(p) for p in SAMPLE_PROMPTS]
    # a small model's greedy text soon loops; the penalty on tokens already seen keeps it moving
    greedy = generate(engine, prompts, SamplingParams(max_tokens=max_tokens, temperature=0.0, repetition_penalty=1.3,
                                                      stop_token_ids=(tokenizer.eos_token_id,)))
    sampled = generate(engine, prompts, [SamplingParams(max_tokens=max_tokens, temperature=0.8, top_k=40,
                                                        stop_token_ids=(tokenizer.eos_token_id,), seed=seed + i)
                                         for i in range(len(prompts))])
    for kind, outputs in (("greedy (repetition penalty 1.3)", greedy), ("sampled (T=0.8, top-k 40)", sampled)):
        print(f"--- {kind}")
        for prompt, out in zip(SAMPLE_PROMPTS, outputs):
            print(json.dumps(prompt + tokenizer.decode(out), ensure_ascii=False))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300, help="training steps (default 300)")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--context", type=int, default=128, help="tokens per training window (default 128)")
    parser.add_argument("--lr", type=float, default=5e-3, help="peak learning rate (default 5e-3)")
    parser.add_argument("--tokenizer", choices=["bpe", "byte"], default="bpe")
    parser.add_argument("--vocab-size", type=int, default=512, help="BPE vocabulary size (default 512)")
    parser.add_argument("--n-layer", type=int, default=4)
    parser.add_argument("--n-embd", type=int, default=128)
    parser.add_argument("--n-head", type=int, default=4)
    parser.add_argument("--n-positions", type=int, default=512, help="longest prompt + completion (default 512)")
    parser.add_argument("--text", nargs="+", metavar="FILE", help="train on these UTF-8 text files instead")
    parser.add_argument("--servable-dir", default=HERE, help="the servable directory holding gpt/ (default: here)")
    parser.add_argument("--version", type=int, default=1, help="version folder to write (default 1)")
    parser.add_argument("--sample-tokens", type=int, default=48, help="tokens per sample at the end (0 = none)")
    parser.add_argument("--log-every", type=int, default=50, help="print the loss every N steps (default 50)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for name in ("steps", "batch_size", "context", "n_positions", "log_every", "version"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} should be at least 1, but got {getattr(args, name)}")
    if args.context > args.n_positions:
        parser.error(f"--context ({args.context}) should not exceed --n-positions ({args.n_positions})")
    return args


def main(argv=None):
    sys.stdout.reconfigure(line_buffering=True)  # the loss lines appear as they come, in a log file too
    args = parse_args(argv)
    docs = read_documents(corpus_files(args.text))
    tokenizer = build_tokenizer(args.tokenizer, docs, args.vocab_size)
    stream = token_stream(tokenizer, docs)
    print(f"text: {len(docs)} documents, {sum(len(d) for d in docs)} characters, {len(stream)} tokens "
          f"({type(tokenizer).__name__}, vocab {tokenizer.vocab_size})", flush=True)
    net, config = train(args, tokenizer, stream)
    print(f"loss on training windows: {evaluate_loss(net, stream, args.context, config.vocab_size):.3f} "
          f"(uniform guessing: {np.log(config.vocab_size):.3f})", flush=True)
    version_dir = os.path.join(args.servable_dir, SERVABLE, str(args.version))
    write_servable(version_dir, net, config, tokenizer)
    print(f"wrote {version_dir}: gpt.ckpt, config.json, tokenizer/", flush=True)
    if args.sample_tokens:
        show_samples(net, tokenizer, args.sample_tokens, args.seed)
    print(f"serve it: openspore serve {args.servable_dir}", flush=True)


if __name__ == "__main__":
    main()
