"""docs/hooks/notebook_steppers.py: a notebook page shows the live stepper, not its picture.

The hook is tried on a small notebook rendered by mkdocs-jupyter itself (the real page
markup), and on the built site: notebook 05's page steps live while the published
``.ipynb`` keeps the picture for an untrusted JupyterLab. The browser side (the keys, the
width) is in ``test_site_browser.py``.
"""

from __future__ import annotations

import base64
import io
import json
import sys
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

from viz.stepper import STEPPER_MIME

ROOT = Path(__file__).resolve().parents[2]
# Markup that an HTML re-parse would change: the SVG attribute's case and the script's
# "<" and "&&" (BeautifulSoup lowercases one and may escape the others).
STEPPER = (
    '<div id="minitorch-stepper-t-1" class="minitorch-stepper">'
    '<svg viewBox="0 0 10 10"><g id="minitorch-stepper-t-1-n_a"></g></svg>'
    '<script>if (1 < 2 && "a") { window.minitorchTest = 1; }</script></div>'
)


def hook() -> ModuleType:
    import importlib.util

    path = ROOT / "docs" / "hooks" / "notebook_steppers.py"
    spec = importlib.util.spec_from_file_location("notebook_steppers_hook", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def png_base64(colour: str) -> str:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), colour).save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def widget_notebook(png: str) -> nbformat.NotebookNode:
    """A notebook as run_notebooks.py stores it: a stepper widget after a printed line."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    cell = nbformat.v4.new_code_cell("print('before')\nstepper", id="nb-1")
    cell.execution_count = 1
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="before\n"),
        nbformat.v4.new_output(
            "execute_result",
            execution_count=1,
            data={
                "application/vnd.jupyter.widget-view+json": {
                    "model_id": "0123456789abcdef",
                    "version_major": 2,
                    "version_minor": 0,
                },
                "image/png": png,
                "text/plain": "<viz.StepperWidget 1 step; run the cell to step through backward>",
                STEPPER_MIME: STEPPER,
            },
        ),
    ]
    nb.cells = [nbformat.v4.new_markdown_cell("# A stepper"), cell]
    return nb


def rendered(tmp_path: Path, nb: nbformat.NotebookNode) -> str:
    """The page body mkdocs-jupyter makes of ``nb`` (as in mkdocs.yml: no execution)."""
    convert = pytest.importorskip("mkdocs_jupyter.nbconvert2")
    path = tmp_path / "01_a.ipynb"
    nbformat.write(nb, path)
    return str(convert.nb2html(str(path), execute=False))


def test_the_stored_stepper_replaces_its_picture_byte_for_byte(tmp_path: Path) -> None:
    bs4 = pytest.importorskip("bs4")
    png = png_base64("red")
    nb = widget_notebook(png)
    content = rendered(tmp_path, nb)
    assert png in content and STEPPER not in content  # mkdocs-jupyter shows the picture
    page = hook().insert_steppers(content, json.loads(nbformat.writes(nb)), "01_a.ipynb")
    assert STEPPER in page and png not in page
    soup = bs4.BeautifulSoup(page, "html.parser")
    output = soup.select_one(".minitorch-stepper").parent
    assert "jp-OutputArea-output" in output["class"] and output.has_attr("data-search-exclude")
    assert "before" in soup.select_one("#cell-id\\=nb-1").get_text()  # the other output stays


def test_a_page_without_steppers_is_left_as_it_is(tmp_path: Path) -> None:
    nb = widget_notebook(png_base64("red"))
    del nb.cells[1].outputs[1]["data"][STEPPER_MIME]
    content = rendered(tmp_path, nb)
    assert hook().insert_steppers(content, json.loads(nbformat.writes(nb)), "a") == content


def test_a_page_that_disagrees_with_its_notebook_fails_the_build(tmp_path: Path) -> None:
    module = hook()
    nb = widget_notebook(png_base64("red"))
    content = rendered(tmp_path, nb)
    other = json.loads(nbformat.writes(widget_notebook(png_base64("blue"))))
    with pytest.raises(module.PluginError, match="not the stepper's stored picture"):
        module.insert_steppers(content, other, "01_a.ipynb")
    moved = json.loads(nbformat.writes(nb))
    moved["cells"][1]["id"] = "elsewhere"
    with pytest.raises(module.PluginError, match="cell 'elsewhere' has no output 1"):
        module.insert_steppers(content, moved, "01_a.ipynb")


def stepper_notebooks() -> list[Path]:
    return [
        p
        for p in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
        if STEPPER_MIME in p.read_text(encoding="utf-8")
    ]


def test_notebooks_05_and_14_hold_a_stepper() -> None:
    assert [p.name[:2] for p in stepper_notebooks()] == ["05", "14"]


@pytest.mark.parametrize("notebook", stepper_notebooks(), ids=lambda p: p.stem[:2])
def test_the_site_steps_live_and_publishes_the_picture(site_dir: Path, notebook: Path) -> None:
    page = (site_dir / "notebooks" / f"{notebook.stem}.html").read_text(encoding="utf-8")
    published = json.loads((site_dir / "notebooks" / notebook.name).read_text("utf-8"))
    outputs = [
        output["data"]
        for cell in published["cells"]
        for output in cell.get("outputs", [])
        if STEPPER_MIME in output.get("data", {})
    ]
    assert outputs, f"the published {notebook.name} lost its stepper output"
    for data in outputs:
        # the download, opened untrusted in JupyterLab, shows the picture, not soup
        assert "text/html" not in data and "image/png" in data
        assert "".join(data[STEPPER_MIME]) in page  # the page has the live stepper ...
        assert "".join(data["image/png"]) not in page  # ... in place of the picture
