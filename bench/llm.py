"""LLM serving benchmark: openspore's paged-KV engine and continuous-batching server against Hugging Face
`transformers` (`GPT2LMHeadModel`, the same architecture and the same weights, torch CPU) on this machine.

    python bench/llm.py                                  # engine table + serving table, 3 rounds
    python bench/llm.py --model-dir examples/llm/gpt/1 --clients 16 --requests-per-client 2 --rounds 5
    python bench/llm.py --skip-engine --modes cb single  # only the server, no HF row

Tables (medians over --rounds; each round runs every framework/mode back to back, so a burst of load from other
processes on a shared machine lands on all of them — compare the ratios, not the absolute numbers):

1. engine: prefill tokens/s (a batch of --engine-batch prompts of --engine-prompt tokens) and decode tokens/s
   (that batch decoding --engine-steps tokens) — `LLMEngine.prefill/decode` vs HF's forward with `past_key_values`.
2. serving: --clients concurrent streaming clients (SSE over `POST /v1/completions`, token-id prompts,
   `ignore_eos`; all clients are coroutines of one asyncio loop reading raw HTTP, so the clients cost little of
   the cores the server runs on), each sending --requests-per-client requests back to back, prompt and output
   lengths drawn from --prompt-len and --output-len; generated tokens/s, time-to-first-token p50/p99, requests
   completed with exactly their requested tokens, and tokens per CPU-second (the clients' plus the server
   processes' CPU time, or HF's): on a loaded machine a multi-process server gets a larger share of the cores than
   single-threaded HF, so compare the CPU column too. Modes: `cb` = the real `openspore serve` with continuous
   batching (up to --clients sequences decoded together), `single` = the same server admitting one request at a
   time (max_running=1, its engine compiled for one sequence); both stream with --stream-interval-ms (first token
   at once, then at most one message per interval),
   `hf` = HF `generate` on batches of --clients requests in arrival order (left-padded, greedy, no server: the
   reference row; its TTFT is when the batch's first token exists).
3. tensor-parallel: `TensorParallelEngine` prefill/decode tokens/s over --tp-sizes processes (Gloo on 127.0.0.1),
   from bench/llm_tp.py; `--tp-sizes` with no value skips it.

The model is --model-dir (a version folder written by examples/llm/prepare.py: gpt.ckpt, config.json,
tokenizer/) or, by default when examples/llm/gpt/1 does not exist, a randomly initialised 4-layer, 128-wide GPT
with a 1024-token BPE vocabulary (throughput does not depend on the weights' values). Everything runs on 127.0.0.1 with an
ephemeral port, --threads torch threads for both sides, and stops by itself. On a machine shared with other
work use --threads 1: OpenMP threads spinning on oversubscribed cores made a 2-thread decode step 30x slower here.
"""
import argparse
import asyncio
import json
import os
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

DEFAULT_MODEL_DIR = os.path.join(REPO, "examples", "llm", "gpt", "1")
SERVABLE_CONFIG = """
from openspore.serving.server import register

register.declare_llm_servable(checkpoint={ckpt!r}, config={config!r}, tokenizer={tokenizer!r},
                              max_queue=256, max_running={max_running}, block_size=16,
                              max_batch_size={max_batch}, num_blocks={num_blocks}, max_model_len={max_len},
                              stream_interval_ms={interval})
"""
MODES = ("cb", "single", "hf")
MODE_NAMES = {"cb": "openspore continuous batching", "single": "openspore request-at-a-time",
              "hf": "HF transformers generate (batched)"}


# ---- the model: one set of weights for both frameworks --------------------------------------------------------
def model_files(args, workdir):
    """(checkpoint, config.json, tokenizer folder, description) — from --model-dir, or a random GPT written here."""
    folder = args.model_dir or (DEFAULT_MODEL_DIR if os.path.isfile(os.path.join(DEFAULT_MODEL_DIR, "gpt.ckpt"))
                                else None)
    if folder:
        ckpt, config = os.path.join(folder, "gpt.ckpt"), os.path.join(folder, "config.json")
        for path in (ckpt, config):
            if not os.path.isfile(path):
                raise SystemExit(f"bench/llm.py: {path} is missing; run examples/llm/prepare.py or pass --model-dir")
        tok = os.path.join(folder, "tokenizer")
        if not os.path.isdir(tok):
            raise SystemExit(f"bench/llm.py: {tok} is missing (the server decodes the generated ids with it)")
        return ckpt, config, tok, folder
    import glob

    import openspore as ms
    from openspore.llm import GPT, GPTConfig
    from openspore.llm.tokenizer import BPETokenizer
    docs = []
    for path in [os.path.join(REPO, "README.md")] + sorted(glob.glob(os.path.join(REPO, "docs", "*.md"))):
        with open(path, encoding="utf-8") as f:
            docs.append(f.read())
    tokenizer = BPETokenizer.train(docs, vocab_size=1024)  # the server returns text: the ids need a tokenizer
    tok_dir = os.path.join(workdir, "tokenizer")
    tokenizer.save(tok_dir)
    ms.set_seed(0)
    config = GPTConfig(vocab_size=tokenizer.vocab_size, n_positions=512, n_embd=128, n_layer=4, n_head=4)
    ckpt, config_path = os.path.join(workdir, "gpt.ckpt"), os.path.join(workdir, "config.json")
    ms.save_checkpoint(GPT(config), ckpt)
    config.save(config_path)
    return ckpt, config_path, tok_dir, "random weights (seed 0)"


def hf_model(ckpt, config_path, threads):
    """GPT2LMHeadModel holding the checkpoint's weights (openspore.llm.model.to_hf_gpt2_state_dict)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    import openspore as ms
    from openspore.llm import GPTConfig
    from openspore.llm.model import to_hf_gpt2_state_dict
    torch.set_num_threads(threads)
    cfg = GPTConfig.load(config_path)
    hf_cfg = GPT2Config(vocab_size=cfg.vocab_size, n_positions=cfg.n_positions, n_embd=cfg.n_embd,
                        n_layer=cfg.n_layer, n_head=cfg.n_head, layer_norm_epsilon=cfg.layer_norm_epsilon,
                        activation_function="gelu_new", resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                        bos_token_id=0, eos_token_id=None, pad_token_id=0, tie_word_embeddings=True)
    model = GPT2LMHeadModel(hf_cfg).eval()
    state = {k: torch.from_numpy(np.array(v)) for k, v in to_hf_gpt2_state_dict(ms.load_checkpoint(ckpt)).items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    params = {name for name, _ in model.named_parameters()}
    if unexpected or [m for m in missing if m in params and m != "lm_head.weight"]:
        raise SystemExit(f"bench/llm.py: the HF model did not take the weights: missing {missing}, "
                         f"unexpected {unexpected}")
    return model, cfg


def check_same_model(ckpt, cfg, hf):
    """Max |logits difference| of openspore's GPT and the HF model on one prompt: the reference is the same model."""
    import torch

    import openspore as ms
    from openspore.llm import GPT
    net = GPT(cfg)
    ms.load_param_into_net(net, ms.load_checkpoint(ckpt))
    net.set_train(False)
    ids = np.random.default_rng(1).integers(0, cfg.vocab_size, (1, 24)).astype(np.int32)
    ours = net(ms.Tensor(ids)).asnumpy()
    with torch.no_grad():
        theirs = hf(torch.from_numpy(ids.astype(np.int64))).logits.numpy()
    return float(np.abs(ours - theirs).max())


# ---- 1. engine: prefill and decode tokens/s ------------------------------------------------------------------
def engine_openspore(engine, prompts, steps):
    """Seconds for one prefill of every prompt, and for `steps` decode steps of them all."""
    seq_ids = list(range(len(prompts)))
    t0 = time.perf_counter()
    logits = engine.prefill(seq_ids, prompts)
    t1 = time.perf_counter()
    tokens = [int(t) for t in logits.argmax(-1)]
    for _ in range(steps):
        tokens = [int(t) for t in engine.decode(seq_ids, tokens).argmax(-1)]
    t2 = time.perf_counter()
    for s in seq_ids:
        engine.free(s)
    return t1 - t0, t2 - t1


def engine_hf(model, prompts, steps):
    import torch
    ids = torch.tensor(np.asarray(prompts, np.int64))
    with torch.no_grad():
        t0 = time.perf_counter()
        out = model(ids, use_cache=True)
        t1 = time.perf_counter()
        past, tokens = out.past_key_values, out.logits[:, -1].argmax(-1, keepdim=True)
        for _ in range(steps):
            out = model(tokens, past_key_values=past, use_cache=True)
            past, tokens = out.past_key_values, out.logits[:, -1].argmax(-1, keepdim=True)
        t2 = time.perf_counter()
    return t1 - t0, t2 - t1


# ---- 2. serving: streaming clients against the real server, and HF generate batched ------------------------
def workload(args, vocab_size):
    """Per client, a list of (prompt token ids, output length): lengths uniform in the given ranges."""
    rng = np.random.default_rng(args.seed)
    lo_p, hi_p = args.prompt_len
    lo_o, hi_o = args.output_len
    return [[(rng.integers(1, vocab_size, int(rng.integers(lo_p, hi_p + 1))).tolist(), int(rng.integers(lo_o, hi_o + 1)))
             for _ in range(args.requests_per_client)] for _ in range(args.clients)]


async def stream_completion(address, model, prompt, max_tokens, timeout):
    """One streaming /v1/completions request over a raw asyncio connection (HTTP/1.1, chunked SSE) →
    (ttft seconds, total seconds, completion tokens, error or None). A hand-rolled reader keeps the client's CPU
    small: all clients share one event loop on the same cores as the server they measure."""
    host, port = address.rsplit(":", 1)
    body = json.dumps({"model": model, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0,
                       "ignore_eos": True, "stream": True, "stream_options": {"include_usage": True}}).encode()
    head = (f"POST /v1/completions HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    t0 = time.perf_counter()
    ttft, tokens, writer = None, None, None
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, int(port))
            writer.write(head + body)
            status = (await reader.readline()).split()
            headers = {}
            while (line := await reader.readline()) not in (b"\r\n", b""):
                key, _, value = line.decode("latin-1").partition(":")
                headers[key.strip().lower()] = value.strip()
            if len(status) < 2 or status[1] != b"200":
                return None, time.perf_counter() - t0, 0, f"HTTP {status!r}: {(await reader.read(200))!r}"
            chunked = headers.get("transfer-encoding", "").lower() == "chunked"
            pending, done = b"", False
            while not done:
                if chunked:
                    size = int((await reader.readline()).split(b";")[0], 16)
                    if size == 0:
                        break
                    data = await reader.readexactly(size + 2)
                    pending += data[:-2]
                else:
                    data = await reader.read(65536)
                    if not data:
                        break
                    pending += data
                *events, pending = pending.split(b"\n\n")
                for event in events:
                    if not event.startswith(b"data: "):
                        continue
                    if event[6:] == b"[DONE]":
                        done = True
                        break
                    message = json.loads(event[6:])
                    if "error" in message:
                        return ttft, time.perf_counter() - t0, tokens or 0, f"error event: {message['error']}"
                    if ttft is None and message.get("choices") and message["choices"][0].get("text"):
                        ttft = time.perf_counter() - t0
                    if message.get("usage"):
                        tokens = message["usage"]["completion_tokens"]
    except (OSError, ValueError, asyncio.IncompleteReadError, TimeoutError) as exc:
        return ttft, time.perf_counter() - t0, tokens or 0, f"{type(exc).__name__}: {exc}"
    finally:
        if writer is not None:
            writer.close()
    return ttft, time.perf_counter() - t0, tokens or 0, None if tokens is not None else "no usage event"


def run_clients(address, model, work, timeout):
    """Every client a coroutine of one event loop (one thread), its requests back to back → result dict."""
    async def main():
        results = []

        async def client(requests):
            for prompt, n in requests:
                ttft, total, got, error = await stream_completion(address, model, prompt, n, timeout)
                results.append((ttft, total, got, n, error))

        t0 = time.perf_counter()
        await asyncio.gather(*(client(requests) for requests in work))
        return summarize(results, time.perf_counter() - t0)
    return asyncio.run(main())


def tree_cpu_seconds(pid):
    """User + system CPU seconds of a live process and its live descendants (Linux /proc; 0 elsewhere)."""
    total, todo = 0.0, [pid]
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick   # utime, stime
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError, IndexError):
            continue
    return total


def measured(fn, server_pid=None):
    """Run fn() → its result dict plus `cpu_s`: the CPU seconds this process (the clients, or HF) and the
    server's processes spent meanwhile — tokens per CPU-second compare the work done, whatever share of a loaded
    machine each side got."""
    c0, s0 = time.process_time(), tree_cpu_seconds(server_pid) if server_pid else 0.0
    row = fn()
    row["client_cpu_s"] = time.process_time() - c0     # the clients' event loop, or HF
    row["server_cpu_s"] = (tree_cpu_seconds(server_pid) - s0) if server_pid else 0.0
    row["cpu_s"] = row["client_cpu_s"] + row["server_cpu_s"]
    row["tok_cpu_s"] = row["tokens"] / row["cpu_s"] if row["cpu_s"] > 0 else float("nan")
    return row


def summarize(results, wall):
    ttfts = sorted(r[0] for r in results if r[0] is not None)
    complete = sum(1 for r in results if r[4] is None and r[2] == r[3])
    errors = [r[4] for r in results if r[4]]
    return {"wall_s": wall, "tokens": sum(r[2] for r in results), "tok_s": sum(r[2] for r in results) / wall,
            "ttft_p50": percentile(ttfts, 50), "ttft_p99": percentile(ttfts, 99), "requests": len(results),
            "complete": complete, "errors": errors[:3]}


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    return float(np.percentile(np.asarray(sorted_values), q))


def run_hf_generate(model, work, batch_size):
    """Requests in arrival order (every client's first request, then every second one...) in batches of
    `batch_size`, left-padded, greedy, each batch running to its longest requested output."""
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    class FirstToken(StoppingCriteria):
        def __init__(self):
            self.at = None

        def __call__(self, input_ids, scores, **kwargs):
            if self.at is None:
                self.at = time.perf_counter()
            return torch.zeros(input_ids.shape[0], dtype=torch.bool)

    ordered = [r for round_ in zip(*work) for r in round_]
    results = []
    t0 = time.perf_counter()
    for i in range(0, len(ordered), batch_size):
        batch = ordered[i:i + batch_size]
        width = max(len(p) for p, _ in batch)
        ids = torch.zeros((len(batch), width), dtype=torch.int64)
        mask = torch.zeros_like(ids)
        for row, (p, _) in enumerate(batch):
            ids[row, width - len(p):] = torch.tensor(p)
            mask[row, width - len(p):] = 1
        longest = max(n for _, n in batch)
        first = FirstToken()
        with torch.no_grad():
            out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=longest, min_new_tokens=longest,
                                 do_sample=False, pad_token_id=0, stopping_criteria=StoppingCriteriaList([first]))
        generated = out.shape[1] - width
        for _, n in batch:  # a request's useful tokens are its own; the rest of the batch's run is padding work
            results.append((first.at - t0, time.perf_counter() - t0, min(n, generated), n, None))
    return summarize(results, time.perf_counter() - t0)


class Server:
    """`python -m openspore serve DIR --grpc none --rest 127.0.0.1:0` as a child process."""

    def __init__(self, directory, threads, timeout=300):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (REPO, os.environ.get("PYTHONPATH")) if p),
                   OMP_NUM_THREADS=str(threads))
        self.proc = subprocess.Popen([sys.executable, "-m", "openspore", "serve", directory, "--grpc", "none",
                                      "--rest", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, env=env)
        self.lines, self.output, self.address = queue.Queue(), [], None
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.proc.stdout], daemon=True).start()
        deadline = time.monotonic() + timeout
        while not any("ready; press Ctrl-C" in line for line in self.output):
            if self.proc.poll() is not None and self.lines.empty():
                raise SystemExit("bench/llm.py: the server exited:\n" + "".join(self.output))
            if time.monotonic() > deadline:
                self.stop()
                raise SystemExit("bench/llm.py: the server did not start:\n" + "".join(self.output))
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            self.output.append(line)
            found = re.search(r"RESTful server start success, listening on (\S+)", line)
            if found:
                self.address = found.group(1)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def write_servables(root, ckpt, config, tokenizer_dir, clients, max_len, interval):
    """Two servables over the same files: `gpt` (continuous batching, `clients` sequences at once) and
    `gpt_single` (one request at a time, its engine compiled for one sequence). Both hold sequences of up to
    `max_len` tokens, with blocks for `clients` of them."""
    blocks = clients * (-(-max_len // 16)) + 16
    for name, running in (("gpt", clients), ("gpt_single", 1)):
        os.makedirs(os.path.join(root, name, "1"))
        with open(os.path.join(root, name, "servable_config.py"), "w") as f:
            f.write(SERVABLE_CONFIG.format(ckpt=os.path.abspath(ckpt), config=os.path.abspath(config),
                                           tokenizer=os.path.abspath(tokenizer_dir), max_running=running,
                                           max_batch=running, num_blocks=blocks, max_len=max_len,
                                           interval=interval))


# ---- the report ---------------------------------------------------------------------------------------------
def median_of(rows, key):
    values = [r[key] for r in rows if r[key] == r[key]]  # drops NaN
    return statistics.median(values) if values else float("nan")


def print_engine_table(rows, args):
    print(f"\nengine: batch {args.engine_batch} x {args.engine_prompt}-token prompts, {args.engine_steps} decode "
          f"steps; median of {args.rounds} rounds; {args.threads} torch threads")
    print(f"{'framework':36s}{'prefill tok/s':>15s}{'decode tok/s':>14s}")
    for name, runs in rows.items():
        prefill = median_of([{"v": args.engine_batch * args.engine_prompt / p} for p, _ in runs], "v")
        decode = median_of([{"v": args.engine_batch * args.engine_steps / d} for _, d in runs], "v")
        print(f"{name:36s}{prefill:15.0f}{decode:14.0f}")


def print_serving_table(runs, args):
    print(f"\nserving: {args.clients} streaming clients x {args.requests_per_client} requests, prompt "
          f"{args.prompt_len[0]}-{args.prompt_len[1]} tokens, output {args.output_len[0]}-{args.output_len[1]} "
          f"tokens; median of {args.rounds} rounds")
    print(f"{'mode':36s}{'gen tok/s':>11s}{'TTFT p50 ms':>13s}{'TTFT p99 ms':>13s}{'complete':>10s}"
          f"{'tok/CPU-s':>11s}")
    medians = {}
    for mode in args.modes:
        rows = runs.get(mode, [])
        if not rows:
            continue
        medians[mode] = median_of(rows, "tok_s")
        complete = min(r["complete"] for r in rows)
        print(f"{MODE_NAMES[mode]:36s}{medians[mode]:11.1f}{median_of(rows, 'ttft_p50') * 1e3:13.0f}"
              f"{median_of(rows, 'ttft_p99') * 1e3:13.0f}{complete:>6d}/{rows[0]['requests']}"
              f"{median_of(rows, 'tok_cpu_s'):11.1f}")
        for r in rows:
            if r["errors"]:
                print(f"    errors ({mode}): {r['errors']}")
    if "cb" in medians:
        for other, bar in (("single", 3.0), ("hf", 1.5)):
            if other in medians and medians[other] > 0:
                ratio = medians["cb"] / medians[other]
                per_round = [a["tok_s"] / b["tok_s"] for a, b in zip(runs["cb"], runs[other]) if b["tok_s"] > 0]
                print(f"continuous batching / {MODE_NAMES[other]}: {ratio:.2f}x (bar >= {bar}x: "
                      f"{'met' if ratio >= bar else 'NOT met'}; per round {', '.join(f'{x:.2f}' for x in per_round)})")
                cpu = median_of(runs["cb"], "tok_cpu_s") / median_of(runs[other], "tok_cpu_s")
                print(f"    per CPU-second (tokens per CPU-second of clients + server, or of HF): {cpu:.2f}x")


def parse_range(text):
    lo, sep, hi = text.partition(":")
    try:
        lo, hi = int(lo), int(hi if sep else lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO:HI token counts, e.g. 16:128, but got {text!r}") from None
    if not 1 <= lo <= hi:
        raise argparse.ArgumentTypeError(f"expected 1 <= LO <= HI, but got {text!r}")
    return lo, hi


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", help="a version folder from examples/llm/prepare.py (gpt.ckpt, config.json)")
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--requests-per-client", type=int, default=2)
    ap.add_argument("--prompt-len", type=parse_range, default=(8, 128), metavar="LO:HI")
    ap.add_argument("--output-len", type=parse_range, default=(16, 128), metavar="LO:HI")
    ap.add_argument("--engine-batch", type=int, default=16)
    ap.add_argument("--engine-prompt", type=int, default=64)
    ap.add_argument("--engine-steps", type=int, default=32)
    ap.add_argument("--skip-engine", action="store_true", help="only the serving table")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--stream-interval-ms", type=float, default=50,
                    help="both servables' stream_interval_ms: a stream's messages at most this often (0: every step)")
    ap.add_argument("--threads", type=int, default=2, help="torch threads of each side (default 2)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per request at most")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tp-sizes", type=int, nargs="*", default=[1, 2], metavar="N",
                    help="process counts of the tensor-parallel table (default 1 2; none = skip it)")
    ap.add_argument("--json", help="also write the raw rounds here")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a terminated bench still stops its server
    workdir = tempfile.mkdtemp(prefix="openspore-bench-llm-")
    server = None
    try:
        ckpt, config_path, tok_dir, source = model_files(args, workdir)
        hf, cfg = hf_model(ckpt, config_path, args.threads) if "hf" in args.modes or not args.skip_engine \
            else (None, None)
        from openspore.llm import GPTConfig
        cfg = cfg or GPTConfig.load(config_path)
        longest = args.prompt_len[1] + args.output_len[1]
        max_len = min(cfg.n_positions, -(-longest // 16) * 16)  # the engines' max_model_len: what requests need
        if longest > cfg.n_positions:
            raise SystemExit(f"bench/llm.py: prompt + output up to {longest} tokens exceed the model's n_positions "
                             f"{cfg.n_positions}")
        print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
        print(f"model: {source}: {cfg.n_layer} layers, {cfg.n_embd} wide, {cfg.n_head} heads, vocab "
              f"{cfg.vocab_size}, n_positions {cfg.n_positions}; engines' max_model_len {max_len}")
        raw = {"engine": {}, "serving": {}}
        if not args.skip_engine:
            import torch

            from openspore.llm import LLMEngine
            torch.set_num_threads(args.threads)
            engine = LLMEngine.from_checkpoint(ckpt, config_path, block_size=16, max_batch_size=args.engine_batch,
                                               max_model_len=max(max_len, args.engine_prompt + args.engine_steps + 16))
            print(f"max |logits(openspore) - logits(HF)| on one prompt: {check_same_model(ckpt, cfg, hf):.2e}")
            rng = np.random.default_rng(args.seed)
            prompts = rng.integers(1, cfg.vocab_size, (args.engine_batch, args.engine_prompt)).tolist()
            engine_openspore(engine, prompts, 2)  # compiles both graphs
            engine_hf(hf, prompts, 2)
            rows = {"openspore LLMEngine (paged KV, graph)": [], "HF GPT2LMHeadModel (past_key_values)": []}
            for _ in range(args.rounds):
                rows["openspore LLMEngine (paged KV, graph)"].append(engine_openspore(engine, prompts,
                                                                                       args.engine_steps))
                rows["HF GPT2LMHeadModel (past_key_values)"].append(engine_hf(hf, prompts, args.engine_steps))
            raw["engine"] = rows
            print_engine_table(rows, args)
        work = workload(args, cfg.vocab_size)
        runs = {m: [] for m in args.modes}
        if {"cb", "single"} & set(args.modes):
            servables = os.path.join(workdir, "servables")
            write_servables(servables, ckpt, config_path, tok_dir, args.clients, max_len, args.stream_interval_ms)
            server = Server(servables, args.threads)
            for model in ("gpt", "gpt_single"):  # warm-up: the first request of each worker
                asyncio.run(stream_completion(server.address, model, work[0][0][0], 4, args.timeout))
        if "hf" in args.modes:  # warm-up: HF's first generate call sets up much that later calls reuse
            run_hf_generate(hf, [[(work[0][0][0], 4)]], 1)
        for r in range(args.rounds):
            for mode in args.modes:
                if mode == "hf":
                    runs[mode].append(measured(lambda: run_hf_generate(hf, work, args.clients)))
                else:
                    name = "gpt" if mode == "cb" else "gpt_single"
                    runs[mode].append(measured(lambda: run_clients(server.address, name, work, args.timeout),
                                               server.proc.pid))
                row = runs[mode][-1]
                print(f"round {r + 1} {mode:6s}: {row['tok_s']:7.1f} tok/s, TTFT p99 {row['ttft_p99'] * 1e3:6.0f} ms, "
                      f"{row['complete']}/{row['requests']} complete, {row['tok_cpu_s']:7.1f} tok/CPU-s (CPU s: client/HF "
                      f"{row['client_cpu_s']:.2f}, server {row['server_cpu_s']:.2f}); load "
                      f"{os.getloadavg()[0]:.1f}", flush=True)
        raw["serving"] = runs
        print_serving_table(runs, args)
        if args.tp_sizes:
            from llm_tp import print_rows, tensor_parallel_rows
            raw["tensor_parallel"] = tensor_parallel_rows(ckpt, config_path, sizes=tuple(args.tp_sizes),
                                                          rounds=args.rounds, threads=args.threads)
            print_rows(raw["tensor_parallel"])
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"args": {k: v for k, v in vars(args).items()}, **raw}, f, indent=1, default=str)
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
