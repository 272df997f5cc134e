"""The README stands on its own: its CLI synopsis names every option each command accepts, and the
``$schema`` URL it shows is the suite schema's ``$id``."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from gate.commands import init, report, run, validate
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def synopsis() -> str:
    section = README[README.index("## CLI") :]
    return section[section.index("```") + 3 : section.index("```", section.index("```") + 3)]


def options(parser: argparse.ArgumentParser) -> set[str]:
    return {
        flag
        for action in parser._actions
        for flag in action.option_strings
        if flag.startswith("--") and flag != "--help"
    }


PARSERS = {
    "validate": validate._parser,
    "run": run.build_parser,
    "report": report.build_parser,
    "init": init.build_parser,
}


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_the_readme_synopsis_names_every_option(name: str) -> None:
    block = synopsis()
    start = block.index(f"tool-eval-gate {name} ")
    following = [block.find("\ntool-eval-gate ", start + 1)]
    usage = block[start : following[0] if following[0] != -1 else len(block)]
    written = set(re.findall(r"--[a-z][a-z-]*", usage))
    missing = options(PARSERS[name]()) - written
    assert not missing, f"README's synopsis of {name} lacks {sorted(missing)}"


def test_the_readme_schema_url_is_the_schema_id() -> None:
    schema_id = json.loads((ROOT / "schemas" / "suite.schema.json").read_text())["$id"]
    assert f"$schema={schema_id}" in README
