"""Optimizer arguments are checked at construction, naming the optimizer and the value.

Regression (fresh-user trial, h35 item 4): ``optim.SGD(p, lr="0.1")`` failed with
"'>=' not supported between instances of 'str' and 'float'".
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from minitorch import Variable
from minitorch.optim import (
    SGD,
    AdaDelta,
    AdaGrad,
    Adam,
    AdamW,
    ClipGrad,
    MomentumSGD,
    StepLR,
    WeightDecay,
)

W = [Variable(np.ones(2))]

BAD_TYPES: list[tuple[Callable[[], object], str]] = [
    (lambda: SGD(W, lr="0.1"), r"SGD: lr must be a number, got '0.1' \(str\)"),
    (lambda: SGD(W, momentum="0.9"), "SGD: momentum must be a number, got '0.9'"),
    (lambda: SGD(W, weight_decay=None), "SGD: weight_decay must be a number, got None"),
    (lambda: MomentumSGD(W, lr=[0.1]), r"MomentumSGD: lr must be a number, got \[0.1\]"),
    (lambda: AdaGrad(W, eps="1e-8"), "AdaGrad: eps must be a number"),
    (lambda: AdaDelta(W, rho="0.9"), "AdaDelta: rho must be a number"),
    (lambda: Adam(W, lr=True), r"Adam: lr must be a number, got True \(bool\)"),
    (lambda: Adam(W, betas=0.9), "Adam: betas must be a pair of numbers"),
    (lambda: Adam(W, betas=("0.9", 0.999)), r"Adam: betas\[0\] must be a number"),
    (lambda: AdamW(W, weight_decay="0.01"), "AdamW: weight_decay must be a number"),
    (lambda: AdamW(W, lr=Variable(np.array(0.1))), "AdamW: lr must be a number"),
    (lambda: WeightDecay("0.1"), "WeightDecay: rate must be a number"),
    (lambda: ClipGrad("1"), "ClipGrad: max_norm must be a number"),
    (lambda: StepLR(SGD(W), step_size=2.0), "StepLR: step_size must be an int"),
    (lambda: StepLR(SGD(W), step_size=2, gamma="0.5"), "StepLR: gamma must be a number"),
]  # fmt: skip

BAD_VALUES: list[tuple[Callable[[], object], str]] = [
    (lambda: SGD(W, lr=-0.1), "SGD: lr must be non-negative, got -0.1"),
    (lambda: SGD(W, lr=math.nan), "SGD: lr must be non-negative, got nan"),
    (lambda: SGD(W, lr=math.inf), "SGD: lr must be non-negative, got inf"),
    (lambda: SGD(W, momentum=1.0), r"SGD: momentum must be in \[0, 1\), got 1.0"),
    (lambda: SGD(W, momentum=-0.5), r"SGD: momentum must be in \[0, 1\)"),
    (lambda: MomentumSGD(W, momentum=math.nan), "MomentumSGD: momentum must be in"),
    (lambda: AdaGrad(W, eps=-1.0), "AdaGrad: eps must be non-negative"),
    (lambda: AdaDelta(W, rho=1.5), r"AdaDelta: rho must be in \[0, 1\], got 1.5"),
    (lambda: Adam(W, betas=(0.9, 1.0)), r"Adam: betas\[1\] must be in \[0, 1\), got 1.0"),
    (lambda: AdamW(W, weight_decay=-0.01), "AdamW: weight_decay must be non-negative"),
]  # fmt: skip


@pytest.mark.parametrize("build, message", BAD_TYPES, ids=[m for _, m in BAD_TYPES])
def test_an_argument_of_the_wrong_type_is_a_type_error_naming_optimizer_and_value(
    build: Callable[[], object], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        build()


@pytest.mark.parametrize("build, message", BAD_VALUES, ids=[m for _, m in BAD_VALUES])
def test_an_argument_out_of_range_is_a_value_error_naming_optimizer_and_value(
    build: Callable[[], object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        build()


def test_numpy_numbers_and_ints_are_accepted() -> None:
    assert SGD(W, lr=np.float32(0.5), momentum=np.float64(0.9)).lr == 0.5
    assert Adam(W, lr=1, betas=[0, np.float32(0.5)]).betas == (0.0, 0.5)
    assert AdaDelta(W, rho=1).rho == 1.0
