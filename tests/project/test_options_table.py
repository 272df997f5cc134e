"""One options table: the fields of ``RunPlan`` and ``ReportPlan`` declared with ``option(...)`` are the
CLI's flags (its parser and ``--help``), and, with an action text, the action's inputs in action.yml
and docs/github-action.md. These tests hold all four equal, so that an option, a default or a help
text changed in one of them and not in the table fails."""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from types import ModuleType

import pytest
import yaml

from gate.commands import report, run
from gate.commands.options import Declared, declared
from gate.commands.plans import ReportPlan, RunPlan
from gate.github.action_inputs import ActionInputs, run_options
from tests.conftest import ROOT

ACTION_TEXT = (ROOT / "action.yml").read_text(encoding="utf-8")
DOCS_TEXT = (ROOT / "docs" / "github-action.md").read_text(encoding="utf-8")
PARSERS = {"run": (run.build_parser, RunPlan), "report": (report.build_parser, ReportPlan)}


def writer() -> ModuleType:
    """.ci/action_inputs.py, the script that writes the inputs from the table."""
    spec = importlib.util.spec_from_file_location("action_inputs_writer", ROOT / ".ci" / "action_inputs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def _flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {a.option_strings[0]: a for a in parser._actions if a.option_strings and a.dest != "help"}


@pytest.mark.parametrize("command", sorted(PARSERS))
def test_the_parser_is_the_table(command: str) -> None:
    build, plan = PARSERS[command]
    parser = build()
    table = {each.option.flag: each for each in declared(plan) if each.option.kind != "positional"}
    actions = _flags(parser)
    assert set(actions) == set(table), "a flag added to the parser by hand, or one the parser lost"
    for flag, each in table.items():
        assert actions[flag].dest == each.name
        assert actions[flag].help == each.text(each.option.help)
        assert (actions[flag].type is None) == (each.option.parse is None), flag


@pytest.mark.parametrize("command", sorted(PARSERS))
def test_the_help_says_every_flag_and_the_default_the_plan_holds(command: str) -> None:
    build, plan = PARSERS[command]
    helped = "".join(build().format_help().split())  # argparse wraps lines (also after a hyphen)
    for each in declared(plan):
        if each.option.kind == "positional":
            continue
        assert each.option.flag in helped
        assert "".join(each.text(each.option.help).split()) in helped
        if "{default}" in each.option.help:
            assert each.shown_default and f"default{each.shown_default}" in helped, each.name


def test_a_command_line_without_options_is_the_plan_of_the_defaults() -> None:
    assert RunPlan.from_args(run.build_parser().parse_args([])) == RunPlan()
    assert ReportPlan.from_args(report.build_parser().parse_args(["r.json"])) == ReportPlan(("r.json",))


def _action_inputs() -> dict[str, dict[str, str]]:
    inputs: dict[str, dict[str, str]] = yaml.safe_load(ACTION_TEXT)["inputs"]
    return inputs


def _option_input_default(each: Declared) -> str:
    """The default action.yml writes for an option's input: a switch's or a choice's own; empty for the
    others (the description says what empty means)."""
    return each.shown_default if each.option.kind == "switch" or each.option.choices else ""


def test_action_yml_declares_each_input_as_the_table_does() -> None:
    inputs = _action_inputs()
    own = {name: f for name, f in ActionInputs.__dataclass_fields__.items() if "description" in f.metadata}
    assert list(inputs) == [*own, *(each.name for each in run_options())]
    for each in run_options():
        assert inputs[each.name]["description"] == each.text(each.option.action), each.name
        assert str(inputs[each.name]["default"]) == _option_input_default(each), each.name
    for name, f in own.items():
        assert inputs[name]["description"] == f.metadata["description"], name


def test_every_option_the_action_takes_says_its_default_where_the_table_has_one() -> None:
    for each in run_options():
        if each.default not in (None, (), False) and each.option.kind != "switch" and not each.option.choices:
            assert each.shown_default in each.text(each.option.action), each.name


def test_the_docs_table_row_of_each_option_input_is_its_flag_default_and_description() -> None:
    rows = {
        match[0]: match[1:]
        for match in re.findall(r"^\| `(\w+)` \| `(--[\w-]+)` \| ([^|]*) \| (.*) \|$", DOCS_TEXT, re.M)
    }
    assert list(rows) == [each.name for each in run_options()]
    for each in run_options():
        flag, default, description = rows[each.name]
        assert flag == each.option.flag
        assert default.strip() == (f"`{each.shown_default}`" if each.shown_default else "")
        assert description.replace("\\|", "|") == each.text(each.option.action)


def test_the_writer_leaves_action_yml_and_the_docs_as_they_are_and_would_change_a_stale_one() -> None:
    script = writer()
    assert script.action_yml(ACTION_TEXT) == ACTION_TEXT
    assert script.docs(DOCS_TEXT) == DOCS_TEXT
    stale = ACTION_TEXT.replace("Model requests in flight at most (empty means 8;", "(empty means 4;")
    assert stale != ACTION_TEXT and script.action_yml(stale) == ACTION_TEXT
