"""Write the action's inputs into action.yml and docs/github-action.md from their declarations.

Usage: python .ci/action_inputs.py [--check]
The inputs are declared once: the action's own in ``gate/github/action_inputs.py`` (``ActionInputs``),
the run's options it takes in ``gate/commands/plans.py`` (``RunPlan`` fields with an ``action`` text).
This rewrites action.yml's ``inputs:`` block and the tables between the markers of
docs/github-action.md; ``--check`` writes nothing and exits 1 when either differs (a test runs it).
"""

from __future__ import annotations

import json
import sys
import textwrap
from dataclasses import dataclass, fields
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gate.commands.options import Declared  # noqa: E402
from gate.github.action_inputs import ActionInputs, run_options  # noqa: E402

ACTION = ROOT / "action.yml"
DOCS = ROOT / "docs" / "github-action.md"
WIDTH = 110
BEGIN = "<!-- the inputs: written by .ci/action_inputs.py from their declarations; edit those -->"
END = "<!-- end of the inputs -->"
OPTIONS_LINE = "  # The run's options: each as the flag of the same name of `tool-eval-gate run`."


@dataclass(frozen=True)
class Input:
    """One input as action.yml and the docs show it."""

    name: str
    description: str
    default: str  # action.yml's
    flag: str = ""  # the option of `run` it sets ("" for the action's own inputs)
    shown: str = ""  # the default the docs show, when it is not action.yml's (an empty option input's)


def own_inputs() -> list[Input]:
    return [
        Input(f.name, f.metadata["description"], f.metadata["written"] or _written(f.default))
        for f in fields(ActionInputs)
        if "description" in f.metadata
    ]


def option_inputs() -> list[Input]:
    return [
        Input(
            each.name,
            each.text(each.option.action),
            _option_default(each),
            each.option.flag,
            each.shown_default,
        )
        for each in run_options()
    ]


def _written(default: object) -> str:
    if isinstance(default, bool):
        return "true" if default else "false"
    return "" if default == () else str(default)


def _option_default(each: Declared) -> str:
    """action.yml's default of an option's input: a switch's or a choice's own; empty for the others,
    whose description says what empty means (an empty max_error_rate keeps saved results' budget)."""
    return each.shown_default if each.option.kind == "switch" or each.option.choices else ""


def _scalar(text: str) -> str:
    """``text`` as a plain YAML scalar when it reads back as that string, else double-quoted."""
    try:
        plain = bool(text) and text == text.strip() and yaml.safe_load(f"key: {text}") == {"key": text}
    except yaml.YAMLError:
        plain = False
    return text if plain else json.dumps(text, ensure_ascii=False)


def _yaml_input(each: Input) -> list[str]:
    lines = [f"  {each.name}:"]
    one_line = f"    description: {_scalar(each.description)}"
    if len(one_line) <= WIDTH:
        lines.append(one_line)
    else:
        lines.append("    description: >-")
        wrapped = textwrap.wrap(each.description, WIDTH - 6, break_long_words=False, break_on_hyphens=False)
        lines += [f"      {line}" for line in wrapped]
    return [*lines, "    required: false", f"    default: {_scalar(each.default)}"]


def action_yml(text: str) -> str:
    """action.yml with its ``inputs:`` block written from the declarations."""
    block = ["inputs:"]
    for each in own_inputs():
        block += _yaml_input(each)
    block += ["", OPTIONS_LINE]
    for each in option_inputs():
        block += _yaml_input(each)
    start, end = text.index("\ninputs:\n") + 1, text.index("\noutputs:\n")
    return text[:start] + "\n".join(block) + "\n" + text[end:]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def docs(text: str) -> str:
    """docs/github-action.md with its tables of inputs written from the declarations."""
    lines = [BEGIN, "", "| input | default | meaning |", "|---|---|---|"]
    for each in own_inputs():
        default = f"`{each.default}`" if each.default else ""
        lines.append(f"| `{each.name}` | {default} | {_cell(each.description)} |")
    lines += [
        "",
        "The run's options, each as the flag of `tool-eval-gate run` it stands for (the same values, the "
        "same default):",
        "",
        "| input | flag | default | meaning |",
        "|---|---|---|---|",
    ]
    for each in option_inputs():
        default = f"`{each.default or each.shown}`" if each.default or each.shown else ""
        lines.append(f"| `{each.name}` | `{each.flag}` | {default} | {_cell(each.description)} |")
    start, end = text.index(BEGIN), text.index(END)
    return text[:start] + "\n".join(lines) + "\n\n" + text[end:]


def main(argv: list[str]) -> int:
    check = argv == ["--check"]
    if argv and not check:
        raise SystemExit(__doc__)
    stale = []
    for path, write in ((ACTION, action_yml), (DOCS, docs)):
        text = path.read_text(encoding="utf-8")
        new = write(text)
        if new != text:
            stale.append(path.relative_to(ROOT).as_posix())
            if not check:
                path.write_text(new, encoding="utf-8")
    if check and stale:
        print(f"not as the inputs are declared: {', '.join(stale)} (run: python .ci/action_inputs.py)")
        return 1
    for name in stale:
        print(f"{name}: inputs written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
