"""Train the small GPT that notebook 15 loads (``notebooks/nb15_gpt.npz``).

The model is ``notebooks/tiny_gpt.py``'s ``TinyGPT``.

Notebook 15 must run in under a minute, so it loads these weights instead of training
for minutes: one play (Hamlet), the notebook's character tokenizer and model sizes,
a fixed number of AdamW steps from seed 0. Run from the repository root::

    python scripts/train_nb15_gpt.py          # 400 steps: 2-10 minutes on 2 cores

The file holds the model's ``state_dict`` (plain arrays, loaded with
``np.load(..., allow_pickle=False)``) plus ``train_losses``, the loss of every step.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "notebooks")]

from tiny_gpt import SIZES, WEIGHTS, TinyGPT  # noqa: E402

from minitorch import optim, text  # noqa: E402

STEPS, BLOCK, BATCH, LR = 400, 64, 32, 3e-3


def main() -> None:
    play = text.shakespeare("hamlet")
    tok = text.CharTokenizer(play)
    ids = np.array(tok.encode(play))
    train_ids = ids[: int(0.9 * len(ids))]
    model = TinyGPT(tok.vocab_size, **SIZES)
    opt = optim.AdamW(model.parameters(), lr=LR)
    rng = np.random.default_rng(0)
    losses, start = [], time.perf_counter()
    for step in range(STEPS):
        starts = rng.integers(0, len(train_ids) - BLOCK - 1, BATCH)
        x = np.stack([train_ids[s : s + BLOCK] for s in starts])
        y = np.stack([train_ids[s + 1 : s + BLOCK + 1] for s in starts])
        loss = model.loss(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.data))
        if step % 100 == 0:
            print(f"step {step}: loss {losses[-1]:.3f} ({time.perf_counter() - start:.0f} s)")
    arrays = {k: np.asarray(v, dtype=np.float32) for k, v in model.state_dict().items()}
    np.savez_compressed(WEIGHTS, train_losses=np.array(losses, dtype=np.float32), **arrays)
    print(f"saved {WEIGHTS} after {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
