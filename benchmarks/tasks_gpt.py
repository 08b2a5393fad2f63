"""The char-GPT training step (issue 30): minitorch beside the same model in PyTorch.

One step is forward, backward and an AdamW update of ``examples.gpt.GPT`` with the
calibration model of the issue: 3 layers, width 96, 4 heads, context 64, batch 32,
float32, one thread, glibc keeping freed memory (``examples.char_gpt.keep_freed_memory``).
The PyTorch twin starts from the same weights and computes the same
function with plain-matmul attention (as the issue's calibration did); the losses of the
two must agree. Target: minitorch within 1.5x of PyTorch.
"""

from __future__ import annotations

import re
import time
from typing import Any

import numpy as np

from benchmarks import peers
from benchmarks.harness import Case, Step, Target

_now = time.perf_counter
VOCAB, BATCH, CONTEXT = 81, 32, 64  # Shakespeare's 81 characters


def _batches(n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(5)
    ids = rng.integers(0, VOCAB, (n, BATCH, CONTEXT + 1))
    return [(b[:, :-1].copy(), b[:, 1:].copy()) for b in ids]


def _minitorch_model() -> Any:
    from examples.gpt import GPT, GPTConfig  # noqa: PLC0415

    return GPT(GPTConfig(vocab_size=VOCAB), seed=0)


def torch_twin(model: Any) -> Any:
    """The same GPT in PyTorch, with ``model``'s weights (``W``/``b`` -> weight/bias)."""
    torch = peers.torch()
    tnn, tf = torch.nn, torch.nn.functional
    cfg = model.config
    positions = torch.tensor(model.pos.table)

    class Attention(tnn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            d = cfg.d_model
            self.qkv, self.proj = tnn.Linear(d, 3 * d), tnn.Linear(d, d)

        def forward(self, x: Any) -> Any:
            N, T, d = x.shape
            q, k, v = self.qkv(x).view(N, T, 3, cfg.n_heads, -1).permute(2, 0, 3, 1, 4)
            scores = (q * (q.shape[-1] ** -0.5)) @ k.transpose(-1, -2)
            mask = torch.ones(T, T, dtype=torch.bool).tril()
            weights = scores.masked_fill(~mask, float("-inf")).softmax(-1)
            return self.proj((weights @ v).transpose(1, 2).reshape(N, T, d))

    class Block(tnn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            d = cfg.d_model
            self.ln1, self.ln2 = tnn.LayerNorm(d), tnn.LayerNorm(d)
            self.attn = Attention()
            self.fc, self.fc_out = tnn.Linear(d, 4 * d), tnn.Linear(4 * d, d)

        def forward(self, x: Any) -> Any:
            x = x + self.attn(self.ln1(x))
            h = self.fc(self.ln2(x))
            h = tf.relu(h) if cfg.activation == "relu" else tf.gelu(h, approximate="tanh")
            return x + self.fc_out(h)

    class TorchGPT(tnn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.tok = tnn.Embedding(cfg.vocab_size, cfg.d_model)
            self.blocks = tnn.ModuleList([Block() for _ in range(cfg.n_layers)])
            self.ln_f = tnn.LayerNorm(cfg.d_model)
            self.head = tnn.Linear(cfg.d_model, cfg.vocab_size)

        def forward(self, ids: Any) -> Any:
            x = self.tok(ids) + positions[: ids.shape[1]]
            for block in self.blocks:
                x = block(x)
            return self.head(self.ln_f(x))

    twin = TorchGPT()
    renamed = {
        re.sub(r"\.b$", ".bias", re.sub(r"\.W$", ".weight", name)): torch.tensor(p.data)
        for name, p in model.named_parameters()
    }
    twin.load_state_dict(renamed)
    return twin


def _keep_freed_memory() -> None:
    # As the example does, for both frameworks (they share the process): freed megabyte
    # temporaries stay in the heap instead of costing page faults when reused. It lasts
    # for the rest of the process, so run.py runs this task last.
    from examples.char_gpt import keep_freed_memory  # noqa: PLC0415

    keep_freed_memory()


def gpt_step_case(iterations: int = 3) -> Case:
    """One AdamW training step of the char-GPT, in ms/step."""
    batches = _batches(iterations)

    def timed(train: Any) -> Step:
        def step() -> tuple[dict[str, float], Any]:
            t0 = _now()
            losses = [train(x, t) for x, t in batches]
            return {"time": (_now() - t0) / iterations * 1e3}, np.array(losses)

        return step

    def minitorch() -> Step:
        from minitorch import optim  # noqa: PLC0415

        _keep_freed_memory()

        model = _minitorch_model()
        opt = optim.AdamW(model.parameters(), lr=1e-3)

        def train(x: np.ndarray, t: np.ndarray) -> float:
            loss = model.loss(x, t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return float(loss.item())

        return timed(train)

    def torch() -> Step:
        _keep_freed_memory()
        th = peers.torch()
        model = torch_twin(_minitorch_model())
        opt = th.optim.AdamW(model.parameters(), lr=1e-3)

        def train(x: np.ndarray, t: np.ndarray) -> float:
            logits = model(th.from_numpy(x))
            loss = th.nn.functional.cross_entropy(
                logits.view(-1, VOCAB), th.from_numpy(t).reshape(-1)
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
            return float(loss.item())

        return timed(train)

    return Case(
        task="gpt",
        name=f"char-GPT step: 3 layers x 96, 4 heads, batch {BATCH} x {CONTEXT}, AdamW",
        unit="ms/step",
        metrics=("time",),
        impls={"minitorch": minitorch, "torch": torch},
        targets=[Target("time", "torch", 1.5)],
        rtol=1e-3,  # float32, two different kernels and summation orders
        atol=1e-4,
    )
