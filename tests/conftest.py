"""Shared fixtures of the test suite: a seeded random generator and the tolerances.

Tolerances are defined here once; tests take them from the ``tol`` fixture.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field

import numpy as np
import pytest

from minitorch.core.config import _state

#: minitorch's global switches as the suite starts (before any notebook set one).
_DEFAULT_SWITCHES = _state.get()


@dataclass(frozen=True)
class Tolerances:
    """Comparison tolerances, one entry per kind of check (kwargs for assert_allclose)."""

    float64: dict[str, float] = field(default_factory=lambda: {"rtol": 1e-10, "atol": 1e-12})
    float32: dict[str, float] = field(default_factory=lambda: {"rtol": 1e-5, "atol": 1e-6})
    gradcheck: dict[str, float] = field(
        default_factory=lambda: {"eps": 1e-6, "atol": 1e-5, "rtol": 1e-4}
    )
    # for checks whose chain passes through float32 (astype): central differences lose digits
    gradcheck_loose: dict[str, float] = field(
        default_factory=lambda: {"eps": 1e-3, "atol": 1e-3, "rtol": 1e-3}
    )
    torch: dict[str, float] = field(default_factory=lambda: {"rtol": 1e-9, "atol": 1e-11})


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move everything collection created out of the garbage collector's reach.

    The collected suite (about 8,000 items, their parameters and the test modules) is
    some 600,000 objects that live until the end, and every full ``gc.collect()`` walks
    them: about 0.7 s each, paid by every test that collects (the benchmark harness does
    before each round, the memory tests before they count) and by the collector's own
    runs. ``gc.freeze()`` moves them to the permanent generation; ``gc.get_objects()``
    no longer lists them, and the tests that count objects compare two counts taken
    after this point.
    """
    gc.freeze()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the files that hold a ``slow`` test first, the rest in their order.

    ``make pytest`` hands whole files (or classes) to two workers (``--dist loadscope``,
    in this order: ``--no-loadscope-reorder``). A file of a few long tests started last
    leaves one core idle while the other finishes it (xdist's own order, most tests
    first, ran the nbgrader and graded-alone files last); started first, the many short
    files fill the other core meanwhile. Whole files move, so a file's tests stay
    together and its module fixtures run once.
    """
    slow = {_file(item) for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: _file(item) not in slow)  # stable: the rest keep their order


def _file(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


@pytest.fixture
def tol() -> Tolerances:
    """The tolerances of the suite."""
    return Tolerances()


@pytest.fixture
def rng() -> np.random.Generator:
    """A NumPy generator seeded the same way for every test (reproducible failures)."""
    return np.random.default_rng(20261130)


@pytest.fixture(autouse=True)
def _numpy_print_options_restored():
    """Restore NumPy's print options after each test.

    Some tests execute a notebook's source in the test process, and notebooks 14 and 15
    call ``np.set_printoptions(precision=4)``; without this, a later test that compares
    printed arrays (the docs pages' examples) would depend on which worker ran what first.
    """
    saved = np.get_printoptions()
    yield
    np.set_printoptions(**saved)


#: The folders whose tests run minitorch as users get it: small values kept (saved.edges).
_AS_SHIPPED = {"docs", "notebooks", "benchmarks"}


@pytest.fixture(autouse=True)
def _every_unsaved_input_an_edge(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """Make every input an op does not save an edge, however small (``SMALL_VALUE = -1``).

    minitorch's ops keep an input of at most 1 KiB as a Variable, but the unit tests use
    small arrays to test the edges (``Unsaved``: freeing, the in-place check, graph
    walks, pictures of freed values). The docs, the notebooks and the benchmarks run as
    shipped, and so does a test marked ``small_values_kept`` (the size rule's own tests).
    """
    if _AS_SHIPPED & set(request.node.path.parts) or request.node.get_closest_marker(
        "small_values_kept"
    ):
        yield
        return
    import minitorch.core.saved as saved

    monkeypatch.setattr(saved, "SMALL_VALUE", -1)
    yield


@pytest.fixture(autouse=True)
def _minitorch_config_restored(request: pytest.FixtureRequest):
    """Give each test outside ``tests/notebooks`` minitorch's default global switches.

    Notebooks 03, 05 and 06 set ``Config.save_all = True`` at their top, and the course's
    tests execute notebook sources in the test process (their later tests rely on that
    setting, so they are left alone); without this, a later test of another folder in
    the same worker (a golden picture that shows a freed value) would see every input kept.
    """
    if "notebooks" in request.node.path.parts:
        yield
        return
    saved = _state.get()
    _state.set(_DEFAULT_SWITCHES)
    yield
    _state.set(saved)
