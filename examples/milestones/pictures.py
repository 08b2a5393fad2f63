"""Pictures of the ladder: matplotlib on its file-only backend, one PNG per milestone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def figure(ncols: int = 1, width: float = 5.0) -> tuple[Any, Any]:
    """A figure of ``ncols`` panels sized for a 1280x720 slide at 100 dpi."""
    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, 3.8), squeeze=False)
    return fig, axes[0]


def save(fig: Any, path: Path) -> Path:
    """Save ``fig`` as a PNG at ``path`` (its folder is created) and close it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def curves(ax: Any, series: dict[str, list[float]], ylabel: str, title: str) -> None:
    """Draw one line per named series against the epoch number."""
    for label, values in series.items():
        ax.plot(range(1, len(values) + 1), values, label=label, linewidth=2)
    ax.set_xlabel("epoch")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend()
    ax.grid(alpha=0.3)
