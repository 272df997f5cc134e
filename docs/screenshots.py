"""Makes the screenshots of docs/verified-fixes.md from a real run: the pull request of the end-to-end
test (``tests/end_to_end/test_verified_fixes.py``: a degraded tool description, the scripted model)
run through the action against the fake GitHub API, then what was posted rendered as GitHub shows it
(Markdown by markdown-it-py, the suggested change as GitHub's "Suggested change" box) and the HTML
report, each photographed by the machine's Chromium (``tests/support/browser.py``).

    python docs/screenshots.py          # writes docs/verified-fix-review.png, docs/verified-fix-report.png
"""

from __future__ import annotations

import html
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from markdown_it import MarkdownIt  # noqa: E402

from gate.github.entrypoint import main as entrypoint  # noqa: E402
from tests.end_to_end.test_verified_fixes import SCRIPT, git, make_repo  # noqa: E402
from tests.github.test_entrypoint import actions_env  # noqa: E402
from tests.support.browser import chromium  # noqa: E402
from tests.support.fake_github import FakeGitHub  # noqa: E402
from tests.support.model_server import ScriptedModelServer  # noqa: E402

STYLE = """
body { font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328; margin: 24px;
  width: 940px; background: #fff; }
.file, .comment { border: 1px solid #d1d9e0; border-radius: 6px; margin-bottom: 16px; overflow: hidden; }
.head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 12px; font-weight: 600; }
table.diff { border-collapse: collapse; width: 100%; font: 12px/20px ui-monospace, Menlo, monospace; }
table.diff td { padding: 0 8px; white-space: pre; } td.n { color: #59636e; text-align: right; width: 40px; }
tr.add { background: #dafbe1; } tr.del { background: #ffebe9; }
table.diff td.thread { padding: 12px 16px; background: #fff; border-top: 1px solid #d1d9e0;
  border-bottom: 1px solid #d1d9e0; white-space: normal;
  font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
.who { font-weight: 600; margin-bottom: 6px; } .who span { color: #59636e; font-weight: 400; }
.suggest { border: 1px solid #d1d9e0; border-radius: 6px; margin: 8px 0; overflow: hidden; }
.suggest .title { background: #f6f8fa; padding: 6px 10px; font-size: 12px; color: #59636e; }
.suggest pre { margin: 0; padding: 2px 10px; font: 12px/20px ui-monospace, Menlo, monospace;
  white-space: pre-wrap; }
.suggest .old { background: #ffebe9; } .suggest .new { background: #dafbe1; }
.suggest .button { padding: 6px 10px; border-top: 1px solid #d1d9e0; }
.suggest .button span { border: 1px solid #d1d9e0; border-radius: 6px; padding: 3px 10px;
  background: #f6f8fa; }
.comment .body { padding: 12px 16px; } table { border-collapse: collapse; }
th, td { border: 1px solid #d1d9e0; padding: 4px 10px; vertical-align: top; }
code { background: #eff1f3; border-radius: 4px; padding: 1px 4px; font-size: 12px; }
pre { background: #f6f8fa; border-radius: 6px; padding: 10px; font-size: 12px; overflow: auto; }
pre.diff span { display: block; } pre.diff .a { background: #dafbe1; } pre.diff .d { background: #ffebe9; }
sub { color: #59636e; } details { margin: 8px 0; }
"""


_DIFF = {"+": "a", "-": "d"}


def _run() -> dict[str, Any]:
    """The pull request run through the action: its review comments, sticky comment, patch, report."""
    with tempfile.TemporaryDirectory() as directory:
        tmp = Path(directory)
        repo = make_repo(tmp)
        base, head = git(repo, "rev-parse", "main").strip(), git(repo, "rev-parse", "HEAD").strip()
        diff = git(repo, "diff", base, head, "--", "tools/weather.json")
        workspace = {"root": repo, "base": base, "head": head, "tmp": tmp}
        os.environ["GIT_CONFIG_COUNT"] = "0"
        with ScriptedModelServer(SCRIPT) as server, FakeGitHub("acme/agents") as github:
            github.add_pull(7, {"tools/weather.json": diff[diff.index("@@") :]}, head_sha=head, base_sha=base)
            entrypoint([], actions_env(workspace, github, server, suggest_fixes="true"))
            return {
                "patch": diff[diff.index("@@") :],
                "review": [c for c in github.review_comments if "suggestion\n" in c["body"]],
                "sticky": github.comments_on(7)[0]["body"],
                "report": (repo / "gate-out/report.html").read_text(),
                "new_file": (repo / "tools/weather.json").read_text().splitlines(),
            }


def _suggestion_box(body: str, replaced: str) -> str:
    """GitHub's "Suggested change" box in place of the ```suggestion block of a review comment."""
    match = re.search(r"(`{3,})suggestion\n(.*?)\n\1", body, flags=re.S)
    assert match is not None
    box = (
        '<div class="suggest"><div class="title">Suggested change</div>'
        f'<pre class="old">- {html.escape(replaced)}</pre>'
        + "".join(f'<pre class="new">+ {html.escape(line)}</pre>' for line in match.group(2).splitlines())
        + '<div class="button"><span>Commit suggestion</span></div></div>'
    )
    rendered = _markdown(body[: match.start()] + "@@BOX@@" + body[match.end() :])
    return rendered.replace("<p>@@BOX@@</p>", box)


def _markdown(text: str) -> str:
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    return re.sub(
        r'<pre><code class="language-diff">(.*?)</code></pre>',
        lambda m: (
            '<pre class="diff">'
            + "".join(
                f'<span class="{_DIFF.get(line[:1], "")}">{line}</span>' for line in m.group(1).splitlines()
            )
            + "</pre>"
        ),
        rendered,
        flags=re.S,
    )


def _review_page(run: dict[str, Any]) -> str:
    """The Files changed view of tools/weather.json with the suggestion under its line, then the
    sticky comment's section on the fixes."""
    [comment] = run["review"]
    rows, new = [], 0
    for line in run["patch"].splitlines():
        if line.startswith("@@"):
            new = int(re.search(r"\+(\d+)", line).group(1)) - 1  # type: ignore[union-attr]
            continue
        kind = "add" if line.startswith("+") else "del" if line.startswith("-") else ""
        if kind != "del":
            new += 1
        number = "" if kind == "del" else str(new)
        rows.append(f'<tr class="{kind}"><td class="n">{number}</td><td>{html.escape(line)}</td></tr>')
        if kind != "del" and new == comment["line"]:
            replaced = run["new_file"][new - 1]
            thread = _suggestion_box(comment["body"], replaced)
            rows.append(
                '<tr><td colspan="2" class="thread"><div class="who">github-actions <span>bot · '
                f"reviewed tools/weather.json line {new}</span></div>{thread}</td></tr>"
            )
    sticky = run["sticky"]
    section = sticky[sticky.index("### 🛠️") : sticky.index("### Changes against the baseline")]
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{STYLE}</style></head><body>"
        '<div class="file"><div class="head">tools/weather.json</div>'
        f'<table class="diff">{"".join(rows)}</table></div>'
        '<div class="comment"><div class="head">github-actions bot commented (the sticky comment, '
        f'its section on fixes)</div><div class="body">{_markdown(section)}</div></div></body></html>'
    )


def main() -> int:
    run = _run()
    docs = ROOT / "docs"
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 990, "height": 800}, device_scale_factor=1)
        page.set_content(_review_page(run))
        for details in page.query_selector_all("details"):
            details.evaluate("d => d.open = true")
        page.screenshot(path=str(docs / "verified-fix-review.png"), full_page=True)
        page.set_content(run["report"])
        page.wait_for_selector("#fixes")
        page.evaluate("document.querySelector('#fixes').scrollIntoView()")
        page.locator("#fixes").screenshot(path=str(docs / "verified-fix-report.png"))
        page.close()
    print(json.dumps({"written": ["docs/verified-fix-review.png", "docs/verified-fix-report.png"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
