"""A command's options, each declared once: on the field of the command's plan that it sets.

A plan (``gate.commands.plans.RunPlan``, ``ReportPlan``) is a frozen dataclass; every field the
command line sets is declared with ``option(...)``: its flag, its default, how a value is read (the
argparse type, which reads the action's inputs too), its help and, when the action has an input of
the same name and meaning, that input's description. From those declarations come:

- the parser's arguments (``add_options``), in the order of the fields;
- the plan of a parsed command line (``plan_values``): an option left out keeps the field's default;
- the command line that does what a plan does (``command_line``): the action logs it, a user reruns it;
- the action's inputs that set run options (``declared(RunPlan)`` with an ``action`` text;
  ``gate.github.action_inputs`` reads them; ``.ci/action_inputs.py`` writes them into action.yml and
  docs/github-action.md, and a test holds both equal to the declarations).

A help or action text says ``{default}`` where the default goes. Pure.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Literal

# What an option is on the command line: a value (``--concurrency 4``), a switch (``--replay``), a
# value given again for each item (``--case a --case b``), or the command's positional arguments.
Kind = Literal["value", "switch", "many", "positional"]

_OPTION = "option"  # the key of a field's metadata that holds its Option


@dataclass(frozen=True)
class Option:
    """How a plan's field is set on the command line (and, with ``action``, by the action's input)."""

    flag: str  # "--concurrency"; "" for the positional arguments
    help: str
    kind: Kind = "value"
    parse: Callable[[str], Any] | None = None  # the argparse type: checks and converts one value
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    short: str = ""  # "-q"
    exclusive: str = ""  # the options naming the same group exclude each other (--record | --replay)
    nargs: str = "*"  # the positional arguments: how many
    spell: Callable[[Any], str] | None = None  # a value as the command line writes it (default: str)
    # The switch this option only makes sense with (the name of the plan's field it sets): given
    # without it, the command refuses (``unpaired``).
    goes_with: str = ""
    # The description of the action's input of the same name, which sets this field as the flag
    # does; "" when the action has no such input.
    action: str = ""


@dataclass(frozen=True)
class Declared:
    """An option, with the name and the default of the field it sets."""

    name: str
    default: Any
    option: Option

    @property
    def shown_default(self) -> str:
        """The default as the texts say it (``8``, ``60``, ``0.1``, ``count``; "" for none)."""
        return "" if self.default in (None, ()) else self.spelled(self.default)

    def spelled(self, value: Any) -> str:
        """One value as the command line writes it."""
        if self.option.spell is not None:
            return self.option.spell(value)
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return _number(value)
        return str(value)

    def text(self, template: str) -> str:
        """A help or action text with its default in place of ``{default}``."""
        return template.replace("{default}", self.shown_default)


def option(flag: str, help: str, *, default: Any = MISSING, **how: Any) -> Any:
    """The field of a plan that the option ``flag`` sets (see ``Option``); required without ``default``."""
    metadata = {_OPTION: Option(flag, help, **how)}
    if default is MISSING:
        return field(metadata=metadata)
    return field(default=default, metadata=metadata)


def declared(plan: type) -> tuple[Declared, ...]:
    """The options of ``plan``'s fields, in their order (the fields no option sets are left out)."""
    return tuple(
        Declared(f.name, None if f.default is MISSING else f.default, f.metadata[_OPTION])
        for f in fields(plan)
        if _OPTION in f.metadata
    )


def add_options(parser: argparse.ArgumentParser, plan: type) -> None:
    """An argument of ``parser`` for each option of ``plan``. An option left out is absent from the
    parsed namespace (``plan_values`` leaves the field its default)."""
    groups: dict[str, argparse._MutuallyExclusiveGroup] = {}
    for each in declared(plan):
        spec = each.option
        target: argparse._ActionsContainer = parser
        if spec.exclusive:
            if spec.exclusive not in groups:
                groups[spec.exclusive] = parser.add_mutually_exclusive_group()
            target = groups[spec.exclusive]
        kwargs: dict[str, Any] = {"help": each.text(spec.help), "default": argparse.SUPPRESS}
        if spec.kind == "positional":
            target.add_argument(each.name, nargs=spec.nargs, metavar=spec.metavar, **kwargs)
            continue
        flags = (spec.flag, spec.short) if spec.short else (spec.flag,)
        if spec.kind == "switch":
            target.add_argument(*flags, dest=each.name, action="store_true", **kwargs)
            continue
        if spec.kind == "many":
            kwargs["action"] = "append"
        if spec.choices:
            kwargs["choices"] = spec.choices
        if spec.parse is not None:
            kwargs["type"] = spec.parse
        target.add_argument(*flags, dest=each.name, metavar=spec.metavar, **kwargs)


def plan_values(plan: type, args: argparse.Namespace) -> dict[str, Any]:
    """The values of ``plan``'s fields that the parsed command line ``args`` gives (lists as tuples)."""
    names = {each.name for each in declared(plan)}
    given = {name: value for name, value in vars(args).items() if name in names}
    return {name: tuple(value) if isinstance(value, list) else value for name, value in given.items()}


def command_line(plan: object) -> tuple[str, ...]:
    """The arguments that make the command do what ``plan`` says: its positional arguments, then each
    option whose value is not its default."""
    positional: list[str] = []
    words: list[str] = []
    for each in declared(type(plan)):
        value = getattr(plan, each.name)
        if value is None or value is False or value == "" or value == each.default:
            continue
        if each.option.kind == "positional":
            positional += [str(item) for item in value]
        elif each.option.kind == "switch":
            words.append(each.option.flag)
        elif each.option.kind == "many":
            for item in value:
                words += [each.option.flag, each.spelled(item)]
        else:
            words += [each.option.flag, each.spelled(value)]
    return (*positional, *words)


def unpaired(plan: object) -> list[tuple[str, str]]:
    """The options ``plan`` sets (to other than their default) without the switch each goes with:
    (the option's flag, the switch's flag), in the table's order."""
    table = {each.name: each for each in declared(type(plan))}
    return [
        (each.option.flag, table[each.option.goes_with].option.flag)
        for each in table.values()
        if each.option.goes_with
        and getattr(plan, each.name) != each.default
        and not getattr(plan, each.option.goes_with)
    ]


def _number(value: float) -> str:
    """A number as short as it reads back exactly (``2.0`` -> ``2``, ``0.123456789`` unchanged)."""
    text = f"{value:g}"
    return text if float(text) == value else repr(value)
