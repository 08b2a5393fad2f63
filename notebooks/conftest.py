"""nbval's set-up: kernels over Unix sockets, and no graph notebooks without a renderer.

nbval's kernels talk over Unix sockets (``scripts/kernels.py``): the two workers of ``make
nbval`` start kernels side by side, and over TCP a kernel could lose one of its ports to
the other worker and die before its first cell.

On a machine without any Graphviz renderer, the notebooks that draw graphs are skipped.

A notebook whose stored outputs hold SVG pictures cannot reproduce them without a
renderer (``viz.draw_graph`` then shows DOT text instead), so nbval would report a
mismatch that is not a bug. The viz extra installs ``graphviz-pure`` (which ``make
test`` pins for nbval, as the notebooks' outputs were made with it), so this skip only
happens where that wheel is missing; the reason says what to install.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.kernels import kernel_manager

try:
    import nbval.kernel
except ImportError:  # pytest on the notebooks' helper modules alone, without nbval
    pass
else:
    # nbval builds its manager as ``KernelManager(kernel_name=..., kernel_spec_manager=...)``.
    nbval.kernel.KernelManager = kernel_manager  # type: ignore[misc,assignment]

SKIP_WITHOUT_DOT = pytest.mark.skip(
    reason="this notebook draws graphs and no Graphviz renderer is installed "
    "(pip install graphviz-pure, or apt-get install graphviz / brew install graphviz)"
)


def draws_graphs(path: Path) -> bool:
    """True if any stored output of the notebook is an SVG picture."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return any(
        "image/svg+xml" in output.get("data", {})
        for cell in notebook.get("cells", [])
        for output in cell.get("outputs", [])
    )


def _renderer_available() -> bool:
    """Whether viz can render (the renderer MINITORCH_VIZ_RENDERER asks for, if set)."""
    try:
        from viz.renderer import get_renderer

        get_renderer()
    except Exception:  # GraphvizNotFoundError, a bad MINITORCH_VIZ_RENDERER, no viz
        return False
    return True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _renderer_available():
        return
    verdicts: dict[Path, bool] = {}
    for item in items:
        path = Path(str(item.path))
        if path.suffix != ".ipynb":
            continue
        if path not in verdicts:
            verdicts[path] = draws_graphs(path)
        if verdicts[path]:
            item.add_marker(SKIP_WITHOUT_DOT)
