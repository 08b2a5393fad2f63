"""``History``: a tiny training log that loops append to and plots read.

A training loop calls ``history.log(epoch=e, loss=..., accuracy=...)`` once per epoch
(or step); each metric becomes a list, aligned with ``history.steps``. Plotting helpers
(``viz``) and notebooks read ``history["loss"]`` or ``history.metrics`` — plain Python
lists of floats — so they need nothing from minitorch, and ``save``/``load`` keep a run
as JSON next to its weights.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Mapping
from typing import Any


class History(Mapping[str, list[float]]):
    """Per-epoch metrics of a training run, as lists of floats.

    A read-only mapping ``{metric name: list of values}`` (so ``viz.plot_history(h)``,
    ``dict(h)`` and ``h.items()`` work), plus the aligned ``steps``.

    Metrics may appear at some steps only (e.g. test accuracy every 10 epochs): a
    missing value is stored as ``nan``, so every list stays as long as ``steps``.

    Attributes:
        steps: the epoch (or step) number of each logged row.
        metrics: ``{name: [value per row]}``, in the order names first appeared.

    Example:
        >>> h = History()
        >>> h.log(epoch=1, loss=0.9)
        >>> h.log(epoch=2, loss=0.5, accuracy=0.75)
        >>> h["loss"], h.last("accuracy")
        ([0.9, 0.5], 0.75)
        >>> h.summary()
        'epoch 2: loss 0.5000, accuracy 0.7500'
    """

    def __init__(self) -> None:
        self.steps: list[int] = []
        self.metrics: dict[str, list[float]] = {}

    def log(self, epoch: int | None = None, **values: Any) -> None:
        """Append one row: ``epoch`` (default: previous + 1) and named scalar metrics.

        Values may be Python numbers, NumPy scalars, 0-d/1-element arrays or Variables
        (anything with ``.item()``).

        Raises:
            TypeError: if a value is not a number.
            ValueError: if ``epoch`` is not larger than the last one logged.
        """
        step = (self.steps[-1] + 1 if self.steps else 1) if epoch is None else int(epoch)
        if self.steps and step <= self.steps[-1]:
            raise ValueError(f"History.log: epoch {step} must exceed the last ({self.steps[-1]})")
        row = {name: _as_float(name, value) for name, value in values.items()}
        for name in row.keys() - self.metrics.keys():
            self.metrics[name] = [math.nan] * len(self.steps)
        self.steps.append(step)
        for name, column in self.metrics.items():
            column.append(row.get(name, math.nan))

    def __getitem__(self, name: str) -> list[float]:
        if name not in self.metrics:
            raise KeyError(f"History: no metric {name!r}; logged: {list(self.metrics)}")
        return self.metrics[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.metrics)

    def __len__(self) -> int:
        """The number of metrics (a Mapping's length); ``len(h.steps)`` counts rows."""
        return len(self.metrics)

    def last(self, name: str) -> float:
        """The most recent non-NaN value of ``name`` (``nan`` if none)."""
        return next((v for v in reversed(self[name]) if not math.isnan(v)), math.nan)

    def summary(self) -> str:
        """The last row as text, e.g. for a ``tqdm`` postfix or a print."""
        if not self.steps:
            return "no entries"
        parts = [f"{name} {column[-1]:.4f}" for name, column in self.metrics.items()]
        return f"epoch {self.steps[-1]}: " + ", ".join(parts)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the log as standard JSON (RFC 8259), readable by any JSON parser.

        ``NaN`` entries become ``null`` and infinities (a diverged loss) the strings
        ``"inf"``/``"-inf"``; :meth:`load` reads both back.
        """
        rows = {name: [_json_number(v) for v in col] for name, col in self.metrics.items()}
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"steps": self.steps, "metrics": rows}, f, indent=1, allow_nan=False)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> History:
        """Read a log written by :meth:`save`.

        Raises:
            ValueError: if the file is not such a log.
        """
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
        try:
            history = cls()
            history.steps = [int(s) for s in raw["steps"]]
            for name, column in raw["metrics"].items():
                history.metrics[name] = [math.nan if v is None else float(v) for v in column]
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise ValueError(f"History.load: {path} is not a History JSON file ({exc})") from exc
        if any(len(col) != len(history.steps) for col in history.metrics.values()):
            raise ValueError(f"History.load: {path} has metric lists of different lengths")
        return history

    def __repr__(self) -> str:
        return f"History({len(self.steps)} entries: {', '.join(self.metrics) or 'no metrics'})"


def _json_number(value: float) -> float | str | None:
    """A float as standard JSON allows it: NaN as ``None``, infinities as strings."""
    if math.isnan(value):
        return None
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def _as_float(name: str, value: Any) -> float:
    item = getattr(value, "item", None)
    try:
        return float(item() if callable(item) else value)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"History.log: metric {name!r} must be a number, got {type(value).__name__}"
        ) from exc
