"""studyapp.exercises.verify and `studyapp exercise verify`: the rules on hand-made outcomes, the
slip format, and the command on the toy exercise (tests/exercise_fixture), whose checker takes a
fraction of a second."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studyapp.cli import main
from studyapp.exercises import verify
from studyapp.exercises.checker import CheckOutcome, Requirement
from studyapp.exercises.registry import scan
from studyapp.exercises.verify import SlipError, Variant
from tests.conftest import REPO, run_cli

FIXTURE_LABS = REPO / "tests" / "exercise_fixture" / "labs"
TOY = "toy-sum"
SMALL = "adds small numbers"
NEGATIVE = "adds negative numbers"


def outcome(verdict: str, *requirements: tuple[str, bool, str], message: str = "") -> CheckOutcome:
    return CheckOutcome(
        exercise_id=TOY,
        verdict=verdict,
        requirements=[Requirement(name, passed, text) for name, passed, text in requirements],
        message=message or verdict,
        learner_traceback=None,
        duration_s=1.25,
        exit_code=0,
        workspace=Path("/nowhere"),
    )


STARTER = Variant(TOY, "starter")
SOLUTION = Variant(TOY, "solution")
SLIP = Variant(TOY, "wrong/subtracts", Path("subtracts.yaml"))


# -- the rules -------------------------------------------------------------------------------------


def test_a_starter_that_fails_with_a_message_fails_usefully() -> None:
    result = verify.judge(STARTER, outcome("failed", (SMALL, False, "add() raised: NotImplementedError")))
    assert result.status == verify.OK and "fails usefully" in result.detail
    assert result.line().startswith("✓ toy-sum starter: ") and result.line().endswith("(1.2 s)")


@pytest.mark.parametrize(
    ("checked", "why"),
    [
        (outcome("passed", (SMALL, True, "5")), "passes every requirement"),
        (outcome("failed", (SMALL, False, "")), "no failing requirement says why"),
        (outcome("failed", ("the check ran to the end", False, "KeyError (check.py:4)")), "checker itself"),
        (outcome("error", message="the checker stopped without a verdict"), "no verdict (error)"),
        (outcome("timeout", message="did not finish within 30 s"), "no verdict (timeout)"),
    ],
)
def test_a_starter_that_passes_or_fails_mutely_is_a_problem(checked: CheckOutcome, why: str) -> None:
    result = verify.judge(STARTER, checked)
    assert result.status == verify.PROBLEM and why in result.detail, result.line()
    assert result.is_problem and result.line().startswith("✗ toy-sum starter: PROBLEM: ")


def test_the_solution_must_pass() -> None:
    assert verify.judge(SOLUTION, outcome("passed", (SMALL, True, "5"))).status == verify.OK
    failing = verify.judge(SOLUTION, outcome("failed", (SMALL, True, "5"), (NEGATIVE, False, "gave 5")))
    assert (
        failing.status == verify.PROBLEM and "fails 1 of 2" in failing.detail and NEGATIVE in failing.detail
    )


def test_an_undecided_solution_is_reported_not_failed() -> None:
    busy = outcome("undecided", (SMALL, True, "5"), ("speed", False, "too busy to tell; check again"))
    result = verify.judge(SOLUTION, busy)
    assert result.status == verify.UNDECIDED and not result.is_problem
    assert result.line().startswith("? toy-sum solution: UNDECIDED: too busy to tell: speed — too busy")


def test_a_missing_dependency_cannot_run_here() -> None:
    result = verify.judge(SOLUTION, outcome("usage", message="this exercise needs torch"))
    assert result.status == verify.CANNOT_RUN and result.detail == "this exercise needs torch"


def test_a_slip_must_fail_and_fail_where_it_says() -> None:
    caught = outcome("failed", (SMALL, False, "add(2, 3) = -1, expected 5"), (NEGATIVE, True, "-3"))
    assert verify.judge(SLIP, caught).status == verify.OK
    assert verify.judge(SLIP, caught, [SMALL]).status == verify.OK
    elsewhere = verify.judge(SLIP, caught, [NEGATIVE])
    assert elsewhere.status == verify.PROBLEM and f"'{NEGATIVE}' (it passed)" in elsewhere.detail
    unknown = verify.judge(SLIP, caught, ["adds big numbers"])
    assert unknown.status == verify.PROBLEM and "no requirement of that name" in unknown.detail
    missed = verify.judge(SLIP, outcome("passed", (SMALL, True, "5")))
    assert missed.status == verify.PROBLEM and "the slip wrong/subtracts passes" in missed.detail


def test_an_undecided_slip_is_reported_unless_a_named_requirement_passed_outright() -> None:
    busy = outcome("undecided", (SMALL, True, "5"), ("speed", False, "too busy to tell"))
    assert verify.judge(SLIP, busy).status == verify.UNDECIDED
    assert verify.judge(SLIP, busy, ["speed"]).status == verify.UNDECIDED
    assert verify.judge(SLIP, busy, [SMALL]).status == verify.PROBLEM


# -- the slip format -------------------------------------------------------------------------------


def write_slip(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_slip_is_read_with_its_optional_fails(tmp_path: Path) -> None:
    path = write_slip(
        tmp_path / TOY,
        "subtracts",
        'why: subtracts\nfile: adder.py\nreplace:\n  - old: "a + b"\n    new: "a - b"\nfails: [adds small numbers]\n',
    )
    slip = verify.load_slip(path)
    assert (slip.exercise_id, slip.name, slip.file) == (TOY, "subtracts", "adder.py")
    assert slip.replacements == (("a + b", "a - b"),) and slip.must_fail == (SMALL,)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("why: x\nfile: adder.py\n", "expected the keys why, file, replace"),
        ("why: x\nfile: a.py\nreplace: []\nextra: 1\n", "expected the keys"),
        ("why: ''\nfile: a.py\nreplace: [{old: a, new: b}]\n", "`why` must be one line"),
        ("why: x\nfile: a.py\nreplace: []\n", "no replacements"),
        ("why: x\nfile: a.py\nreplace: [{old: a}]\n", "each replacement is"),
        ("why: x\nfile: a.py\nreplace: [{old: a, new: b}]\nfails: one\n", "`fails` is a list"),
        ("why: [unclosed\n", "cannot read the slip"),
    ],
)
def test_a_malformed_slip_is_one_line_naming_its_file(tmp_path: Path, text: str, problem: str) -> None:
    path = write_slip(tmp_path / TOY, "bad", text)
    with pytest.raises(SlipError, match=problem) as raised:
        verify.load_slip(path)
    assert str(raised.value).startswith(str(path)) and "\n" not in str(raised.value)


def test_the_catalogue_problems_name_what_is_missing_or_stray(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong"
    write_slip(wrong / "kept", "slip", "")
    write_slip(wrong / "orphan", "slip", "")
    (wrong / "kept" / "notes.txt").write_text("", encoding="utf-8")
    problems = verify.catalogue_problems(["kept", "bare"], wrong)
    assert len(problems) == 3, problems
    assert "exercise 'bare' has no recorded slip" in problems[0]
    assert problems[1].endswith("notes.txt: not a slip (a wrong solution is one NAME.yaml patch)")
    assert "orphan: names no exercise (known: bare, kept)" in problems[2]


# -- the command, on the toy exercise --------------------------------------------------------------


@pytest.fixture
def toy_labs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout-like tree: tmp/labs (the toy exercise) and tmp/tests/exercises/wrong."""
    labs = tmp_path / "checkout" / "labs"
    shutil.copytree(FIXTURE_LABS, labs)
    monkeypatch.setenv("STUDYAPP_LABS", str(labs))
    return labs


def toy_wrong(labs: Path) -> Path:
    return labs.parent / "tests" / "exercises" / "wrong" / TOY


def add_slip(labs: Path, name: str, new: str, fails: str = "") -> None:
    text = f'why: {name}\nfile: adder.py\nreplace:\n  - old: "return a + b"\n    new: "{new}"\n{fails}'
    write_slip(toy_wrong(labs), name, text)


def test_verify_checks_the_starter_the_solution_and_each_slip(toy_labs: Path, tmp_path: Path) -> None:
    add_slip(toy_labs, "subtracts", "return a - b", f"fails: [{SMALL}]\n")
    info = scan(toy_labs).exercises[TOY]
    seen: list[str] = []
    results = verify.verify(
        info, toy_wrong(toy_labs).parent, work_dir=tmp_path / "work", on_result=seen.append
    )
    assert [r.variant.name for r in results] == ["starter", "solution", "wrong/subtracts"]
    assert [r.status for r in results] == [verify.OK] * 3, [r.line() for r in results]
    assert seen == results
    assert "add() raised: NotImplementedError" in results[0].detail
    slip = results[2].outcome
    assert slip is not None and slip.workspace.is_relative_to(tmp_path / "work")
    assert "return a - b" in (slip.workspace / "adder.py").read_text(encoding="utf-8")


def test_ctrl_c_during_a_check_stops_the_whole_verification(
    toy_labs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[Path] = []

    def interrupted(info: object, workspace: Path, **options: object) -> CheckOutcome:
        checked.append(workspace)
        return outcome("interrupted", message="check interrupted")

    monkeypatch.setattr(verify.checker, "run_check", interrupted)
    info = scan(toy_labs).exercises[TOY]
    with pytest.raises(KeyboardInterrupt):
        verify.verify(info, toy_wrong(toy_labs).parent, work_dir=tmp_path / "work")
    assert len(checked) == 1  # the solution and the slips were not checked after it


def test_the_command_prints_a_line_per_variant_and_exits_0(
    toy_labs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_slip(toy_labs, "subtracts", "return a - b")
    assert main(["exercise", "verify", TOY]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines[:3]] == [
        "✓ toy-sum starter",
        "✓ toy-sum solution",
        "✓ toy-sum wrong/subtracts",
    ]
    assert lines[3] == "1 exercise(s), 3 variant(s): 3 ok, 0 undecided, 0 cannot run, 0 problem(s)"


def test_the_command_exits_1_on_a_slip_not_caught_or_a_missing_one(
    toy_labs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["exercise", "verify"]) == 1  # no recorded slip yet
    out = capsys.readouterr().out
    assert out.startswith("✗ exercise 'toy-sum' has no recorded slip: add ")
    assert out.splitlines()[-1].endswith("2 ok, 0 undecided, 0 cannot run, 1 problem(s)")
    add_slip(toy_labs, "commutes", "return b + a")  # not a slip at all: the check passes
    assert main(["exercise", "verify", TOY]) == 1
    out = capsys.readouterr().out
    assert "✗ toy-sum wrong/commutes: PROBLEM: the slip wrong/commutes passes every requirement" in out
    assert out.splitlines()[-1].endswith("2 ok, 0 undecided, 0 cannot run, 1 problem(s)")


def test_the_command_exits_0_when_undecided_and_2_on_an_unknown_exercise(
    toy_labs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    add_slip(toy_labs, "subtracts", "return a - b")
    monkeypatch.setenv("TOY_CHECKER_MODE", "undecided")  # every check: "too busy to tell"
    assert main(["exercise", "verify", TOY]) == 0  # reported, not called a failure
    out = capsys.readouterr().out
    assert "? toy-sum solution: UNDECIDED: too busy to tell: " in out
    assert out.splitlines()[-1].endswith("0 ok, 3 undecided, 0 cannot run, 0 problem(s)")
    assert main(["exercise", "verify", "no-such"]) == 2
    assert capsys.readouterr().err.strip().startswith("studyapp: unknown exercise 'no-such'")


def test_the_command_in_a_subprocess(toy_labs: Path) -> None:
    """The one smoke test through `python -m studyapp`: a real author's command line."""
    add_slip(toy_labs, "subtracts", "return a - b")
    done = run_cli("exercise", "verify", "--full", env={"STUDYAPP_LABS": str(toy_labs)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("✓ toy-sum ") == 3 and "3 ok" in done.stdout
