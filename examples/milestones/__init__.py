"""Seventy years of neural networks, reproduced offline: ``python -m examples.milestones``.

Each rung is a short experiment that reads like the paper's, with a threshold it must
reach, a picture under ``build/milestones/`` and a one-line verdict:

============== ==== ===========================================================
id             year result
============== ==== ===========================================================
perceptron     1958 Rosenblatt's rule separates separable points (100% train)
xor            1969 one layer cannot learn XOR (<= 75%), two can (100%), every seed
backprop       1986 a sigmoid MLP trained by backprop reads 8x8 digits (>= 97%)
lenet          1998 a LeNet-5 CNN reads real MNIST (>= 97%, above the MLP)
bengio         2003 a neural LM beats bigram counts on names (>= 0.1 nats/char)
batchnorm      2015 batch norm trains a 20-layer sigmoid net (>= 95%; chance without)
transformer    2017 a char-GPT on Shakespeare (val loss <= 1.7 nats/char)
inductive-bias 2020 on MNIST-1D a CNN beats an MLP by >= 15 points
============== ==== ===========================================================

All data comes from installed packages or is generated (see
:mod:`examples.milestones.datasets`); every run is seeded and deterministic.
"""

from __future__ import annotations

from examples.milestones import (
    backprop,
    batchnorm,
    bengio,
    inductive_bias,
    lenet,
    perceptron,
    transformer,
    xor,
)
from examples.milestones.ladder import Milestone

# In the order of the years.
LADDER: tuple[Milestone, ...] = tuple(
    module.MILESTONE
    for module in (
        perceptron,
        xor,
        backprop,
        lenet,
        bengio,
        batchnorm,
        transformer,
        inductive_bias,
    )
)
BY_ID = {milestone.id: milestone for milestone in LADDER}
