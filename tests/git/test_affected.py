"""Which suites a change affects, and why (pure: the facts are given): a file the suite reads, a way
it is read through a symlink, a submodule or a symlink above it, a directory read through a link, a
``.gitattributes`` or ``.gitmodules`` change, and what cannot be told."""

from __future__ import annotations

import dataclasses

from gate.git.affected import Change, ChangeSet, Reached, ReadFacts, affected_suites, submodules_read
from gate.results.messages import UserMessage
from gate.suite.model import (
    Agent,
    Case,
    Command,
    Defaults,
    Expectation,
    MockRule,
    Mocks,
    ModelParams,
    Prompt,
    Scoring,
    Source,
    Suite,
    ToolDef,
)


def files(*paths: str) -> ChangeSet:
    """Files modified by the PR's commits."""
    return ChangeSet(tuple(Change(path, "file", "file") for path in paths))


def make_suite(
    path: str,
    *,
    prompt: str | None = None,
    tools: tuple[str, ...] = (),
    mocks: str | None = None,
    case_mocks: str | None = None,
    extra: tuple[str, ...] = (),
) -> Suite:
    defaults = Defaults()
    tool_defs = tuple(
        ToolDef(name=f"t{i}", description="d", parameters={"type": "object"}, source=Source(file, 2))
        for i, file in enumerate(tools or (path,))
    )
    case = Case(
        id="c1",
        conversation=(UserMessage("hi"),),
        vars={},
        tags=(),
        expect=Expectation(),
        trials=1,
        reducer="all",
        at_least=1,
        mean_pass_score=0.5,
        max_tool_calls=16,
        max_turns=8,
        scoring=Scoring(),
        mocks=Mocks(
            tools={"t0": (MockRule(when=None, returns=1, source=Source(case_mocks)),)} if case_mocks else {},
        ),
        source=Source(path, 10),
    )
    deps = tuple(x for x in (prompt, *tools, mocks, case_mocks, *extra) if x)
    return Suite(
        name=path.rsplit("/", 1)[-1],
        path=path,
        description="",
        tags=(),
        agent=Agent(
            provider="openai",
            model="m",
            params=ModelParams(),
            system_prompt=Prompt("p", Source(prompt or path, 1 if prompt else 5), from_file=bool(prompt)),
            tools=tool_defs,
        ),
        judge=None,
        mocks=Mocks(source=Source(mocks or path)),
        defaults=defaults,
        threshold=0.9,
        cases=(case,),
        dependencies=deps,
    )


def test_affected_suites_name_the_reason_per_file() -> None:
    weather = make_suite(
        "evals/weather.yaml",
        prompt="prompts/weather.md",
        tools=("tools/weather.json",),
        mocks="mocks/weather.yaml",
    )
    travel = make_suite(
        "evals/travel.yaml",
        tools=("tools/weather.json", "tools/flights.json"),
        case_mocks="mocks/flights.yaml",
        extra=("data/airports.csv",),
    )
    inline = make_suite("evals/inline.yaml")
    changed = [
        "tools/weather.json",
        "prompts/weather.md",
        "mocks/flights.yaml",
        "data/airports.csv",
        "README.md",
        "evals/inline.yaml",
    ]

    assert affected_suites([weather, travel, inline], files(*changed)) == {
        "evals/weather.yaml": {"prompts/weather.md": "prompt", "tools/weather.json": "tool definitions"},
        "evals/travel.yaml": {
            "data/airports.csv": "dependency",
            "mocks/flights.yaml": "mocks",
            "tools/weather.json": "tool definitions",
        },
        "evals/inline.yaml": {"evals/inline.yaml": "suite file"},
    }


def test_suite_mock_file_and_unrelated_changes() -> None:
    weather = make_suite("evals/weather.yaml", mocks="mocks/weather.yaml")
    assert affected_suites([weather], files("mocks/weather.yaml")) == {
        "evals/weather.yaml": {"mocks/weather.yaml": "mocks"}
    }
    assert affected_suites([weather], files("docs/index.md", "evals/other.yaml")) == {}
    assert affected_suites([weather], files()) == {}


def test_a_command_watch_glob_affects_its_suite_and_names_the_command() -> None:
    program = Command(
        ("node", "agent/main.mjs"), "agent program", watch=("agent/**/*.mjs", "agent/package.json")
    )
    server = Command(("python", "-m", "tools_server"), "MCP server", watch=("tools_server/",))
    suite = dataclasses.replace(make_suite("evals/agent.yaml"), commands=(program, server))
    other = make_suite("evals/other.yaml")
    changed = ["agent/lib/route.mjs", "agent/package.json", "tools_server/x.py", "agent/README.md"]

    assert affected_suites([suite, other], files(*changed)) == {
        "evals/agent.yaml": {
            "agent/lib/route.mjs": "agent program (watch)",
            "agent/package.json": "agent program (watch)",
            "tools_server/x.py": "MCP server (watch)",
        }
    }


def test_a_file_the_suite_reads_keeps_its_own_reason_over_a_watch() -> None:
    program = Command(("python", "agent.py"), "agent program", watch=("**",))
    suite = dataclasses.replace(make_suite("evals/agent.yaml", prompt="prompts/p.md"), commands=(program,))
    assert affected_suites([suite], files("prompts/p.md", "agent.py")) == {
        "evals/agent.yaml": {"agent.py": "agent program (watch)", "prompts/p.md": "prompt"}
    }


WEATHER = make_suite("evals/weather.yaml", tools=("tools/forecast.json",))


def reached(*ways: tuple[str, ...], unknown: str = "") -> ReadFacts:
    """Facts where each tuple of ``ways`` is how its first path is reached."""
    return ReadFacts(reached={w[0]: Reached(w, unknown) for w in ways})


def test_the_file_a_symlink_leads_to_is_read_too() -> None:
    facts = reached(("tools/forecast.json", "shared/forecast-tools.json"))
    assert affected_suites([WEATHER], files("shared/forecast-tools.json"), facts) == {
        "evals/weather.yaml": {"shared/forecast-tools.json": "tool definitions, read as tools/forecast.json"}
    }
    assert affected_suites([WEATHER], files("shared/other.json"), facts) == {}
    # without the facts, only the path the suite writes is known
    assert affected_suites([WEATHER], files("shared/forecast-tools.json")) == {}


def test_a_symlink_above_and_a_directory_link_on_the_way() -> None:
    facts = reached(("tools/forecast.json", "tools", "shared/tools/forecast.json"))
    retargeted = ChangeSet((Change("tools", "symlink", "symlink"),))
    assert affected_suites([WEATHER], retargeted, facts) == {
        "evals/weather.yaml": {"tools": "tool definitions: tools/forecast.json lies below it"}
    }
    assert affected_suites([WEATHER], files("shared/tools/forecast.json"), facts) == {
        "evals/weather.yaml": {"shared/tools/forecast.json": "tool definitions, read as tools/forecast.json"}
    }
    # a directory that was a symlink at the merge base (its files were elsewhere then)
    replaced = ChangeSet(
        (Change("tools", "symlink", "absent"), Change("tools/forecast.json", "absent", "file"))
    )
    assert affected_suites([WEATHER], replaced)["evals/weather.yaml"] == {
        "tools": "tool definitions: tools/forecast.json lies below it",
        "tools/forecast.json": "tool definitions",
    }


def test_a_submodule_above_a_file_the_suite_reads_changes_it_however_it_changed() -> None:
    suite = make_suite("evals/weather.yaml", tools=("vendor/tools/forecast.json",))
    inside = "(vendor/tools/forecast.json inside it)"
    for change, what in [
        (Change("vendor/tools", "submodule", "submodule"), "submodule moved"),
        (Change("vendor/tools", "absent", "submodule"), "submodule added"),
        (Change("vendor/tools", "submodule", "absent"), "submodule removed"),
        (Change("vendor/tools", "submodule", "symlink"), "submodule replaced by a symlink"),
        (Change("vendor/tools", "file", "submodule"), "file replaced by a submodule"),
        (
            Change("vendor/tools", "submodule", "submodule", "uncommitted"),
            "the submodule's checkout differs from the commit HEAD records",
        ),
        (Change("vendor", "submodule", "submodule"), "submodule moved"),
    ]:
        assert affected_suites([suite], ChangeSet((change,))) == {
            "evals/weather.yaml": {change.path: f"tool definitions: {what} {inside}"}
        }, change
    assert affected_suites([suite], ChangeSet((Change("vendor/other", "submodule", "submodule"),))) == {}


def test_a_submodule_reached_through_a_symlink() -> None:
    facts = reached(("tools/forecast.json", "tools", "vendor/tools/forecast.json"))
    moved = ChangeSet((Change("vendor/tools", "submodule", "submodule"),))
    assert affected_suites([WEATHER], moved, facts) == {
        "evals/weather.yaml": {
            "vendor/tools": "tool definitions: submodule moved (vendor/tools/forecast.json inside it)"
        }
    }


def test_letter_case_and_unicode_normalisation_are_ignored() -> None:
    # on a case-insensitive file system a committed TOOLS/Forecast.json is the file the suite reads
    assert affected_suites([WEATHER], files("TOOLS/Forecast.json")) == {
        "evals/weather.yaml": {"TOOLS/Forecast.json": "tool definitions"}
    }
    accented = make_suite("evals/m\u00e9t\u00e9o.yaml")
    decomposed = "evals/me\u0301te\u0301o.yaml"
    assert affected_suites([accented], files(decomposed)) == {
        "evals/m\u00e9t\u00e9o.yaml": {decomposed: "suite file"}
    }


def test_a_gitattributes_above_a_file_changes_how_git_writes_it() -> None:
    for path in (".gitattributes", "tools/.gitattributes", "../.gitattributes", "Tools/.GitAttributes"):
        assert affected_suites([WEATHER], files(path)) == {
            "evals/weather.yaml": {
                path: "suite file: .gitattributes changes how git writes evals/weather.yaml"
            }
            if path in (".gitattributes", "../.gitattributes")
            else {path: "tool definitions: .gitattributes changes how git writes tools/forecast.json"}
        }, path
    assert affected_suites([WEATHER], files("docs/.gitattributes", "evals/x/.gitattributes")) == {}


def test_gitmodules_affects_the_files_read_inside_submodules_only() -> None:
    inside = make_suite("evals/weather.yaml", tools=("vendor/tools/forecast.json",))
    facts = ReadFacts(submodules=("vendor/tools",))
    assert affected_suites([inside, WEATHER], files(".gitmodules"), facts) == {
        "evals/weather.yaml": {
            ".gitmodules": "tool definitions: .gitmodules changed (vendor/tools/forecast.json is inside "
            "the submodule vendor/tools)"
        }
    }


def test_what_cannot_be_told_runs_the_suite_and_says_why() -> None:
    facts = reached(
        ("tools/forecast.json",), unknown="not tracked by git, so whether it changed cannot be told"
    )
    assert affected_suites([WEATHER], files(), facts) == {
        "evals/weather.yaml": {
            "tools/forecast.json": "tool definitions: not tracked by git, so whether it changed "
            "cannot be told"
        }
    }
    suite = make_suite("evals/weather.yaml", tools=("vendor/tools/forecast.json",))
    broken = ChangeSet((), uninspectable=(("vendor/tools", "not a git repository"),))
    assert affected_suites([suite], broken) == {
        "evals/weather.yaml": {
            "vendor/tools": "tool definitions: the submodule's checkout cannot be inspected (not a git "
            "repository; vendor/tools/forecast.json inside it)"
        }
    }
    assert affected_suites([WEATHER], broken) == {}


def test_watch_globs_see_submodules_symlinked_directories_and_settings() -> None:
    program = Command(("python3", "agent/main.py"), "agent program", watch=("agent/**",))
    suite = dataclasses.replace(make_suite("evals/agent.yaml"), commands=(program,))
    facts = ReadFacts(
        reached={"agent/lib": Reached(("agent/lib", "shared/lib"))},
        watched_links={"agent/**": ("agent/lib",)},
        submodules=("agent/vendor",),
    )
    cases = [
        (files("shared/lib/util.py"), {"shared/lib/util.py": "agent program (watch), read as agent/lib"}),
        (
            ChangeSet((Change("agent/vendor", "submodule", "submodule"),)),
            {"agent/vendor": "agent program (watch)"},  # the glob matches the gitlink itself
        ),
        (
            files(".gitmodules"),
            {
                ".gitmodules": "agent program (watch): .gitmodules changed (it watches files in "
                "the submodule agent/vendor)"
            },
        ),
        (files("agent/.gitattributes"), {"agent/.gitattributes": "agent program (watch)"}),
        (files("shared/other.py", "docs/.gitattributes"), {}),
    ]
    for changes, expected in cases:
        assert affected_suites([suite], changes, facts) == (
            {"evals/agent.yaml": expected} if expected else {}
        )
    narrow = dataclasses.replace(
        suite, commands=(dataclasses.replace(program, watch=("agent/vendor/src/*.py",)),)
    )
    moved = ChangeSet((Change("agent/vendor", "submodule", "submodule"),))
    assert affected_suites([narrow], moved, facts) == {
        "evals/agent.yaml": {
            "agent/vendor": "agent program (watch): submodule moved (it watches files inside it)"
        }
    }


def test_the_submodules_a_suite_reads_in() -> None:
    suite = make_suite("evals/weather.yaml", tools=("tools/forecast.json",))
    facts = reached(("tools/forecast.json", "vendor/tools/forecast.json"))
    assert submodules_read(suite, facts, ["vendor/tools", "vendor/other"]) == {
        "vendor/tools": "vendor/tools/forecast.json"
    }
