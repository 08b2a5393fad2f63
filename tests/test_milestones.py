"""``make milestones`` (``python -m examples.milestones``): the ladder, offline and seeded.

The quick ladder runs once, in this process, with every socket refused (so a dataset that
tried to download would fail here), and its JSON is checked; the verdict rules, the exit
status and the determinism of the metrics are tested on the cheap rungs.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

pytest.importorskip("mlxtend", reason="the milestones extra: pip install -e '.[milestones]'")
pytest.importorskip("names", reason="the milestones extra: pip install -e '.[milestones]'")
pytest.importorskip("mnist1d", reason="the milestones extra: pip install -e '.[milestones]'")

from examples import milestones  # noqa: E402
from examples.milestones import __main__ as cli  # noqa: E402
from examples.milestones.ladder import Context, Measurement, Milestone, run_ladder  # noqa: E402

KEYS = {"id", "year", "title", "metric", "value", "threshold", "passed", "seconds"}


class NoNetwork(socket.socket):
    """A socket that refuses to be made: any download attempt fails loudly."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise OSError("the milestones must run offline, but something opened a socket")


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict, Path]:
    out = tmp_path_factory.mktemp("milestones")
    json_path = out / "results.json"
    patch = pytest.MonkeyPatch()
    patch.setattr(socket, "socket", NoNetwork)
    try:
        status = cli.main(
            ["run", "--quick", "--no-progress", "--out", str(out), "--json", str(json_path)]
        )
    finally:
        patch.undo()
    return status, json.loads(json_path.read_text()), out


@pytest.mark.slow  # the quick ladder: about a minute
def test_quick_ladder_passes_offline(quick_run: tuple[int, dict, Path]) -> None:
    status, payload, _ = quick_run
    failed = [m["id"] for m in payload["milestones"] if m["status"] == "ran" and not m["passed"]]
    assert failed == [] and status == 0


def test_json_lists_every_milestone_with_the_promised_keys(quick_run) -> None:
    _, payload, _ = quick_run
    assert [m["id"] for m in payload["milestones"]] == [m.id for m in milestones.LADDER]
    for entry in payload["milestones"]:
        assert KEYS <= entry.keys()
    assert payload["quick"] is True and payload["seed"] == 0


def test_every_milestone_that_ran_drew_its_picture(quick_run) -> None:
    _, payload, _ = quick_run
    for entry in payload["milestones"]:
        if entry["status"] == "ran":
            assert entry["picture"] and Path(entry["picture"]).stat().st_size > 5_000


def test_same_seed_gives_identical_metrics(tmp_path: Path) -> None:
    chosen = [milestones.BY_ID[i] for i in ("perceptron", "xor", "bengio")]
    runs = [
        run_ladder(
            chosen,
            Context(seed=3, quick=True, out=tmp_path, progress=False),
            report=lambda line: None,
        )
        for _ in range(2)
    ]
    first, second = ([(r.value, r.details) for r in run] for run in runs)
    assert first == second


def test_xor_one_layer_fails_and_two_layers_succeed_for_every_seed(tmp_path: Path) -> None:
    (result,) = run_ladder(
        [milestones.BY_ID["xor"]],
        Context(seed=1, quick=True, out=tmp_path, progress=False),
        report=lambda line: None,
    )
    assert max(result.details["one_layer"]) <= 0.75
    assert min(result.details["two_layers"]) == 1.0


def test_a_missed_threshold_makes_run_exit_non_zero(monkeypatch, tmp_path: Path) -> None:
    def too_hard(context: Context) -> Measurement:
        return Measurement(metric="accuracy", value=0.5, threshold=0.9)

    monkeypatch.setitem(cli.BY_ID, "perceptron", Milestone("perceptron", 1958, "t", too_hard))
    assert cli.main(["run", "perceptron", "--no-progress", "--out", str(tmp_path)]) == 1


def test_verdict_line_names_the_metric_and_both_numbers(tmp_path: Path) -> None:
    (result,) = run_ladder(
        [milestones.BY_ID["perceptron"]],
        Context(out=tmp_path, progress=False),
        report=lambda line: None,
    )
    assert result.verdict().startswith("PASS perceptron (1958): train accuracy 1.000 >= 1.000")


def test_unknown_milestone_is_refused_with_the_choices(capsys) -> None:
    with pytest.raises(SystemExit) as excinfo:
        cli.main(["run", "lenet5"])
    assert excinfo.value.code == 2
    assert "unknown milestone lenet5 (did you mean lenet?); choose from perceptron" in (
        capsys.readouterr().err
    )


def test_a_crashing_rung_is_an_error_verdict_and_the_others_still_run(
    monkeypatch, tmp_path: Path, capsys
) -> None:
    def missing_package(context: Context) -> Measurement:
        raise ModuleNotFoundError("No module named 'names'")

    monkeypatch.setitem(cli.BY_ID, "bengio", Milestone("bengio", 2003, "t", missing_package))
    json_path = tmp_path / "r.json"
    status = cli.main(
        [
            "run",
            "bengio",
            "perceptron",
            "--no-progress",
            "--out",
            str(tmp_path),
            "--json",
            str(json_path),
        ]
    )
    out = capsys.readouterr().out
    assert status == 1
    assert (
        "ERROR bengio (2003): No module named 'names' (the milestones' data packages: "
        'pip install -e ".[milestones]")' in out
    )
    assert "PASS perceptron" in out
    entries = json.loads(json_path.read_text())["milestones"]
    assert [e["status"] for e in entries] == ["error", "ran"]


def test_the_json_is_strict_when_a_metric_is_nan(monkeypatch, tmp_path: Path) -> None:
    def undefined(context: Context) -> Measurement:
        return Measurement(metric="accuracy", value=float("nan"), threshold=0.9)

    monkeypatch.setitem(cli.BY_ID, "xor", Milestone("xor", 1969, "t", undefined))
    json_path = tmp_path / "r.json"
    assert (
        cli.main(["run", "xor", "--no-progress", "--out", str(tmp_path), "--json", str(json_path)])
        == 1
    )
    assert "NaN" not in json_path.read_text()
    assert json.loads(json_path.read_text())["milestones"][0]["value"] is None


def test_bad_options_exit_2_with_a_hint(capsys) -> None:
    for argv, message in (
        (
            ["run", "inductive_bias"],
            "unknown milestone inductive_bias (did you mean inductive-bias?)",
        ),
        (["run", "perceptron", "--seed", "-5"], "--seed must be a non-negative integer"),
    ):
        with pytest.raises(SystemExit) as excinfo:
            cli.main(argv)
        assert excinfo.value.code == 2
        assert message in capsys.readouterr().err


def test_a_rung_named_twice_runs_once(tmp_path: Path, capsys) -> None:
    assert (
        cli.main(["run", "perceptron", "perceptron", "--no-progress", "--out", str(tmp_path)]) == 0
    )
    assert capsys.readouterr().out.count("PASS perceptron") == 1


def test_the_verdict_names_the_second_condition(quick_run) -> None:
    _, payload, _ = quick_run
    lenet = next(m for m in payload["milestones"] if m["id"] == "lenet")
    assert lenet["condition"].startswith("and above the MLP's 0.")
