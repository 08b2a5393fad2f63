"""nbval on a machine without Graphviz: skip the notebooks that draw graphs, saying why.

A notebook whose stored outputs hold SVG pictures drawn by Graphviz cannot reproduce them
without the ``dot`` program (``viz.draw_graph`` then shows DOT text instead), so nbval
would report a mismatch that is not a bug. ``make test`` installs Graphviz when run as
root; elsewhere these notebooks are skipped with the install hint.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

SKIP_WITHOUT_DOT = pytest.mark.skip(
    reason="this notebook draws graphs and the Graphviz 'dot' program is not installed "
    "(apt-get install graphviz / brew install graphviz)"
)


def draws_graphs(path: Path) -> bool:
    """True if any stored output of the notebook is an SVG picture."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return any(
        "image/svg+xml" in output.get("data", {})
        for cell in notebook.get("cells", [])
        for output in cell.get("outputs", [])
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if shutil.which("dot"):
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
