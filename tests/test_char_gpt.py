"""The char-GPT of ``examples.gpt`` / ``python -m examples.char_gpt``: the KV cache gives the
same logits and greedy tokens, the model equals its PyTorch twin (the benchmark's), and a
few training steps lower the loss."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from examples import char_gpt
from examples.gpt import GPT, GPTConfig, KVCache

CONFIG = GPTConfig(vocab_size=11, d_model=16, n_layers=2, n_heads=4, max_len=64)


@pytest.fixture
def model() -> GPT:
    return GPT(CONFIG, seed=3)


def test_cached_logits_equal_the_full_forward(model, rng) -> None:
    ids = rng.integers(0, 11, (2, 30))
    with minitorch.no_grad():
        full = model(ids).data
        cache = KVCache(CONFIG, batch=2)
        parts = [model(ids[:, :12], cache).data]  # a prompt, then token by token
        parts += [model(ids[:, t : t + 1], cache).data for t in range(12, 30)]
    np.testing.assert_allclose(np.concatenate(parts, axis=1), full, rtol=1e-4, atol=1e-5)
    assert cache.length == 30


def test_greedy_tokens_are_identical_with_and_without_the_cache(model, rng) -> None:
    prompt = rng.integers(0, 11, 8).tolist()
    with_cache = char_gpt.generate(model, prompt, 30, use_cache=True)
    assert with_cache == char_gpt.generate(model, prompt, 30, use_cache=False)
    report = char_gpt.kv_check(model, rng.integers(0, 11, 40).tolist(), context=40, n_new=16)
    assert report["kv_identical"]  # (the speed-up shows at 256 tokens, not on this toy)


def test_sampling_respects_top_k(rng) -> None:
    logits = np.array([0.0, 5.0, 4.0, -1.0])
    picks = {char_gpt.next_token(logits, rng, 1.0, 2) for _ in range(200)}
    assert picks == {1, 2}
    assert char_gpt.next_token(logits, None, 1.0, None) == 1  # greedy


def test_model_equals_its_torch_twin(model, rng) -> None:
    torch = pytest.importorskip("torch")
    from benchmarks.tasks_gpt import torch_twin

    twin = torch_twin(model)
    ids, targets = rng.integers(0, 11, (3, 20)), rng.integers(0, 11, (3, 20))
    loss = model.loss(ids, targets)
    loss.backward()
    logits = twin(torch.from_numpy(ids))
    t_loss = torch.nn.functional.cross_entropy(
        logits.reshape(-1, 11), torch.from_numpy(targets).reshape(-1)
    )
    t_loss.backward()
    assert float(loss.item()) == pytest.approx(float(t_loss.detach()), rel=1e-5)
    grads = dict(twin.named_parameters())
    np.testing.assert_allclose(
        model.blocks[1].attn.qkv.W.grad.data,
        grads["blocks.1.attn.qkv.weight"].grad.numpy(),
        rtol=1e-3,
        atol=1e-5,
    )


def test_a_few_steps_lower_the_loss(model, rng) -> None:
    from minitorch import optim

    ids = np.tile(np.arange(11), 300)  # a periodic text: easy to learn
    first = model.loss(*char_gpt.batch(ids, rng, 8)).item()
    opt = optim.AdamW(model.parameters(), lr=3e-3)
    for _ in range(40):  # a fixed number of steps: the test does not depend on the load
        loss = model.loss(*char_gpt.batch(ids, rng, 8))
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert model.loss(*char_gpt.batch(ids, rng, 8)).item() < first - 0.5


def test_train_reports_its_figures(model) -> None:
    report = char_gpt.train(model, np.tile(np.arange(11), 300), seconds=0.5, seed=0)
    assert report["steps"] >= 1 and report["train_seconds"] >= 0.5
    assert report["tokens_per_second"] > 0 and report["val_curve"] == {}


def test_learning_rate_warms_up_and_decays() -> None:
    assert char_gpt.learning_rate(0.0) == 0.0
    assert char_gpt.learning_rate(0.02) == pytest.approx(2e-3)
    assert char_gpt.learning_rate(1.0) == pytest.approx(2e-4)
