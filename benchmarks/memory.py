"""T6 memory: peak RSS above baseline for forward+backward over a 50-op chain.

Each measurement runs in a fresh interpreter (``python -m benchmarks.memory FRAMEWORK N``)
with ``MALLOC_MMAP_THRESHOLD_=131072``, so glibc serves every large array with its own
mmap and returns it at once: resident memory then follows the live bytes. The child
records its resident set after the imports and the input (the baseline), resets the
kernel's high-water mark, runs the step and reports ``VmHWM - baseline``.

The chain cycles ``x + 0.01``, ``x * 0.99``, ``sin`` like T1 (50 ops), on ``n`` float64s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.harness import Case, Step, Target

N_OPS = 50
ROOT = Path(__file__).resolve().parent.parent


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def _chain(x: Any, add: Any, mul: Any, sin: Any) -> Any:
    y = x
    for i in range(N_OPS):
        y = (add, mul, sin)[i % 3](y)
    return y


def _run_child(framework: str, n: int) -> dict[str, float]:
    x0 = np.linspace(-1.0, 1.0, n)
    if framework == "minitorch":
        import minitorch.ops as F
        from minitorch import Variable

        x = Variable(x0.copy())

        def step() -> np.ndarray:
            loss = F.sum(_chain(x, lambda y: y + 0.01, lambda y: y * 0.99, F.sin))
            loss.backward()
            return x.grad.data

    elif framework == "numpy":

        def step() -> np.ndarray:
            saved, y = [], x0
            for i in range(N_OPS):
                if i % 3 == 2:
                    saved.append(y)
                    y = np.sin(y)
                else:
                    y = y + 0.01 if i % 3 == 0 else y * 0.99
            del y
            gx = np.ones_like(x0)
            for i in reversed(range(N_OPS)):
                gx = gx * np.cos(saved.pop()) if i % 3 == 2 else (gx * 0.99 if i % 3 else gx)
            return gx

    elif framework == "dezero":
        from benchmarks import peers

        dz = peers.dezero()
        x = dz.Variable(x0.copy())

        def step() -> np.ndarray:
            fs = dz.functions
            loss = fs.sum(_chain(x, lambda y: y + 0.01, lambda y: y * 0.99, fs.sin))
            loss.backward()
            return x.grad.data

    elif framework == "torch":
        from benchmarks import peers

        th = peers.torch()
        x = th.tensor(x0.copy(), requires_grad=True)

        def step() -> np.ndarray:
            loss = _chain(x, lambda y: y + 0.01, lambda y: y * 0.99, th.sin).sum()
            loss.backward()
            return x.grad.numpy()

    else:
        raise ValueError(f"unknown framework {framework!r}")
    import gc

    gc.collect()
    baseline = _status_kib("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current RSS
    gx = step()
    peak = _status_kib("VmHWM")
    return {"peak_mib": (peak - baseline) / 1024, "check": float(np.sum(gx))}


def memory_case(n: int) -> Case:
    def child(framework: str) -> Step:
        env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="131072", OMP_NUM_THREADS="1")
        env.update(OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        cmd = [sys.executable, "-m", "benchmarks.memory", framework, str(n)]

        def step() -> tuple[dict[str, float], Any]:
            proc = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
            if proc.returncode != 0:
                if "ModuleNotFoundError" in proc.stderr:
                    raise ImportError(proc.stderr.strip().splitlines()[-1])
                raise RuntimeError(f"memory child {framework} failed:\n{proc.stderr}")
            out = json.loads(proc.stdout.strip().splitlines()[-1])
            return {"peak": out["peak_mib"]}, np.array(out["check"])

        return step

    def setup(framework: str) -> Any:
        def make() -> Step:
            step = child(framework)
            step()  # fail early (ImportError) if the framework is missing
            return step

        return make

    return Case(
        task="T6",
        name=f"memory: fwd+bwd over a {N_OPS}-op chain on {n:,} float64",
        unit="MiB peak above baseline",
        metrics=("peak",),
        impls={fw: setup(fw) for fw in ("minitorch", "numpy", "dezero", "torch")},
        targets=[Target("peak", "dezero", 1.0)],
        rtol=1e-9,
        note="peak RSS in a fresh process with MALLOC_MMAP_THRESHOLD_=131072",
    )


if __name__ == "__main__":  # the child; the parent passes the single-thread settings
    print(json.dumps(_run_child(sys.argv[1], int(sys.argv[2]))))
