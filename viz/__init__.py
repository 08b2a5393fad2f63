"""viz: draw minitorch graphs (filled in by the viz issue)."""
