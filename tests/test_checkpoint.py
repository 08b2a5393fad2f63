"""``minitorch.checkpoint``: the same values and gradients, bit for bit, for less memory."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitorch
import minitorch.ops as F
from minitorch import Variable, autograd, checkpoint, nn


def blocks(n: int, width: int, dropout: float = 0.0) -> list[nn.Module]:
    return [
        nn.Sequential(nn.Linear(width, width, rng=i), nn.Tanh(), nn.Dropout(dropout))
        for i in range(n)
    ]


def run(layers: list[nn.Module], x: Variable, use_checkpoint: bool) -> tuple[list, float]:
    minitorch.manual_seed(7)
    for layer in layers:
        layer.zero_grad()
    x.clear_grad()
    h = x
    for layer in layers:
        h = checkpoint(layer, h) if use_checkpoint else layer(h)
    loss = (h * h).sum()
    loss.backward()
    grads = [p.grad.data.copy() for layer in layers for p in layer.parameters()]
    return [*grads, x.grad.data.copy()], loss.item()


def test_gradients_are_bit_identical_with_dropout_masks_reproduced() -> None:
    layers = blocks(4, 8, dropout=0.3)
    x = Variable(np.random.default_rng(0).normal(size=(5, 8)))
    plain, plain_loss = run(layers, x, use_checkpoint=False)
    checked, checked_loss = run(layers, x, use_checkpoint=True)
    assert plain_loss == checked_loss
    assert all(np.array_equal(a, b) for a, b in zip(plain, checked))


def test_the_generator_goes_on_as_if_nothing_was_recomputed() -> None:
    layer = blocks(1, 4, dropout=0.5)[0]
    x = Variable(np.ones((3, 4)))
    minitorch.manual_seed(3)
    checkpoint(layer, x).sum().backward()
    after_checkpoint = minitorch.random.default_generator().random()
    minitorch.manual_seed(3)
    layer(x).sum().backward()
    assert minitorch.random.default_generator().random() == after_checkpoint


def test_autograd_grad_sees_the_parameters_used_inside() -> None:
    layer = nn.Linear(3, 2, rng=0)
    x = Variable(np.arange(6.0).reshape(2, 3))
    (g_plain,) = autograd.grad(F.tanh(layer(x)).sum(), [layer.W])
    (g_checked,) = autograd.grad(checkpoint(lambda a: F.tanh(layer(a)), x).sum(), [layer.W])
    assert np.array_equal(g_plain.data, g_checked.data)


def test_second_derivatives_through_a_checkpoint_match_torch() -> None:
    torch = pytest.importorskip("torch")
    x0 = np.array([0.3, -0.7, 1.1])
    x = Variable(x0.copy())
    y = checkpoint(lambda a: F.sin(a) * F.exp(a), x).sum()
    (g,) = autograd.grad(y, [x], create_graph=True)
    (gg,) = autograd.grad(g.sum(), [x])
    t = torch.tensor(x0, requires_grad=True)
    (tg,) = torch.autograd.grad((torch.sin(t) * torch.exp(t)).sum(), t, create_graph=True)
    (tgg,) = torch.autograd.grad(tg.sum(), t)
    np.testing.assert_allclose(gg.data, tgg.numpy(), rtol=1e-12)


def test_constants_and_keyword_arguments_pass_through() -> None:
    x = Variable(np.array([1.0, 2.0]))
    y = checkpoint(lambda a, scale, *, power: (a * scale) ** power, x, 3.0, power=2)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, 2 * 9.0 * x.data)


def test_a_block_that_returns_no_variable_is_refused() -> None:
    with pytest.raises(TypeError, match="checkpoint: fn must return one Variable, got tuple"):
        checkpoint(lambda a: (a, a), Variable(np.ones(2)))


def test_under_no_grad_it_is_a_plain_call() -> None:
    with minitorch.no_grad():
        y = checkpoint(lambda a: a * 2, Variable(np.ones(2)))
    assert y.creator is None


def _peak_bytes(use_checkpoint: bool) -> int:
    """Peak traced bytes of forward + backward through 32 Linear-Tanh layers (512 x 128),
    checkpointed as 4 segments of 8 layers: about sqrt(32) segments, the classic choice
    (Chen et al. 2016, "Training deep nets with sublinear memory cost"). Each op saves
    only what its rule reads, so the plain run keeps about one activation per layer; the
    checkpointed run keeps the 4 segment inputs and one segment's activations at a time."""
    segments = [
        nn.Sequential(*(part for layer in group for part in layer))
        for group in zip(*[iter(blocks(32, 128))] * 8)
    ]
    x = Variable(np.random.default_rng(1).normal(size=(512, 128)).astype(np.float32))
    tracemalloc.start()
    h = x
    for segment in segments:
        h = checkpoint(segment, h) if use_checkpoint else segment(h)
    (h * h).sum().backward()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def test_a_32_layer_mlp_needs_at_least_40_percent_less_peak_memory() -> None:
    plain, checked = _peak_bytes(False), _peak_bytes(True)
    assert checked <= 0.6 * plain, (plain, checked)


def test_forward_mode_through_a_checkpoint_matches_torch_func() -> None:
    torch = pytest.importorskip("torch")
    import minitorch.func as mf

    layer = nn.Linear(3, 2, rng=0)
    layer.W.data = layer.W.data.astype(np.float64)
    layer.b.data = layer.b.data.astype(np.float64)
    x0, t0 = np.array([[0.2, -0.4, 0.9]]), np.array([[1.0, 0.5, -2.0]])
    _, tangent = mf.jvp(lambda a: checkpoint(lambda h: F.tanh(layer(h)), a), (x0,), (t0,))
    W, b = torch.tensor(layer.W.data), torch.tensor(layer.b.data)
    _, expected = torch.func.jvp(
        lambda a: torch.tanh(a @ W.T + b), (torch.tensor(x0),), (torch.tensor(t0),)
    )
    np.testing.assert_allclose(tangent.data, expected.numpy(), rtol=1e-12)


@pytest.mark.parametrize("create_graph", [False, True])
def test_an_argument_made_by_an_op_gets_its_gradient_once(create_graph) -> None:
    # checkpoint(f, x * 1.0): x is behind the argument, not an input of its own (it got
    # the gradient twice under create_graph). A weight the block reads is still found.
    x = Variable(np.array([0.5, -0.2]))
    w = Variable(np.array([0.3, 0.7]))
    y = F.sum(minitorch.checkpoint(lambda a: F.tanh(a * w), x * 1.0))
    gx, gw = minitorch.autograd.grad(y, [x, w], create_graph=create_graph)
    inner = 1 - np.tanh(x.data * w.data) ** 2
    np.testing.assert_allclose(gx.data, w.data * inner, rtol=1e-12)
    np.testing.assert_allclose(gw.data, x.data * inner, rtol=1e-12)


# ---- the recomputation must match the forward: what was changed in place is refused ------


def test_an_array_the_block_closes_over_changed_before_backward_is_refused() -> None:
    scale = np.array([1.0, 2.0, 3.0])
    x = Variable(np.array([0.5, -1.0, 2.0]))

    def block(a: Variable) -> Variable:
        return F.tanh(a * scale)

    y = checkpoint(block, x).sum()
    scale[0] = 10.0  # refilled in place before backward: the rerun would read 10
    with pytest.raises(RuntimeError, match=r"checkpoint: running the block .*block again"):
        y.backward()


def test_a_constant_variable_the_block_closes_over_changed_is_refused() -> None:
    mask = Variable(np.ones(4), requires_grad=False)  # not an input of the checkpoint
    x = Variable(np.arange(4.0))
    y = checkpoint(lambda a: F.sin(a) * mask, x).sum()
    mask.data[1] = 0.0
    with pytest.raises(RuntimeError, match="closes over edited in place"):
        autograd.grad(y, [x])


def test_a_block_drawing_from_numpy_random_is_refused() -> None:
    rng = np.random.default_rng(0)
    x = Variable(np.ones(3))
    y = checkpoint(lambda a: a * rng.random(3), x).sum()
    with pytest.raises(RuntimeError, match="minitorch.random"):
        y.backward()


def test_without_rewinding_the_generator_a_new_dropout_mask_is_allowed() -> None:
    # preserve_rng_state=False means what it means in torch: the rerun draws anew.
    layer = nn.Dropout(0.5)
    x = Variable(np.ones(64))
    minitorch.manual_seed(0)
    checkpoint(layer, x, preserve_rng_state=False).sum().backward()
    assert x.grad is not None and x.grad.shape == (64,)


def test_an_unchanged_block_passes_in_float32_and_float64() -> None:
    x = Variable(np.array([0.5, -1.0], dtype=np.float32))
    checkpoint(F.tanh, x).sum().backward()
    assert x.grad.dtype == np.float32
    c = Variable(np.array([1.0, 2.0]))
    out = checkpoint(lambda a: a * 2.0, c)
    out.sum().backward()
    np.testing.assert_array_equal(c.grad.data, [2.0, 2.0])


@pytest.mark.parametrize("block", ["batchnorm", "dropout"])
def test_a_forward_in_test_mode_is_recomputed_in_test_mode(block: str) -> None:
    # Found by a fresh-user trial: the rerun ran in train mode, so the new check raised
    # (and with preserve_rng_state=False the gradient was silently that of train mode).
    def make() -> nn.Module:
        minitorch.manual_seed(0)
        if block == "batchnorm":
            return nn.BatchNorm1d(8)
        return nn.Sequential(nn.Linear(8, 8, rng=0), nn.Dropout(0.5))

    x0 = np.random.default_rng(0).random((4, 8))
    grads = []
    for use_checkpoint in (False, True):
        net, x = make(), Variable(x0.copy())
        with minitorch.test_mode():
            y = checkpoint(net, x, preserve_rng_state=use_checkpoint) if use_checkpoint else net(x)
        y.sum().backward()  # outside test_mode
        grads.append(x.grad.data)
    np.testing.assert_array_equal(grads[1], grads[0])


def test_switching_a_module_to_eval_before_backward_is_named_in_the_message() -> None:
    net = nn.Sequential(nn.Linear(4, 4, rng=0), nn.Dropout(0.5))
    x = Variable(np.ones((2, 4)))
    y = checkpoint(net, x).sum()
    net.eval()
    with pytest.raises(RuntimeError, match=r"switched between train\(\) and eval\(\)"):
        y.backward()
