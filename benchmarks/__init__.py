"""Side-by-side benchmarks of minitorch, a NumPy floor, DeZero and PyTorch (``make bench``)."""
