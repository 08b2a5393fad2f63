"""The History training log."""

from __future__ import annotations

import math

import numpy as np
import pytest

from minitorch import Variable
from minitorch.history import History


def test_log_aligns_metrics_that_start_late_or_skip_rows():
    h = History()
    h.log(loss=1.0)
    h.log(loss=0.5, test_acc=np.float32(0.25))
    h.log(loss=Variable(np.array(0.25)))
    assert h.steps == [1, 2, 3]
    assert h["loss"] == [1.0, 0.5, 0.25]
    assert math.isnan(h["test_acc"][0]) and h["test_acc"][1] == 0.25
    assert math.isnan(h["test_acc"][2])
    assert h.last("test_acc") == 0.25
    assert len(h.steps) == 3 and "loss" in h and list(h) == ["loss", "test_acc"]
    assert len(h) == 2 and dict(h) == h.metrics  # a Mapping of metric lists


def test_log_errors():
    h = History()
    h.log(epoch=5, loss=1.0)
    with pytest.raises(ValueError, match="epoch 5 must exceed the last \\(5\\)"):
        h.log(epoch=5, loss=1.0)
    with pytest.raises(TypeError, match="'loss' must be a number"):
        h.log(loss="high")
    with pytest.raises(KeyError, match="no metric 'acc'"):
        h["acc"]


def test_viz_plot_history_reads_it():
    viz = pytest.importorskip("viz")
    pytest.importorskip("matplotlib")
    h = History()
    for epoch, (loss, acc) in enumerate([(1.0, 0.5), (0.5, 0.8)], start=1):
        h.log(epoch=epoch, loss=loss, accuracy=acc)
    fig = viz.plot_history(h)
    assert [ax.get_title() for ax in fig.axes] == ["loss", "accuracy"]


def test_save_load_round_trip(tmp_path):
    h = History()
    h.log(epoch=10, loss=2.0)
    h.log(epoch=20, loss=1.0, acc=0.5)
    h.save(tmp_path / "h.json")
    back = History.load(tmp_path / "h.json")
    assert back.steps == [10, 20] and back["loss"] == [2.0, 1.0]
    assert math.isnan(back["acc"][0]) and back["acc"][1] == 0.5
    (tmp_path / "bad.json").write_text('{"steps": [1]}')
    with pytest.raises(ValueError, match="not a History JSON"):
        History.load(tmp_path / "bad.json")


# ---- infinite losses ----------------------------------------------------------------------


def test_history_with_an_infinite_loss_saves_standard_json(tmp_path):
    import json
    import math

    from minitorch.history import History

    h = History()
    h.log(loss=math.inf)
    h.log(loss=-math.inf, accuracy=0.5)
    h.log(loss=float("nan"))
    path = tmp_path / "h.json"
    h.save(path)

    def reject(token: str) -> None:
        raise ValueError(f"not standard JSON: {token}")

    json.loads(path.read_text(), parse_constant=reject)  # wrote Infinity before
    back = History.load(path)
    assert back["loss"][:2] == [math.inf, -math.inf] and math.isnan(back["loss"][2])
    assert back["accuracy"][1] == 0.5 and math.isnan(back["accuracy"][0])
