"""``make demo`` (``python -m examples.demo``): every output exists and is well-formed.

The demo runs in-process with a few epochs into a temporary folder. The SVGs must parse
as XML, the PNGs open with Pillow, the stepper page holds its frames, and the accuracy
line is printed; ``--dataset mnist`` runs on tiny IDX files written here and fails with
a clear message when they are missing.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import viz
import viz.renderer
from examples import demo, demo_pictures

ROOT = Path(__file__).resolve().parents[1]
PICTURES = ["training.png", "predictions.png", "tanh_derivatives.png"]
GRAPHS = ["loss_graph", "tanh_grad_graph"]
ACCURACY_LINE = re.compile(r"final test accuracy: (\d+\.\d+)% \((\d+) of (\d+) test \w+\) ")

needs_dot = pytest.mark.skipif(
    not demo_pictures.dot_available(),
    reason="no Graphviz renderer (pip install graphviz-pure, or apt-get install graphviz)",
)


def run_demo(*argv: str) -> str:
    """Run the demo in this process and return what it printed."""
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert demo.main(["--no-progress", *argv]) == 0
    return stdout.getvalue()


@pytest.fixture(scope="module")
def digits_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("demo")
    return out, run_demo("--epochs", "3", "--out", str(out))


def test_prints_test_accuracy_and_wall_time(digits_run: tuple[Path, str]) -> None:
    _, printed = digits_run
    match = ACCURACY_LINE.search(printed)
    assert match, printed
    accuracy, correct, total = float(match[1]), int(match[2]), int(match[3])
    assert total == 359  # round(0.2 * 1797) held-out digits
    assert f"({correct} of 359 test digits) after " in printed
    assert accuracy == pytest.approx(100 * correct / total, abs=0.01)
    assert accuracy > 85.0  # three epochs of Adam already learn most digits
    assert re.search(r"wall time: \d+\.\d s", printed)
    assert len(re.findall(r"^epoch [ \d]+/3: loss \d", printed, flags=re.M)) == 3


def test_every_output_is_written_and_its_path_printed(digits_run: tuple[Path, str]) -> None:
    out, printed = digits_run
    suffix = ".svg" if demo_pictures.dot_available() else ".dot"
    names = ["backward.html", *PICTURES, *[g + suffix for g in GRAPHS]]
    for name in names:
        path = out / name
        assert path.is_file() and path.stat().st_size > 0, name
        assert f"wrote {path}" in printed


def test_pngs_open_with_pillow(digits_run: tuple[Path, str]) -> None:
    out, _ = digits_run
    for name in PICTURES:
        with Image.open(out / name) as image:
            image.verify()
            assert image.format == "PNG"
            assert image.size[0] >= 400 and image.size[1] >= 300, name


@needs_dot
def test_svgs_parse_as_xml_and_show_the_graph(digits_run: tuple[Path, str]) -> None:
    out, _ = digits_run
    texts = {}
    for name in GRAPHS:
        root = ET.parse(out / f"{name}.svg").getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        texts[name] = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "loss" in texts["loss_graph"]
    assert "SoftmaxCrossEntropy" in texts["loss_graph"] or "softmax" in texts["loss_graph"].lower()
    assert "d2y/dx2" in texts["tanh_grad_graph"]
    assert "Tanh" in texts["tanh_grad_graph"]


def test_loss_graph_names_parameters_by_module_path(digits_run: tuple[Path, str]) -> None:
    out, _ = digits_run
    text = next(out.glob("loss_graph.*")).read_text(encoding="utf-8")
    assert re.search(r"\b(layers|l\d|fc\d|linears?)\.?\d*\.W\b", text), text[:2000]
    assert "cluster" in text


def test_backward_page_steps_through_the_untrained_first_batch(
    digits_run: tuple[Path, str],
) -> None:
    out, printed = digits_run
    html = (out / "backward.html").read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html")
    # One drawing (SVG, or DOT text without dot) and the steps as data: the MLP's loss
    # runs 4 backward steps (SoftmaxCrossEntropy, Linear, ReLU, Linear).
    if demo_pictures.dot_available():
        assert html.count('class="mts-canvas"><svg') == 1
    else:
        assert html.count("digraph minitorch") == 1
    for counter in ("step 1 of 4", "step 4 of 4"):
        assert counter in html
    for function in ("Linear", "ReLU", "SoftmaxCrossEntropy"):
        assert function in html
    assert "<script" in html and "http://" not in html.replace("http://www.w3.org", "")
    assert (out / "backward.html").stat().st_size < 2_000_000
    assert "untrained network's first batch" in printed
    assert f"open {out / 'backward.html'} in a browser and press \u2192" in printed


def test_same_seed_same_training_run() -> None:
    def history(seed: int) -> dict[str, list[float]]:
        args = demo.parse_args(["--dataset", "spiral", "--epochs", "3", "--seed", str(seed)])
        args.no_progress = True
        task = demo.load_task(args)
        model, prepare = demo.build_model(args, task)
        with contextlib.redirect_stdout(io.StringIO()):
            return demo.train(model, prepare, task, args).metrics

    first, again, other = history(1), history(1), history(2)
    assert first == again
    assert first != other


@pytest.mark.skipif(
    viz.renderer.find_graphviz_pure() is None, reason="graphviz-pure is not installed"
)
def test_without_system_dot_it_draws_svg_with_graphviz_pure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no `dot` on PATH
    monkeypatch.delenv(viz.renderer.ENV_VAR, raising=False)
    assert viz.get_renderer().name == "graphviz-pure"
    printed = run_demo("--dataset", "spiral", "--epochs", "1", "--out", str(tmp_path))
    assert "NOTE" not in printed
    for name in GRAPHS:
        svg = (tmp_path / f"{name}.svg").read_text(encoding="utf-8")
        ET.fromstring(svg)
        assert "(graphviz-pure)" in svg and not (tmp_path / f"{name}.dot").exists()


def test_without_any_renderer_it_trains_writes_dot_sources_and_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(viz.renderer, "find_graphviz_pure", lambda: None)
    assert not demo_pictures.dot_available()
    printed = run_demo("--dataset", "spiral", "--epochs", "2", "--out", str(tmp_path))
    assert ACCURACY_LINE.search(printed)
    for name in GRAPHS:
        dot = (tmp_path / f"{name}.dot").read_text(encoding="utf-8")
        assert dot.startswith("digraph") and dot.rstrip().endswith("}")
        assert not (tmp_path / f"{name}.svg").exists()
    assert "apt-get install graphviz" in printed
    for name in PICTURES:
        assert (tmp_path / name).is_file()


def test_a_renderer_named_but_missing_fails_before_training(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv(viz.renderer.ENV_VAR, "dot")
    assert demo.main(["--no-progress", "--dataset", "spiral", "--out", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "epoch" not in captured.out and list(tmp_path.iterdir()) == []
    (line,) = captured.err.splitlines()
    assert line.startswith("python -m examples.demo: error: the renderer 'dot' was chosen")
    assert "apt-get install graphviz" in line and "'graphviz-pure'" in line


def idx(array: np.ndarray) -> bytes:
    """IDX encoding of a uint8 array: magic 0x0000 08 <ndim>, big-endian sizes, bytes."""
    header = bytes([0, 0, 0x08, array.ndim])
    header += b"".join(int(n).to_bytes(4, "big") for n in array.shape)
    return header + array.astype(np.uint8).tobytes()


def write_tiny_mnist(root: Path, n_train: int = 60, n_test: int = 20, size: int = 28) -> None:
    """Digits drawn as a bright row at height label + 2: learnable, in the real format."""
    rng = np.random.default_rng(0)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        labels = np.arange(n) % 10
        images = rng.integers(0, 40, (n, size, size))
        images[np.arange(n), 2 + labels, 2 : size - 2] = 255
        (root / f"{prefix}-images-idx3-ubyte").write_bytes(idx(images))
        (root / f"{prefix}-labels-idx1-ubyte").write_bytes(idx(labels))


def test_mnist_from_local_idx_files(tmp_path: Path) -> None:
    write_tiny_mnist(tmp_path)
    out = tmp_path / "out"
    printed = run_demo(
        "--dataset", "mnist", "--data-dir", str(tmp_path), "--epochs", "2", "--out", str(out)
    )
    match = ACCURACY_LINE.search(printed)
    assert match and int(match[3]) == 20
    with Image.open(out / "predictions.png") as image:
        image.verify()
    assert (out / "backward.html").is_file()


def test_mnist_missing_files_names_them_and_the_folder(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as excinfo:
        run_demo("--dataset", "mnist", "--data-dir", str(tmp_path), "--out", str(tmp_path))
    message = str(excinfo.value)
    assert "train-images-idx3-ubyte" in message
    assert str(tmp_path) in message
    assert not list(tmp_path.iterdir())  # nothing written before the data was found


def test_module_entry_point_shows_its_options() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "examples.demo", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    for option in (
        "--epochs",
        "--seed",
        "--out",
        "--dataset",
        "--data-dir",
        "--model",
        "--no-progress",
    ):
        assert option in result.stdout
    help_text = " ".join(result.stdout.split())  # argparse wraps lines
    for default in ("(default: build/demo)", "(default: data/mnist)", "(default: 0)"):
        assert default in help_text


@pytest.mark.parametrize("where", ["under_a_file", "file_itself", "proc"])
def test_unusable_out_folder_fails_before_training_naming_it(
    tmp_path: Path, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    out = {"under_a_file": blocker / "out", "file_itself": blocker, "proc": Path("/proc/x")}[where]
    if where == "proc" and not Path("/proc/self").is_dir():
        pytest.skip("no /proc on this system")
    assert demo.main(["--no-progress", "--dataset", "spiral", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert "epoch" not in captured.out  # nothing was trained
    (line,) = captured.err.splitlines()
    assert line.startswith("python -m examples.demo: error: --out ")
    assert str(out) in line
    if where == "under_a_file":
        assert f"{blocker} is a file, not a folder" in line


def test_unusable_out_folder_exits_2_without_a_traceback(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    result = subprocess.run(
        [sys.executable, "-m", "examples.demo", "--out", str(blocker / "out")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and str(blocker / "out") in result.stderr


def test_cnn_model_trains_on_images_and_its_graph_shows_the_convolutions(tmp_path: Path) -> None:
    pytest.importorskip("examples.models")
    write_tiny_mnist(tmp_path, size=12)  # small images keep the convolutions quick
    argv = ["--dataset", "mnist", "--data-dir", str(tmp_path), "--model", "cnn"]
    args = demo.parse_args([*argv, "--epochs", "2", "--no-progress"])
    task = demo.load_task(args)
    model, prepare = demo.build_model(args, task)
    assert prepare(task.x_test).shape == (20, 1, 12, 12)
    with contextlib.redirect_stdout(io.StringIO()):
        history = demo.train(model, prepare, task, args)
    assert history["loss"][-1] < history["loss"][0]
    dot = demo_pictures.draw_loss_graph(model, prepare, task, tmp_path, have_dot=False).read_text()
    assert dot.count(">Conv2d<") == 2 and dot.count(">MaxPool2d<") == 2
    assert "features.0.W" in dot and "classifier.2.W" in dot
    assert "cluster" in dot


def test_readme_shows_the_committed_demo_pictures() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.index("make demo") < readme.index("make test")  # the quick start comes first
    pictures = re.findall(r"\]\((docs/images/[^)\s]+)\)", readme)
    assert {Path(p).suffix for p in pictures} >= {".png", ".svg"}, pictures
    for picture in pictures:
        path = ROOT / picture
        assert path.stat().st_size < 200_000, f"{picture} should be a small copy"
        if path.suffix == ".svg":
            assert ET.parse(path).getroot().tag == "{http://www.w3.org/2000/svg}svg"
        else:
            with Image.open(path) as image:
                image.verify()


def test_digits_without_scikit_learn_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)  # makes the import fail
    with pytest.raises(SystemExit) as excinfo:
        run_demo("--out", str(tmp_path))
    assert "pip install scikit-learn" in str(excinfo.value)


def test_the_stepper_page_leaves_the_untrained_model_as_it_was(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    args = demo.parse_args(["--out", str(tmp_path)])
    task = demo.load_task(args)
    model, prepare = demo.build_model(args, task)
    before = [param.data.copy() for param in model.parameters()]
    with contextlib.redirect_stdout(io.StringIO()):
        path = demo.write_stepper_page(model, prepare, task, args)
    assert path == tmp_path / "backward.html" and path.is_file()
    for param, data in zip(model.parameters(), before):
        assert param.grad is None
        np.testing.assert_array_equal(param.data, data)


def test_predictions_are_readable_on_a_projector_and_mistakes_not_by_colour_alone() -> None:
    from matplotlib.colors import to_hex
    from matplotlib.patches import Rectangle

    rng = np.random.default_rng(0)
    truth = np.arange(40) % 10
    task = demo.Task("digits", np.zeros((1, 64)), np.zeros(1, dtype=np.int64),
                     rng.random((40, 64)).astype(np.float32), truth, 10, (8, 8))  # fmt: skip
    predicted = truth.copy()
    predicted[[3, 17]] = (truth[[3, 17]] + 1) % 10  # two mistakes
    fig = demo_pictures.predictions_figure(task, predicted)
    (ax,) = fig.axes
    labels = [t for t in ax.texts if re.fullmatch(r"\d \(\d\)", t.get_text())]
    assert len(labels) == 32
    # Saved 1280 px wide (a 1280x720 projector): labels of 16 pt are 26 px high there.
    assert fig.get_figwidth() * demo_pictures.PNG_DPI == 1280
    assert min(t.get_fontsize() for t in labels) >= 16
    assert ax.title.get_fontsize() >= 16
    wrong = [t for t in labels if t.get_text().split()[0] != t.get_text()[3]]
    assert len(wrong) == 2
    okabe_ito_vermillion = "#d55e00"  # B. Wong, Nature Methods 8, 441 (2011)
    for text in wrong:  # colour, weight and a box: three cues
        assert to_hex(text.get_color()) == okabe_ito_vermillion
        assert text.get_fontweight() == "bold"
    for text in labels:
        if text not in wrong:
            assert to_hex(text.get_color()) == "#000000" and text.get_fontweight() == "normal"
    boxes = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(boxes) == 2
    assert all(to_hex(b.get_edgecolor()) == okabe_ito_vermillion for b in boxes)


def test_the_spiral_picture_fills_a_projector_like_the_other_pngs(tmp_path: Path) -> None:
    # The other demo PNGs are 1280 px wide (PNG_DPI); the spiral's was 800 x 720.
    args = demo.parse_args(["--dataset", "spiral", "--epochs", "1"])
    task = demo.load_task(args)
    model, prepare = demo.build_model(args, task)
    predicted = np.zeros_like(task.t_test)
    path = demo_pictures.plot_outcome(model, prepare, task, predicted, tmp_path / "p.png")
    with Image.open(path) as image:
        assert image.size == (1280, 720)
    fig = demo_pictures.spiral_figure(model, prepare, task)
    (ax,) = fig.axes
    assert ax.get_aspect() == 1.0  # drawn to scale: the spiral stays round
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["class 0", "class 1", "class 2"]
    assert min(t.get_fontsize() for t in legend.get_texts()) >= 16
