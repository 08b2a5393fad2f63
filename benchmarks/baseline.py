"""Benchmark another commit of minitorch as a peer, in the same run (``--baseline REV``).

"Is this change slower?" is best answered side by side: the same process, the same
interleaved rounds, paired per-round ratios. Two versions of one package cannot both be
imported as ``minitorch``, so the other commit's ``minitorch/`` is extracted with
``git archive`` into ``build/bench/baseline-<sha>/`` and renamed to the package
``minitorch_baseline`` (its own ``import minitorch...`` lines rewritten to match, so its
code only ever calls itself). While a task's setup runs for the "baseline" framework,
``sys.modules["minitorch*"]`` point at the baseline's modules, so the task code, written
once with ``import minitorch``, binds the baseline's ``Variable`` and ops; the step it
returns then runs the baseline alone.

The checkout itself is benched the same way (:func:`prepare_checkout`, the package
``minitorch_checkout``), so that the two sides differ in their code only and not in
where they stand in the process: the package imported at the start against an extracted
copy read up to 14% apart for identical code.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import pkgutil
import re
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks.harness import Case, Setup

NAME = "minitorch_baseline"
CURRENT = "minitorch_checkout"  # this checkout's copy, benched in its place (prepare_checkout)
ROOT = Path(__file__).resolve().parent.parent
_IMPORT = re.compile(r"^(\s*)(from|import)(\s+)minitorch\b", re.M)
# Where the code asks for its own package by name: ``cls.__module__.startswith(
# "minitorch.")`` tells minitorch's ops from a user's (a user's Function gets a checking
# ``__init__`` and a checked ``backward``), ``sys.modules.get("minitorch.ops")`` finds
# the ops. Left as they were, the renamed copy would take its own ops for a user's and run
# slower paths: minitorch at HEAD benched against itself read 0.79x forward and 1.4x
# freeing.
_OWN_NAME = re.compile(
    r"""((?:startswith|sys\.modules\.get|import_module|files)\(\s*)(["'])minitorch\b"""
)
# Bumped when the rewriting changes, so that extracted copies are made again.
_REWRITE = "rewrite-2"


def prepare(rev: str, out: Path | None = None, name: str = NAME) -> Path:
    """Extract commit ``rev``'s ``minitorch/`` as ``<dir>/<name>``; return ``<dir>``.

    Raises:
        ValueError: if ``rev`` is not a commit of this repository.
    """
    try:
        sha = _git("rev-parse", "--verify", f"{rev}^{{commit}}").strip()
    except subprocess.CalledProcessError:
        raise ValueError(f"--baseline: {rev!r} is not a commit of this repository") from None
    prefix = "baseline" if name == NAME else name  # build/bench/baseline-<sha> as before
    where = (out or ROOT / "build" / "bench") / f"{prefix}-{sha[:12]}"
    package = where / name
    if not (where / _REWRITE).exists():
        shutil.rmtree(where, ignore_errors=True)
        archive = subprocess.run(
            ["git", "archive", "--format=tar", sha, "minitorch"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(where, filter="data")
        (where / "minitorch").rename(package)
        _rename(package, name)
        (where / _REWRITE).touch()
    return where


def prepare_checkout(out: Path | None = None, name: str = CURRENT) -> Path:
    """Copy this checkout's ``minitorch/`` (uncommitted edits included) as ``<dir>/<name>``.

    Benched as a copy, this checkout's code stands where the baseline stands: both are
    extracted packages imported after the start. Benched as the package imported at the
    start against an extracted copy, identical code read 0.86x (conv) and 1.045x (T2's
    free with DeZero and PyTorch): the place in the process, not the code.
    """
    where = (out or ROOT / "build" / "bench") / name
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(ROOT / "minitorch", where / name, ignore=shutil.ignore_patterns("__pycache__"))
    _rename(where / name, name)
    return where


def _rename(package: Path, name: str) -> None:
    for path in package.rglob("*.py"):
        text = _IMPORT.sub(rf"\1\2\3{name}", path.read_text())
        path.write_text(_OWN_NAME.sub(rf"\1\2{name}", text))


def load(where: Path, name: str = NAME) -> ModuleType:
    """Import the extracted package ``name`` and all its submodules."""
    if str(where) not in sys.path:
        sys.path.insert(0, str(where))
    package = importlib.import_module(name)
    for info in pkgutil.walk_packages(package.__path__, name + "."):
        importlib.import_module(info.name)
    return package


@contextlib.contextmanager
def as_minitorch(package: ModuleType) -> Iterator[None]:
    """Inside the block, ``import minitorch.x`` gives the baseline's ``minitorch_baseline.x``.

    The ``examples`` package (the GPT task's model) is imported afresh inside the block
    too: imported earlier, it would hold the current minitorch's classes.
    """
    own = package.__name__
    aliases = {
        "minitorch" + name[len(own) :]: module
        for name, module in sys.modules.items()
        if name == own or name.startswith(own + ".")
    }
    users = [name for name in sys.modules if name == "examples" or name.startswith("examples.")]
    saved = {name: sys.modules.get(name) for name in [*aliases, *users]}
    for name in users:
        del sys.modules[name]
    sys.modules.update(aliases)
    try:
        yield
    finally:
        for name in [n for n in sys.modules if n.startswith("examples.") and n not in saved]:
            del sys.modules[name]  # imported inside the block: bound to the baseline
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def add_to(case: Case, package: ModuleType, rev: str) -> None:
    """Give ``case`` a "baseline" framework: its minitorch setup, bound to ``package``."""
    setup = case.impls.get("minitorch")
    if setup is None or case.task == "T6":  # T6 runs fresh processes: not supported
        return

    def baseline() -> Any:
        with as_minitorch(package):
            try:
                return setup()
            except (AttributeError, ImportError, TypeError) as exc:  # the task is newer
                raise NotImplementedError(f"minitorch at {rev} cannot run it: {exc}") from exc

    case.impls["baseline"] = _named(baseline, rev)


def run_as_copy(case: Case, package: ModuleType) -> None:
    """Run ``case``'s "minitorch" framework on ``package`` (:func:`prepare_checkout`)."""
    setup = case.impls.get("minitorch")
    if setup is None or case.task == "T6":  # T6 runs fresh processes
        return

    def minitorch() -> Any:
        with as_minitorch(package):
            return setup()

    case.impls["minitorch"] = minitorch


def _named(setup: Setup, rev: str) -> Setup:
    setup.__doc__ = f"minitorch at {rev}"
    return setup


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
