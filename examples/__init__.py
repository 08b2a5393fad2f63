"""Runnable examples built on minitorch: ``python -m examples.demo`` is ``make demo``."""
