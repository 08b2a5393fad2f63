"""Pictures of a graph: ``draw_graph`` for Jupyter and ``render`` for files.

Both hand the text of :func:`viz.to_dot` to the Graphviz ``dot`` program. When ``dot``
is missing, ``draw_graph`` still displays (the DOT text plus one line on what to
install) and ``render`` raises :class:`GraphvizNotFoundError` naming the program.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import graphviz

from minitorch import Variable
from viz.dot import to_dot

#: File suffix -> Graphviz output format (None: the DOT text itself).
FORMATS: dict[str, str | None] = {".svg": "svg", ".png": "png", ".pdf": "pdf", ".dot": None}

INSTALL_HINT = (
    "install the Graphviz 'dot' program to see pictures: sudo apt-get install graphviz "
    "(Debian/Ubuntu), brew install graphviz (macOS) or conda install -c conda-forge graphviz"
)


_NODE_LINE = {kind: re.compile(rf"^\t+{kind}\d+ \[label=", re.MULTILINE) for kind in "vf"}


class GraphvizNotFoundError(RuntimeError):
    """The Graphviz ``dot`` program is not installed (or not on ``PATH``)."""


def pipe_dot(source: str, fmt: str) -> bytes:
    """Run ``dot -T<fmt>`` on ``source`` and return the bytes it writes.

    Args:
        source: DOT text.
        fmt: a Graphviz output format (``svg``, ``png``, ``pdf`` ...).

    Returns:
        The rendered bytes.

    Raises:
        GraphvizNotFoundError: if the ``dot`` program cannot be found.
        RuntimeError: if ``dot`` fails (its error message is included).

    Example:
        >>> try:
        ...     svg = pipe_dot("digraph { a -> b }", "svg")
        ... except GraphvizNotFoundError:  # without dot, pretend
        ...     svg = b"<?xml version="
        >>> svg.startswith(b"<?xml")
        True
    """
    try:
        return graphviz.pipe("dot", fmt, source.encode("utf-8"))
    except graphviz.ExecutableNotFound as exc:
        raise GraphvizNotFoundError(
            f"viz: the 'dot' program was not found; {INSTALL_HINT}"
        ) from exc
    except subprocess.CalledProcessError as exc:
        stderr = exc.stderr.decode("utf-8", "replace") if exc.stderr else ""
        raise RuntimeError(f"viz: dot -T{fmt} failed: {stderr.strip()}") from exc


class GraphView(graphviz.Digraph):
    """A ``graphviz.Digraph`` holding a minitorch graph, made for notebooks.

    Its ``repr`` is fixed text (no memory address, so notebook outputs stay identical
    between runs) and it displays as SVG in Jupyter; without the ``dot`` program it
    displays the DOT text plus a line saying what to install, instead of raising.
    ``.source`` is exactly the text :func:`viz.to_dot` returns.

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

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, **kwargs: Any
    ) -> dict[str, Any]:
        try:
            svg = pipe_dot(self.source, "svg").decode("utf-8")
        except GraphvizNotFoundError:
            return {"text/plain": self.source + f"// {INSTALL_HINT}\n"}
        return {"image/svg+xml": svg, "text/plain": repr(self)}


def draw_graph(output: Variable | list[Variable] | tuple[Variable, ...], **opts: Any) -> GraphView:
    """Draw the graph behind ``output``; the result displays inline in Jupyter.

    Args:
        output: a Variable or a list/tuple of Variables.
        **opts: any keyword argument of :func:`viz.to_dot` (``show_values``,
            ``show_grads``, ``legend``, ``module`` ...).

    Returns:
        A :class:`GraphView` (a ``graphviz.Digraph``): ``.source`` is the DOT text,
        ``.pipe(format="png")`` the picture, and Jupyter shows it as SVG.

    Raises:
        TypeError, ValueError: as :func:`viz.to_dot`.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> x = Variable(np.array(1.0), name="x")
        >>> draw_graph(x.exp() * x)
        <viz.GraphView 5 nodes: 3 Variables, 2 Functions>
    """
    source = to_dot(output, **opts)
    n_vars = len(_NODE_LINE["v"].findall(source))
    n_funcs = len(_NODE_LINE["f"].findall(source))
    summary = f"{n_vars + n_funcs} nodes: {n_vars} Variables, {n_funcs} Functions"
    return GraphView(source, summary)


def render(
    output: Variable | list[Variable] | tuple[Variable, ...],
    path: str | os.PathLike[str],
    **opts: Any,
) -> Path:
    """Write the graph behind ``output`` to ``path``; the suffix picks the format.

    ``.svg``, ``.png`` and ``.pdf`` need the Graphviz ``dot`` program; ``.dot`` writes the
    DOT text and needs nothing. The file is written atomically: to a temporary file in the
    same folder, then renamed over ``path``, so a failure never leaves half a file.

    Args:
        output: a Variable or a list/tuple of Variables.
        path: where to write; its suffix is one of ``.svg .png .pdf .dot``.
        **opts: any keyword argument of :func:`viz.to_dot`.

    Returns:
        ``path`` as a ``pathlib.Path``.

    Raises:
        ValueError: for any other suffix (the message lists the supported ones).
        GraphvizNotFoundError: if the format needs ``dot`` and it is not installed.
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
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(
            f"viz.render: unknown file suffix {path.suffix!r} in {str(path)!r}; "
            f"use one of {', '.join(FORMATS)}"
        )
    check_folder(path)
    source = to_dot(output, **opts)
    fmt = FORMATS[suffix]
    data = source.encode("utf-8") if fmt is None else pipe_dot(source, fmt)
    write_atomic(path, data)
    return path


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
