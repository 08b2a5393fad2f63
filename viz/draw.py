"""Pictures of a graph: ``draw_graph`` for Jupyter and ``render`` for files.

Both hand the text of :func:`viz.to_dot` to a Graphviz renderer (:mod:`viz.renderer`):
the system ``dot`` program when it is on ``PATH``, else the ``graphviz-pure`` wheel that
``pip install "minitorch[viz]"`` brings, or the one chosen with :func:`viz.set_renderer`
or ``MINITORCH_VIZ_RENDERER``. In Jupyter a graph shows as SVG, with a PNG beside it
for viewers that do not show SVG (JupyterLab in an untrusted notebook, GitHub). When no
renderer is installed, ``draw_graph`` still displays (the DOT text plus one line on what
to install) and ``render`` raises :class:`GraphvizNotFoundError` saying what to install.
"""

from __future__ import annotations

import base64
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import graphviz

from minitorch import Variable
from viz import renderer
from viz.dot import OPTIONS, reject_unknown, to_dot
from viz.renderer import INSTALL_HINT, GraphvizNotFoundError

__all__ = [
    "FORMATS",
    "INSTALL_HINT",
    "GraphView",
    "GraphvizNotFoundError",
    "check_folder",
    "draw_graph",
    "pipe_dot",
    "render",
    "write_atomic",
]

#: File suffix -> Graphviz output format (None: the DOT text itself).
FORMATS: dict[str, str | None] = {".svg": "svg", ".png": "png", ".pdf": "pdf", ".dot": None}

#: The keyword options of render: OPTIONS plus the PNG resolution.
RENDER_OPTIONS = (*OPTIONS, "dpi")

#: The PNG beside a notebook's SVG is drawn at twice the SVG's size (sharp on HiDPI
#: screens) and shown at the SVG's size, but never wider than this many pixels.
PNG_SCALE = 2.0
MAX_PNG_PIXELS = 4000

_NODE_LINE = {kind: re.compile(rf"^\t+{kind}\d+ \[label=", re.MULTILINE) for kind in "vf"}
_SVG_SIZE = re.compile(r'<svg[^>]*?width="([0-9.]+)pt"[^>]*?height="([0-9.]+)pt"', re.DOTALL)


def pipe_dot(source: str, fmt: str, dpi: float | None = None) -> bytes:
    """Render ``source`` to ``fmt`` with the current renderer (see :mod:`viz.renderer`).

    Args:
        source: DOT text.
        fmt: ``svg`` or ``png`` (every renderer), ``pdf`` (the system ``dot`` only).
        dpi: pixels per inch for ``png`` (``None``: 96).

    Returns:
        The rendered bytes.

    Raises:
        GraphvizNotFoundError: if no renderer is installed (the message says what to
            install).
        ValueError: if the renderer cannot write ``fmt``.
        RuntimeError: if the renderer fails (its error message is included).

    Example:
        >>> try:
        ...     svg = pipe_dot("digraph { a -> b }", "svg")
        ... except GraphvizNotFoundError:  # without any renderer, pretend
        ...     svg = b"<?xml version="
        >>> svg.startswith(b"<?xml")
        True
    """
    return renderer.pipe(source, fmt, dpi)


def svg_size(svg: str) -> tuple[float, float] | None:
    """``(width, height)`` in points of a Graphviz SVG, or ``None`` if it states none.

    Example:
        >>> svg_size('<svg width="62pt" height="116pt" viewBox="0 0 62 116">')
        (62.0, 116.0)
    """
    match = _SVG_SIZE.search(svg)
    return (float(match[1]), float(match[2])) if match else None


def notebook_bundle(source: str, text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``(data, metadata)`` a notebook stores for a graph: SVG, PNG and text.

    The PNG is drawn at :data:`PNG_SCALE` times the SVG's size (fewer pixels for very
    wide graphs) and its metadata asks viewers to show it at the SVG's size
    (1 pt = 4/3 CSS px).

    Raises:
        GraphvizNotFoundError: if no renderer is installed.

    Example:
        >>> try:
        ...     data, meta = notebook_bundle("digraph { a -> b }", "a graph")
        ... except GraphvizNotFoundError:
        ...     data = {"image/svg+xml": "", "image/png": b"", "text/plain": "a graph"}
        >>> sorted(data)
        ['image/png', 'image/svg+xml', 'text/plain']
    """
    svg = pipe_dot(source, "svg").decode("utf-8")
    size = svg_size(svg)
    dpi = 96 * PNG_SCALE
    metadata: dict[str, Any] = {}
    if size is not None:
        width_px = size[0] * 4 / 3
        dpi = min(dpi, 96 * MAX_PNG_PIXELS / max(width_px, 1.0))
        metadata["image/png"] = {"width": round(width_px), "height": round(size[1] * 4 / 3)}
    png = pipe_dot(source, "png", dpi=round(dpi, 1))
    png_text = base64.b64encode(png).decode("ascii")  # how notebooks store images
    return {"image/svg+xml": svg, "image/png": png_text, "text/plain": text}, metadata


class GraphView(graphviz.Digraph):
    """A ``graphviz.Digraph`` holding a minitorch graph, made for notebooks.

    Its ``repr`` is fixed text (no memory address, so notebook outputs stay identical
    between runs). In Jupyter it displays as SVG plus a PNG of the same picture (shown by
    viewers that do not show SVG: JupyterLab in an untrusted notebook, GitHub); without
    any renderer it displays the DOT text plus a line saying what to install, instead of
    raising. ``.source`` is exactly the text :func:`viz.to_dot` returns, and
    ``.pipe(format)`` renders with the renderer of :mod:`viz.renderer`.

    Args:
        source: DOT text as written by :func:`viz.to_dot`.
        summary: a short description used by ``repr``.

    Raises:
        ValueError: if ``source`` is not DOT text written by :func:`viz.to_dot`.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> GraphView(to_dot(Variable(np.array(1.0))), "1 node")
        <viz.GraphView 1 node>
    """

    def __init__(self, source: str, summary: str = "") -> None:
        lines = source.splitlines()
        if not lines or lines[0] != "digraph minitorch {" or lines[-1] != "}":
            raise ValueError("viz.GraphView: expected DOT text written by viz.to_dot")
        super().__init__(name="minitorch", body=[line + "\n" for line in lines[1:-1]])
        self.summary = summary

    def __repr__(self) -> str:
        return f"<viz.GraphView {self.summary}>".replace(" >", ">")

    def pipe(self, format: str | None = None, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        """The picture as bytes, by viz's renderer (``format``: ``svg``, ``png``, ``pdf``).

        With any other argument of ``graphviz.Digraph.pipe`` (``engine=``,
        ``renderer=`` ...) it falls back to the ``graphviz`` package, which needs ``dot``.
        """
        if args or kwargs:
            return super().pipe(format, *args, **kwargs)
        return pipe_dot(self.source, format or "svg")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> Any:
        try:
            return notebook_bundle(self.source, repr(self))
        except GraphvizNotFoundError:
            return {"text/plain": self.source + f"// {INSTALL_HINT}\n"}
        except ValueError as exc:  # MINITORCH_VIZ_RENDERER names no renderer
            return {"text/plain": self.source + f"// {exc}\n"}


def draw_graph(
    output: Variable | list[Variable] | tuple[Variable, ...],
    *,
    show_values: bool = False,
    show_grads: bool = False,
    show_shapes: bool = True,
    verbose: bool = False,
    rankdir: str = "TB",
    max_nodes: int | None = None,
    hide_constants: bool = False,
    legend: bool = False,
    module: Any = None,
    group_modules: bool = False,
    show_memory: bool = False,
    **unknown: Any,
) -> GraphView:
    """Draw the graph behind ``output``; the result displays inline in Jupyter.

    Args:
        output: a Variable or a list/tuple of Variables.
        show_values: add each Variable's values (small arrays in full, else a summary).
        show_grads: add the gradients of leaves and outputs (one note explains the
            intermediates' gradients that ``backward`` did not keep).
        show_shapes: add each Variable's shape and dtype.
        verbose: add generation numbers and ``requires_grad``.
        rankdir: ``"TB"`` (top to bottom), ``"BT"``, ``"LR"`` or ``"RL"``.
        max_nodes: stop expanding after this many nodes; a note marks where it stopped.
        hide_constants: leave out constants that ops made from numbers (``x * 2.0``).
        legend: add a one-row legend of the colours the graph uses.
        module: an ``nn.Module``; its parameters are named by their dotted paths.
        group_modules: with ``module``, draw a box around each sub-module's nodes.
        show_memory: add to each Function the bytes it keeps for backward, and their
            total under the graph (each array once; see :func:`viz.to_dot`).
        **unknown: rejected: any other keyword is a TypeError naming the valid ones.

    Returns:
        A :class:`GraphView` (a ``graphviz.Digraph``): ``.source`` is the DOT text,
        ``.pipe("png")`` the picture, and Jupyter shows it as SVG (and PNG).

    Raises:
        TypeError: for an unknown option (the message lists the valid ones), or as
            :func:`viz.to_dot`.
        ValueError: as :func:`viz.to_dot`, or if ``MINITORCH_VIZ_RENDERER`` holds an
            unknown name.
        GraphvizNotFoundError: if the renderer chosen by name in
            ``MINITORCH_VIZ_RENDERER`` is not installed (with ``auto`` and no Graphviz,
            the graph displays as DOT text plus what to install instead).

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> x = Variable(np.array(1.0), name="x")
        >>> draw_graph(x.exp() * x)
        <viz.GraphView 5 nodes: 3 Variables, 2 Functions>
    """
    reject_unknown(unknown, "viz.draw_graph", OPTIONS)
    renderer.check_choice()  # a renderer chosen by name but missing: say so now
    options = {name: value for name, value in locals().items() if name in OPTIONS}
    source = to_dot(output, **options)
    n_vars = len(_NODE_LINE["v"].findall(source))
    n_funcs = len(_NODE_LINE["f"].findall(source))
    summary = f"{n_vars + n_funcs} nodes: {n_vars} Variables, {n_funcs} Functions"
    return GraphView(source, summary)


def render(
    output: Variable | list[Variable] | tuple[Variable, ...],
    path: str | os.PathLike[str],
    *,
    show_values: bool = False,
    show_grads: bool = False,
    show_shapes: bool = True,
    verbose: bool = False,
    rankdir: str = "TB",
    max_nodes: int | None = None,
    hide_constants: bool = False,
    legend: bool = False,
    module: Any = None,
    group_modules: bool = False,
    show_memory: bool = False,
    dpi: float | None = None,
    **unknown: Any,
) -> Path:
    """Write the graph behind ``output`` to ``path``; the suffix picks the format.

    ``.svg`` and ``.png`` need a renderer (the system ``dot`` or ``graphviz-pure``, see
    :mod:`viz.renderer`), ``.pdf`` the system ``dot``; ``.dot`` writes the DOT text and
    needs nothing. The file is written atomically: to a temporary file in the same
    folder, then renamed over ``path``, so a failure never leaves half a file.

    Args:
        output: a Variable or a list/tuple of Variables.
        path: where to write; its suffix is one of ``.svg .png .pdf .dot``.
        show_values: add each Variable's values (small arrays in full, else a summary).
        show_grads: add the gradients of leaves and outputs (one note explains the
            intermediates' gradients that ``backward`` did not keep).
        show_shapes: add each Variable's shape and dtype.
        verbose: add generation numbers and ``requires_grad``.
        rankdir: ``"TB"`` (top to bottom), ``"BT"``, ``"LR"`` or ``"RL"``.
        max_nodes: stop expanding after this many nodes; a note marks where it stopped.
        hide_constants: leave out constants that ops made from numbers (``x * 2.0``).
        legend: add a one-row legend of the colours the graph uses.
        module: an ``nn.Module``; its parameters are named by their dotted paths.
        group_modules: with ``module``, draw a box around each sub-module's nodes.
        show_memory: add to each Function the bytes it keeps for backward, and their
            total under the graph (each array once; see :func:`viz.to_dot`).
        dpi: pixels per inch of a ``.png``, from 36 to 1200; ``None`` (the default)
            means :data:`viz.renderer.DEFAULT_DPI`, 192: twice Graphviz's 96, so labels
            stay readable on a 1280×720 projector. Only for ``.png``: SVG and PDF are
            vector pictures that scale without it.
        **unknown: rejected: any other keyword is a TypeError naming the valid ones.

    Returns:
        ``path`` as a ``pathlib.Path``.

    Raises:
        TypeError: for an unknown option (the message lists the valid ones).
        ValueError: for any other suffix (the message lists the supported ones),
            ``.pdf`` with a renderer that cannot write PDF, a ``dpi`` that is not a
            number from 36 to 1200, or ``dpi`` with a suffix other than ``.png``.
        GraphvizNotFoundError: if the format needs a renderer and none is installed, or
            the one chosen by name (``MINITORCH_VIZ_RENDERER``) is not installed.
        FileNotFoundError: if the folder of ``path`` does not exist (checked first).
        OSError: if the file cannot be written; the message names ``path``.

    Example:
        >>> import numpy as np, tempfile, os
        >>> from minitorch import Variable
        >>> x = Variable(np.array(1.0), name="x")
        >>> target = os.path.join(tempfile.mkdtemp(), "graph.dot")
        >>> render(x * x, target).read_text().startswith("digraph minitorch {")
        True
    """
    reject_unknown(unknown, "viz.render", RENDER_OPTIONS)
    options = {name: value for name, value in locals().items() if name in OPTIONS}
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(
            f"viz.render: unknown file suffix {path.suffix!r} in {str(path)!r}; "
            f"use one of {', '.join(FORMATS)}"
        )
    if dpi is not None:
        dpi = renderer.check_dpi(dpi, "viz.render")
        if suffix != ".png":
            why = _NO_DPI.get(suffix, "it has no pixels")
            raise ValueError(
                f"viz.render: dpi={dpi:g} applies to .png files only, not {path.suffix!r} "
                f"({why}; drop dpi= or write a .png)"
            )
    fmt = FORMATS[suffix]
    if fmt is not None:
        renderer.check_choice()
    check_folder(path)
    source = to_dot(output, **options)
    if fmt == "png":
        dpi = renderer.DEFAULT_DPI if dpi is None else dpi
    data = source.encode("utf-8") if fmt is None else pipe_dot(source, fmt, dpi)
    write_atomic(path, data)
    return path


#: Why ``dpi=`` means nothing for each other suffix (the reason render's error gives).
_NO_DPI = {
    ".svg": "an SVG is a vector picture, sharp at any size",
    ".pdf": "a PDF is a vector picture, sharp at any size",
    ".dot": "a .dot file is the graph's DOT text, which has no pixels",
}


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then ``os.replace`` it.

    A reader never sees half a file, and a failure leaves ``path`` as it was. The file
    gets the usual permissions (``0o666`` minus the umask). Errors name ``path``, never
    the hidden temporary file.

    Raises:
        FileNotFoundError: if the folder of ``path`` does not exist.
        NotADirectoryError: if the "folder" of ``path`` is a file.
        OSError: if the file cannot be written (the message names ``path`` and why).

    Example:
        >>> import tempfile
        >>> target = Path(tempfile.mkdtemp()) / "x.txt"
        >>> write_atomic(target, b"hello"); target.read_bytes()
        b'hello'
    """
    check_folder(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise _named(exc, path) from None
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual rw-r--r--
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.remove(tmp)
        if isinstance(exc, OSError):
            raise _named(exc, path) from None
        raise


def check_folder(path: str | os.PathLike[str]) -> None:
    """Check that the folder a file is to be written into exists (before any work).

    Raises:
        FileNotFoundError: if the folder of ``path`` does not exist.
        NotADirectoryError: if the folder of ``path`` is a file.

    Example:
        >>> check_folder("/no/such/graph.svg")
        Traceback (most recent call last):
        ...
        FileNotFoundError: viz: cannot write /no/such/graph.svg: the folder /no/such does not exist
    """
    folder = Path(path).parent
    if folder.is_dir():
        return
    if folder.exists():
        raise NotADirectoryError(f"viz: cannot write {path}: {folder} is a file, not a folder")
    raise FileNotFoundError(f"viz: cannot write {path}: the folder {folder} does not exist")


def _named(exc: OSError, path: Path) -> OSError:
    """The same kind of error, naming the user's ``path`` instead of the temporary file."""
    why = "it is a folder" if path.is_dir() else (exc.strerror or str(exc))
    return type(exc)(f"viz: cannot write {path}: {why}")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
