"""Config switches: restore on exceptions, nesting, thread isolation."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minitorch
from minitorch import Config, Variable, no_grad, using_config


def test_no_grad_restores_on_exception_and_nests() -> None:
    assert Config.enable_backprop
    with pytest.raises(ZeroDivisionError):
        with no_grad():
            with no_grad():
                assert not Config.enable_backprop
            assert not Config.enable_backprop
            raise ZeroDivisionError("boom")
    assert Config.enable_backprop


def test_test_mode_switches_train_off() -> None:
    assert Config.train
    with minitorch.test_mode():  # not imported by name: pytest would collect it
        assert not Config.train
    assert Config.train


def test_unknown_switch_is_an_error() -> None:
    with pytest.raises(AttributeError, match="enable_backprob"):
        with using_config("enable_backprob", False):
            pass


def test_assignment_changes_the_switch() -> None:
    Config.train = False
    try:
        assert not Config.train
    finally:
        Config.train = True


def test_no_grad_in_one_thread_does_not_affect_another() -> None:
    inside = threading.Event()
    release = threading.Event()
    seen: list[bool] = []

    def hold_no_grad() -> None:
        with no_grad():
            inside.set()
            release.wait(5)

    worker = threading.Thread(target=hold_no_grad)
    worker.start()
    inside.wait(5)

    def record() -> None:
        y = Variable(np.array(1.0)) * 2.0
        seen.append(Config.enable_backprop and y.creator is not None)

    other = threading.Thread(target=record)
    other.start()
    other.join()
    release.set()
    worker.join()
    assert seen == [True]
