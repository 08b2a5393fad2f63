"""Task J of the benchmarks (forward vs reverse mode Jacobians): the cases are well formed
and every framework computes the same Jacobian as the closed form."""

from __future__ import annotations

import numpy as np

from benchmarks import run, tasks_func
from benchmarks.harness import run_case


def test_task_j_has_both_modes_on_both_shapes() -> None:
    cases = run.build_cases(quick=True, tasks={"J"})
    names = [case.name for case in cases]
    assert len(cases) == 4 and all(case.task == "J" for case in cases)
    assert sum("jacfwd" in n for n in names) == 2 and sum("tall" in n for n in names) == 2


def test_jacobians_agree_with_the_closed_form() -> None:
    for case in tasks_func.jacobian_cases(quick=True):
        result = run_case(case, ["minitorch", "numpy", "torch"], rounds=1, log=lambda _: None)
        assert result.agree.get("minitorch") is True, case.name
        if "torch" in result.agree:  # installed with CROSSCHECK=1 / make bench
            assert result.agree["torch"] is True, case.name
        assert all(np.isfinite(v) for v in result.samples["minitorch"]["total"])
