"""2017 — Vaswani et al.: attention is all a character-level language model needs.

The capstone: a small GPT (token and position embeddings, causal Pre-LN transformer
blocks, a final LayerNorm) trained on Shakespeare, whose validation loss must reach
1.7 nats per character. It runs ``examples.char_gpt`` (the transformer issue's example);
until that example exists, this rung says it is waiting instead of faking a result.

References:
    A. Vaswani et al., "Attention is all you need", NeurIPS 2017.
"""

from __future__ import annotations

import importlib
import importlib.util

from examples.milestones.ladder import Context, Measurement, Milestone

MINUTES = 10.0  # the full run's training budget, the char-GPT's documented target
QUICK_MINUTES = 0.25


def run(context: Context) -> Measurement:
    """Train the char-GPT for ``MINUTES`` and judge its validation loss."""
    threshold = 1.7
    if importlib.util.find_spec("examples.char_gpt") is None:
        return Measurement(
            metric="validation loss (nats/char)",
            value=None,
            threshold=threshold,
            compare="<=",
            status="waiting",
            details={
                "why": "waits for examples.char_gpt (the attention and transformer "
                "issue); nothing is run or reported until it exists"
            },
        )
    char_gpt = importlib.import_module("examples.char_gpt")

    minutes = QUICK_MINUTES if context.quick else MINUTES
    folder = context.out / "char_gpt"
    folder.mkdir(parents=True, exist_ok=True)
    report = char_gpt.main(
        [
            "--minutes", str(minutes),
            "--seed", str(context.seed),
            "--weights", str(folder / "char_gpt.npz"),
            "--sample-length", "80" if context.quick else "300",
        ]
    )  # fmt: skip
    quick_threshold = 3.3  # a quarter-minute run only shows the loss falling below uniform
    return Measurement(
        metric="validation loss (nats/char)",
        value=report["val_loss"],
        threshold=quick_threshold if context.quick else threshold,
        compare="<=",
        details={
            key: report[key]
            for key in ("steps", "params", "sample", "kv_identical", "kv_speedup")
            if key in report
        },
    )


MILESTONE = Milestone("transformer", 2017, "Vaswani et al.: a char-level GPT on Shakespeare", run)
