"""Train a character-level GPT on Shakespeare, sample from it, and time its KV cache.

Run it as ``python -m examples.char_gpt`` (``--help`` lists the options; the plays ship
with minitorch, ``minitorch.text.shakespeare``). It trains
:class:`examples.gpt.GPT` (3 Pre-LN blocks, width 96, 4 heads, context 64, batch 32,
AdamW, float32, one thread) for ``--minutes`` with a progress bar, reports the validation
loss in nats per character on the last 10% of the plays, saves the weights as ``.npz``
(NumPy arrays only, no pickle), samples text (temperature, top-k), and checks the KV
cache: greedy tokens identical with and without it, and the time per token of each at
256 tokens of context. ``--json PATH`` writes the figures.
"""

from __future__ import annotations

import os

# One BLAS thread, set before NumPy starts its thread pool: on a shared 2-core machine a
# second BLAS thread fighting the neighbours made each step 20x slower.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import ctypes  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

import minitorch  # noqa: E402
from examples.gpt import GPT, GPTConfig, KVCache  # noqa: E402
from minitorch import optim  # noqa: E402
from minitorch.text import CharTokenizer, shakespeare  # noqa: E402

CONTEXT, BATCH = 64, 32


def keep_freed_memory() -> None:
    """Ask glibc to keep freed blocks instead of returning them to the system.

    Each step allocates and frees the same few-megabyte temporaries; returned to the
    system, every new one costs page faults (a third of a step on a busy machine).
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing to tune
        return
    libc.mallopt(-3, 1 << 25)  # M_MMAP_THRESHOLD (32 MiB, its maximum): heap, not mmap
    libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: do not give the heap's top back


def load_data(seed: int) -> tuple[CharTokenizer, np.ndarray, np.ndarray]:
    """The plays as ids, split 90/10 (train/validation) at one point of the text."""
    text = shakespeare()
    tokenizer = CharTokenizer(text)
    ids = np.array(tokenizer.encode(text), dtype=np.int64)
    split = int(0.9 * len(ids))
    return tokenizer, ids[:split], ids[split:]


def batch(ids: np.ndarray, rng: np.random.Generator, size: int = BATCH) -> tuple[Any, Any]:
    """``size`` random windows of ``CONTEXT`` characters and the characters after them."""
    starts = rng.integers(0, len(ids) - CONTEXT - 1, size)
    windows = ids[starts[:, None] + np.arange(CONTEXT + 1)]
    return windows[:, :-1], windows[:, 1:]


def evaluate(model: GPT, ids: np.ndarray, batches: int = 50, seed: int = 1) -> float:
    """The mean validation loss over ``batches`` fixed random windows, in nats/char."""
    rng = np.random.default_rng(seed)
    model.eval()
    with minitorch.no_grad():
        losses = [float(model.loss(*batch(ids, rng)).item()) for _ in range(batches)]
    model.train()
    return float(np.mean(losses))


def learning_rate(fraction: float, peak: float = 2e-3, warmup: float = 0.02) -> float:
    """Linear warm-up, then a cosine decay to a tenth of ``peak`` at the end of the time."""
    if fraction < warmup:
        return peak * fraction / warmup
    progress = min(1.0, (fraction - warmup) / (1 - warmup))
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def train(
    model: GPT,
    train_ids: np.ndarray,
    seconds: float | None,
    seed: int,
    val_ids: np.ndarray | None = None,
    checkpoints: Sequence[float] = (),
    steps: int | None = None,
) -> dict[str, Any]:
    """Train for ``seconds`` of wall time, or for exactly ``steps`` steps; return the step
    count, tokens per second and the validation loss at each of ``checkpoints`` (seconds;
    evaluation time not counted).

    With ``steps`` the learning-rate schedule follows the step count, so a run depends on
    the seed alone (the milestones use this); with ``seconds`` it follows the clock.
    """
    from tqdm import tqdm  # noqa: PLC0415 (a dev/demo dependency, only for the bar)

    if (seconds is None) == (steps is None):
        raise ValueError("train: give exactly one of seconds and steps")
    rng = np.random.default_rng(seed)
    optimizer = optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
    pending, curve = sorted(checkpoints), {}
    start, done = time.perf_counter(), 0
    total = steps if steps is not None else int(seconds or 0)
    with tqdm(total=total, unit="step" if steps else "s", desc="training") as bar:
        while True:
            elapsed = time.perf_counter() - start
            fraction = done / steps if steps is not None else elapsed / (seconds or 1.0)
            if fraction >= 1.0:
                break
            if pending and elapsed >= pending[0] and val_ids is not None:
                curve[f"{pending.pop(0) / 60:g} min"] = evaluate(model, val_ids)
                start += time.perf_counter() - start - elapsed  # the clock stood still
            optimizer.lr = learning_rate(fraction)
            loss = model.loss(*batch(train_ids, rng))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            done += 1
            bar.update(1 if steps else int(time.perf_counter() - start) - bar.n)
            if done % 20 == 0:
                bar.set_postfix(step=done, loss=f"{float(loss.item()):.3f}")
    elapsed = time.perf_counter() - start
    return {
        "steps": done,
        "train_seconds": elapsed,
        "tokens_per_second": done * BATCH * CONTEXT / elapsed,
        "val_curve": curve,
    }


def next_token(
    logits: np.ndarray, rng: np.random.Generator | None, temperature: float, top_k: int | None
) -> int:
    """Greedy (``rng is None``) or sampled from the ``top_k`` most likely at ``temperature``."""
    if rng is None:
        return int(np.argmax(logits))
    logits = logits.astype(np.float64) / temperature
    if top_k is not None:
        logits[logits < np.sort(logits)[-top_k]] = -np.inf
    p = np.exp(logits - logits.max())
    return int(rng.choice(len(p), p=p / p.sum()))


def generate(
    model: GPT,
    prompt: Sequence[int],
    n_new: int,
    use_cache: bool = True,
    rng: np.random.Generator | None = None,
    temperature: float = 1.0,
    top_k: int | None = None,
) -> list[int]:
    """Extend ``prompt`` by ``n_new`` tokens (``len(prompt) + n_new <= max_len``).

    Without the cache every step runs the whole sequence again; with it, the prompt
    once and then one token a step, attending to the stored keys and values.
    """
    ids = list(prompt)
    model.eval()
    with minitorch.no_grad():
        cache = KVCache(model.config) if use_cache else None
        logits = model(np.array([ids]), cache).data[0, -1]
        for _ in range(n_new):
            ids.append(next_token(logits, rng, temperature, top_k))
            step_ids = ids[-1:] if use_cache else ids
            logits = model(np.array([step_ids]), cache).data[0, -1]
    model.train()
    return ids


def sample(
    model: GPT,
    tokenizer: CharTokenizer,
    length: int,
    seed: int,
    temperature: float = 0.8,
    top_k: int = 20,
) -> str:
    """Text from a newline, in windows of the training context (re-read every 32 tokens)."""
    rng = np.random.default_rng(seed)
    ids = tokenizer.encode("\n")
    while len(ids) < length:
        window = ids[-(CONTEXT - 32) :]
        ids = ids[: len(ids) - len(window)] + generate(
            model, window, 32, rng=rng, temperature=temperature, top_k=top_k
        )
    return tokenizer.decode(ids[:length])


def kv_check(
    model: GPT, prompt: Sequence[int], context: int = 256, n_new: int = 32, rounds: int = 5
) -> dict[str, Any]:
    """Greedy tokens with and without the cache, up to ``context`` tokens; time per token.

    Each round times both ways back to back (the order alternating), and the speed-up is
    the median of the rounds' ratios: on a shared machine one busy moment must not
    decide it.
    """
    prompt = list(prompt[: context - n_new])
    outputs: dict[bool, list[int]] = {}
    ratios: list[float] = []
    times: dict[bool, list[float]] = {False: [], True: []}
    for r in range(rounds):
        for use_cache in (False, True) if r % 2 == 0 else (True, False):
            start = time.perf_counter()
            outputs[use_cache] = generate(model, prompt, n_new, use_cache=use_cache)
            times[use_cache].append((time.perf_counter() - start) / n_new)
        ratios.append(times[False][-1] / times[True][-1])
    return {
        "kv_identical": outputs[True] == outputs[False],
        "kv_speedup": float(np.median(ratios)),
        "ms_per_token_without_cache": float(np.median(times[False])) * 1e3,
        "ms_per_token_with_cache": float(np.median(times[True])) * 1e3,
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Parse the command line, train, evaluate, sample, check the cache, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="training time")
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help="train exactly this many steps instead (the schedule follows the steps: the "
        "same seed gives the same model on any machine)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    parser.add_argument("--weights", default="char_gpt.npz", help="where to save the weights")
    parser.add_argument("--sample-length", type=int, default=500)
    args = parser.parse_args(argv)
    keep_freed_memory()
    minitorch.manual_seed(args.seed)
    tokenizer, train_ids, val_ids = load_data(args.seed)
    model = GPT(GPTConfig(vocab_size=tokenizer.vocab_size), seed=args.seed)
    print(
        f"{len(train_ids):,} training characters, {tokenizer.vocab_size} distinct; "
        f"{model.num_parameters():,} parameters"
    )
    report: dict[str, Any] = {"params": model.num_parameters()}
    checkpoints = [60 * m for m in (1, 2, 5) if m < args.minutes]
    if args.steps is not None:
        report.update(train(model, train_ids, None, args.seed, val_ids, (), steps=args.steps))
    else:
        report.update(train(model, train_ids, args.minutes * 60, args.seed, val_ids, checkpoints))
    report["val_loss"] = evaluate(model, val_ids)
    print(f"validation loss {report['val_loss']:.3f} nats/char after {report['steps']} steps")
    model.save_weights(args.weights)
    report["sample"] = sample(model, tokenizer, args.sample_length, args.seed)
    print(report["sample"])
    report.update(kv_check(model, val_ids[:256].tolist()))
    print(
        f"KV cache: identical greedy tokens {report['kv_identical']}, "
        f"{report['kv_speedup']:.1f}x faster per token at 256 tokens of context"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, ensure_ascii=False)
    return report


if __name__ == "__main__":
    main()
