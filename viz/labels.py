"""Text for node labels: escaping user strings and formatting small arrays.

Every string a user controls (a Variable's name, a module's parameter name) reaches the
DOT text only through :func:`escape`, and only inside a Graphviz *HTML-like label*
(``label=<...>``). Inside such a label Graphviz parses XML: after ``&``, ``<``, ``>``,
``"`` and ``'`` become entities, the text can no longer close the label, open a tag or
start an attribute, so ``x"];evil[label="`` is shown literally instead of creating a node.
Braces, ``|`` and backslashes have no meaning in HTML-like labels (they matter only in
record and quoted labels), so they pass through unchanged and are drawn as typed.
Characters that print nothing visible — newlines and other control characters, line
separators, zero-width and bidirectional-override marks, no-break spaces, lone
surrogates — are drawn as their Python escapes (``\\n``, ``\\u202e``), so what you see
is exactly what the string holds.

References:
    Graphviz, "Node, Edge and Graph Attributes: HTML-like labels",
    https://graphviz.org/doc/info/shapes.html#html
"""

from __future__ import annotations

import re
from typing import Any, Literal

import numpy as np

#: The longest name drawn before it is shortened with an ellipsis.
MAX_NAME_LENGTH = 60

_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}
_ENTITY_CHARS = re.compile("[&<>\"']")


def escape(text: str, max_length: int = MAX_NAME_LENGTH) -> str:
    """Escape ``text`` for a Graphviz HTML-like label, so it is drawn literally.

    Args:
        text: any string (names, reprs, error messages).
        max_length: longer texts are cut to this many characters plus ``…``.

    Returns:
        The text with ``& < > " '`` as XML entities and every non-printable character
        (``str.isprintable``: newline, tab, NUL, U+2028, U+202E, ...) as its Python
        escape; the ASCII space stays a space. A leading ``]`` becomes ``&#93;``.

    Raises:
        TypeError: if ``text`` is not a ``str``.

    Example:
        >>> escape('x"];evil[label="<b>')
        'x&quot;];evil[label=&quot;&lt;b&gt;'
        >>> escape("a\\nb")
        'a\\\\nb'
        >>> escape("\\u202ereversed")  # a right-to-left override, shown, not obeyed
        '\\\\u202ereversed'
    """
    if not isinstance(text, str):
        raise TypeError(f"viz.escape: expected a str, got {type(text).__name__}")
    text = visible(text, max_length)
    rest = text.lstrip("]")
    # Graphviz 2.43's HTML-label lexer rejects "<B>]" (a Variable named "]" made `dot`
    # fail); as entities, leading brackets are drawn literally by every Graphviz.
    return "&#93;" * (len(text) - len(rest)) + _entities(rest)


def visible(text: str, max_length: int = MAX_NAME_LENGTH) -> str:
    """``text`` as a drawing shows it, as plain text: shortened, invisible characters spelt.

    What :func:`escape` puts into a label before the XML entities, so a caption that
    names a Variable (the backward stepper's) shows the very text its node shows.

    Args:
        text: any string.
        max_length: longer texts are cut to this many characters plus ``…``.

    Returns:
        The text with every non-printable character as its Python escape.

    Raises:
        TypeError: if ``text`` is not a ``str``.

    Example:
        >>> visible("a\\nb<c>")
        'a\\\\nb<c>'
        >>> visible("x" * 70)[-3:]
        'xx…'
    """
    if not isinstance(text, str):
        raise TypeError(f"viz.visible: expected a str, got {type(text).__name__}")
    if len(text) > max_length:
        text = text[:max_length] + "…"
    if text.isprintable():  # the common case
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _entities(text: str) -> str:
    """``& < > " '`` as XML entities (the text is already :func:`visible`)."""
    if _ENTITY_CHARS.search(text) is None:
        return text
    return "".join(_ENTITIES.get(char, char) for char in text)


def format_array(data: np.ndarray | None, max_elements: int = 6) -> str:
    """Format an array's values compactly for a label (plain text, not yet escaped).

    Small arrays are printed in full on one line, larger ones summarised by their size,
    minimum and maximum. Floats keep 4 digits after the point (4 significant digits below
    1, scientific notation below 1e-4 and from 1e5), and a value that rounding would show
    as a whole number keeps its zeros: tanh(-11) = -0.99999999995 reads ``-1.000``, not
    ``-1.`` as if it were exact, and -4.9e-05 reads ``-4.9e-05``, not ``-0.``.

    Args:
        data: the array (``None`` for a placeholder Variable).
        max_elements: arrays with more elements are summarised.

    Returns:
        One line of text.

    Example:
        >>> format_array(np.array([1.0, 2.5]))
        '[1. 2.5]'
        >>> format_array(np.arange(100.0))
        '100 values in [0.0, 99.0]'
        >>> format_array(np.array(3.0))
        '3.0'
        >>> format_array(np.array([np.tanh(-11.0), -4.9e-05, 1 / 3]))
        '[-1.000 -4.9e-05 0.3333]'
    """
    if data is None:
        return "None"
    data = np.asarray(data)
    if data.size == 0:
        return "[] (empty)"
    if data.ndim == 0:
        return _format_scalar(data)
    if data.size <= max_elements:
        text = np.array2string(data, formatter={"float_kind": _format_element})
        return " ".join(text.split())
    if data.dtype.kind in "biuf":
        low, high = _format_scalar(data.min()), _format_scalar(data.max())
        return f"{data.size} values in [{low}, {high}]"
    return f"{data.size} values"


def _format_scalar(value: np.ndarray | np.generic) -> str:
    item = np.asarray(value).item()
    if not isinstance(item, float):
        return str(item)
    return _format_float(item, trim="0")  # "3.0", as Python prints a float


def _format_element(item: np.floating[Any]) -> str:
    return _format_float(float(item), trim=".")  # "3.", as NumPy prints an array's floats


def _format_float(item: float, trim: Literal["0", "."]) -> str:
    """A float in a label: short, and never an approximation that looks exact."""
    if not np.isfinite(item) or (item != 0 and not 1e-4 <= abs(item) < 1e5):
        return f"{item:.4g}"
    small = abs(item) < 1  # 0.0001234, not 0.0001: 4 significant digits below 1
    text = np.format_float_positional(item, precision=4, fractional=not small, trim=trim)
    rounded = float(text)
    if rounded != item and rounded == int(rounded):
        # -0.99999 would read "-1." like an exact -1: keep the zeros that were rounded to
        return np.format_float_positional(
            item, precision=4, fractional=not small, unique=False, trim="k"
        )
    return text


def format_shape(data: np.ndarray | None) -> str:
    """``(2, 3) float64`` for an array, ``() float64`` for a 0-d one.

    Example:
        >>> format_shape(np.zeros((2, 3), dtype=np.float32))
        '(2, 3) float32'
    """
    if data is None:
        return "no data"
    return f"{tuple(data.shape)} {data.dtype}"


def format_bytes(n: int) -> str:
    """A byte count as ``minitorch.profile``'s table writes it (1 kB = 1024 B).

    Example:
        >>> format_bytes(8000), format_bytes(512), format_bytes(3 * 2**20)
        ('7.81 kB', '512 B', '3.00 MB')
    """
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"
