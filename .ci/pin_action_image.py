"""Point a release's action.yml at the published image by digest (run by .github/workflows/release.yml).

Usage: python .ci/pin_action_image.py action.yml ghcr.io/OWNER/REPO@sha256:<64 hex>
Replaces ``image: Dockerfile`` with ``image: docker://IMAGE@sha256:...`` so that users' jobs pull the
exact image that was built and smoke-tested instead of building one (unpinned upstream, minutes).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

IMAGE = re.compile(r"[a-z0-9][a-z0-9./_-]*@sha256:[0-9a-f]{64}")
LINE = re.compile(r"^(\s+image:\s*)Dockerfile\s*$", re.M)


def pin(text: str, image: str) -> str:
    if not IMAGE.fullmatch(image):
        raise SystemExit(f"not an image reference by digest (NAME@sha256:<64 hex>): {image!r}")
    new, count = LINE.subn(lambda m: f"{m.group(1)}docker://{image}", text)
    if count != 1:
        raise SystemExit(f"expected exactly one 'image: Dockerfile' line in action.yml, found {count}")
    return new


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        raise SystemExit(__doc__)
    path = Path(argv[0])
    path.write_text(pin(path.read_text(encoding="utf-8"), argv[1]), encoding="utf-8")
    print(f"{path}: image pinned to docker://{argv[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
