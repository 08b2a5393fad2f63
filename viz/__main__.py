"""``python -m viz EXPRESSION --var x=1.0 ...``: see :mod:`viz.cli`."""

from viz.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
