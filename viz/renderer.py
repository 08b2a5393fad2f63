"""Which program turns DOT text into pictures: the system ``dot`` or ``graphviz-pure``.

Two renderers are supported:

* ``"dot"`` — the Graphviz ``dot`` program found on ``PATH`` (installed by apt, Homebrew,
  conda ...). It writes SVG, PNG and PDF; its layout depends on its version.
* ``"graphviz-pure"`` — the self-contained Graphviz 16.1 engine of the PyPI wheel
  ``graphviz-pure`` (installed with ``pip install "minitorch[viz]"``). It needs no system
  library, writes SVG and PNG (not PDF) and gives byte-identical output on every
  machine, so it is the renderer behind the SVGs stored in the course notebooks.

The choice, strongest first: :func:`set_renderer` (``"auto"`` clears it), the
environment variable ``MINITORCH_VIZ_RENDERER`` (``dot``, ``graphviz-pure`` or
``auto``), then ``auto``: the system ``dot`` when it is on ``PATH``, else
``graphviz-pure``. A renderer that was asked for by name but is missing is an error
(never a silent switch to the other one), so a pinned run cannot change its pictures:
:func:`set_renderer` raises at once, and a name in ``MINITORCH_VIZ_RENDERER`` is checked
by the first ``draw_graph``, ``render`` or ``BackwardStepper`` (:func:`check_choice`).

PNG pictures are drawn at :data:`DEFAULT_DPI` pixels per inch unless asked otherwise
(``viz.render(..., dpi=...)``); Graphviz's own default, 96, gives node labels too small
to read on a projector.
"""

from __future__ import annotations

import numbers
import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

#: The environment variable that picks the renderer (see the module docstring).
ENV_VAR = "MINITORCH_VIZ_RENDERER"
#: The accepted renderer names.
RENDERERS = ("auto", "dot", "graphviz-pure")
#: Output formats each renderer writes.
RENDERER_FORMATS = {
    "dot": ("svg", "png", "pdf", "plain"),
    "graphviz-pure": ("svg", "png", "plain"),
}

INSTALL_HINT = (
    "pip install graphviz-pure (a self-contained Graphviz; it comes with "
    "`pip install \"minitorch[viz]\"`), or install the Graphviz 'dot' program: "
    "sudo apt-get install graphviz (Debian/Ubuntu), brew install graphviz (macOS) or "
    "conda install -c conda-forge graphviz"
)

#: Pixels per inch of the PNGs ``viz.render`` writes: twice Graphviz's 96, so a node's
#: 11 pt label is 29 px high (15 px at 96 dpi): readable on a 1280×720 projector, sharp
#: on HiDPI screens.
DEFAULT_DPI = 192.0
#: The ``dpi`` values accepted (below 36 labels are a few pixels high; above 1200 a
#: small graph is already a many-megapixel image).
DPI_RANGE = (36.0, 1200.0)

_chosen: str | None = None  # set_renderer's choice; None: follow the environment variable


class GraphvizNotFoundError(RuntimeError):
    """No program to render DOT text is installed (neither ``dot`` nor ``graphviz-pure``)."""


@dataclass(frozen=True)
class Renderer:
    """A resolved renderer: its name and the program that runs.

    Attributes:
        name: ``"dot"`` or ``"graphviz-pure"``.
        program: the absolute path of the executable.
        formats: the output formats it writes (``svg``, ``png``, and ``pdf`` for ``dot``).
    """

    name: str
    program: str
    formats: tuple[str, ...]


def set_renderer(name: str | None) -> None:
    """Choose the renderer for every later picture in this process.

    A renderer chosen by name is looked for at once, so a missing one fails here, on
    the line that chose it, and not later at the first picture.

    Args:
        name: ``"dot"`` (the system Graphviz), ``"graphviz-pure"`` (the PyPI wheel), or
            ``"auto"`` / ``None`` to go back to the default (the environment variable
            ``MINITORCH_VIZ_RENDERER`` if set, else ``dot`` when on ``PATH``, else
            ``graphviz-pure``).

    Raises:
        ValueError: for any other name; the message lists the valid ones.
        GraphvizNotFoundError: if the renderer named is not installed; the message says
            how to install it and names the other renderer. The choice is then unchanged.

    Example:
        >>> set_renderer("auto")
        >>> set_renderer("cairo")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: viz.set_renderer: unknown renderer 'cairo'; choose one of 'auto', ...
    """
    global _chosen
    if name is not None and name not in RENDERERS:
        raise ValueError(
            f"viz.set_renderer: unknown renderer {name!r}; choose one of "
            f"{', '.join(repr(r) for r in RENDERERS)}"
        )
    if name in ("dot", "graphviz-pure"):
        _named(name, "by viz.set_renderer")  # raises if it is missing
    _chosen = None if name in (None, "auto") else name


def requested_renderer() -> str:
    """The renderer asked for: ``set_renderer``'s choice, else the environment, else ``auto``.

    Raises:
        ValueError: if ``MINITORCH_VIZ_RENDERER`` holds an unknown name.

    Example:
        >>> requested_renderer() in RENDERERS
        True
    """
    if _chosen is not None:
        return _chosen
    value = os.environ.get(ENV_VAR, "").strip()
    if value == "":
        return "auto"
    if value not in RENDERERS:
        raise ValueError(
            f"viz: the environment variable {ENV_VAR}={value!r} is not a renderer; use one "
            f"of {', '.join(RENDERERS)}"
        )
    return value


def find_graphviz_pure() -> str | None:
    """The path of the ``graphviz-pure`` program, or ``None`` if it is not installed.

    pip puts it in the scripts folder of the Python environment (``.venv/bin``), which is
    not on ``PATH`` when Python is started as ``.venv/bin/python`` without activating the
    environment, so that folder is searched as well as ``PATH``.

    Example:
        >>> path = find_graphviz_pure()
        >>> path is None or "graphviz-pure" in Path(path).name
        True
    """
    found = shutil.which("graphviz-pure")
    if found:
        return found
    folders = {sysconfig.get_path("scripts"), str(Path(sys.executable).parent)}
    for folder in sorted(f for f in folders if f):
        found = shutil.which("graphviz-pure", path=folder)
        if found:
            return found
    return None


def get_renderer() -> Renderer:
    """Resolve the renderer to use now (see the module docstring for the order).

    Returns:
        The :class:`Renderer`.

    Raises:
        GraphvizNotFoundError: if the requested renderer (or, for ``auto``, both) is not
            installed; the message says what to install.
        ValueError: if ``MINITORCH_VIZ_RENDERER`` holds an unknown name.

    Example:
        >>> try:
        ...     name = get_renderer().name
        ... except GraphvizNotFoundError:
        ...     name = "dot"
        >>> name in ("dot", "graphviz-pure")
        True
    """
    wanted = requested_renderer()
    if wanted != "auto":
        return _named(wanted, _source())
    dot = shutil.which("dot")
    if dot:
        return Renderer("dot", dot, RENDERER_FORMATS["dot"])
    pure = find_graphviz_pure()
    if pure:
        return Renderer("graphviz-pure", pure, RENDERER_FORMATS["graphviz-pure"])
    raise GraphvizNotFoundError(f"viz: no Graphviz renderer found; {INSTALL_HINT}")


def check_choice() -> None:
    """Fail now if the renderer asked for by name (not ``auto``) cannot be used.

    ``draw_graph``, ``render`` and ``BackwardStepper`` call it first, so a bad
    ``MINITORCH_VIZ_RENDERER`` is reported by the first call that draws, with what to
    install, instead of a picture quietly replaced by DOT text. With ``auto`` it does
    nothing: then a missing Graphviz is reported where a picture is made.

    Raises:
        ValueError: if ``MINITORCH_VIZ_RENDERER`` holds an unknown name.
        GraphvizNotFoundError: if the renderer named there (or by :func:`set_renderer`)
            is not installed.

    Example:
        >>> set_renderer("auto"); check_choice()
    """
    if requested_renderer() != "auto":
        get_renderer()


def _named(name: str, source: str) -> Renderer:
    """The renderer ``name`` (``dot`` or ``graphviz-pure``); raises if it is missing."""
    if name == "dot":
        dot = shutil.which("dot")
        if dot:
            return Renderer("dot", dot, RENDERER_FORMATS["dot"])
        raise GraphvizNotFoundError(
            f"viz: the renderer 'dot' was chosen ({source}) but the Graphviz 'dot' "
            "program is not on PATH; install it (sudo apt-get install graphviz, brew "
            "install graphviz, conda install -c conda-forge graphviz) or choose "
            "'graphviz-pure' (pip install graphviz-pure: no system library needed)"
        )
    pure = find_graphviz_pure()
    if pure:
        return Renderer("graphviz-pure", pure, RENDERER_FORMATS["graphviz-pure"])
    raise GraphvizNotFoundError(
        f"viz: the renderer 'graphviz-pure' was chosen ({source}) but it is not "
        "installed; pip install graphviz-pure, or choose 'dot' after installing the "
        "Graphviz 'dot' program (sudo apt-get install graphviz, brew install graphviz)"
    )


def check_dpi(dpi: object, caller: str) -> float:
    """Validate a ``dpi=`` option and return it as a float.

    Args:
        dpi: the value given (an int or float in :data:`DPI_RANGE`).
        caller: the function named in the error message (``viz.render``).

    Raises:
        ValueError: if ``dpi`` is not a finite number from 36 to 1200 (``True`` is not a
            number here); the message names ``caller``, the option and the value.

    Example:
        >>> check_dpi(150, "viz.render")
        150.0
        >>> check_dpi(0, "viz.render")
        Traceback (most recent call last):
        ...
        ValueError: viz.render: dpi must be a number of pixels per inch from 36 to 1200, got 0
    """
    low, high = DPI_RANGE
    number = isinstance(dpi, numbers.Real) and not isinstance(dpi, bool)
    if not number or not low <= float(dpi) <= high:  # type: ignore[arg-type]
        raise ValueError(
            f"{caller}: dpi must be a number of pixels per inch from {low:g} to {high:g}, "
            f"got {dpi!r}"
        )
    return float(dpi)  # type: ignore[arg-type]


def _source() -> str:
    return "by viz.set_renderer" if _chosen is not None else f"by {ENV_VAR}"


def pipe(source: str, fmt: str, dpi: float | None = None) -> bytes:
    """Render DOT text with the current renderer and return the bytes it writes.

    Args:
        source: DOT text.
        fmt: an output format the renderer writes (``svg``, ``png``, ``pdf`` for ``dot``).
        dpi: pixels per inch, for ``png`` only (``None``: the renderer's default, 96).

    Returns:
        The rendered bytes.

    Raises:
        GraphvizNotFoundError: if no renderer is installed.
        ValueError: if the renderer cannot write ``fmt`` (``pdf`` with graphviz-pure).
        RuntimeError: if the program fails (its error message is included).

    Example:
        >>> try:
        ...     svg = pipe("digraph { a -> b }", "svg")
        ... except GraphvizNotFoundError:  # without any renderer, pretend
        ...     svg = b"<?xml version="
        >>> svg.startswith(b"<?xml")
        True
    """
    renderer = get_renderer()
    if fmt not in renderer.formats:
        raise ValueError(
            f"viz: the renderer {renderer.name!r} cannot write {fmt!r} (it writes "
            f"{', '.join(renderer.formats)})"
            + ("; install the Graphviz 'dot' program for PDF" if fmt == "pdf" else "")
        )
    command = [renderer.program, f"-T{fmt}"]
    if dpi is not None and fmt == "png":
        command.append(f"-Gdpi={dpi:g}")
    try:
        done = subprocess.run(
            command, input=source.encode("utf-8"), capture_output=True, check=False
        )
    except OSError as exc:  # removed or not executable since it was found
        raise GraphvizNotFoundError(
            f"viz: cannot run {renderer.program}: {exc.strerror or exc}; {INSTALL_HINT}"
        ) from exc
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"viz: {renderer.name} -T{fmt} failed: {stderr}")
    return done.stdout
