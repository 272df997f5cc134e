"""What every check of the build finds: ``Finding``, a problem at a place of a suite document, as
(the path to it, what is wrong, how to fix it); the build context turns each into a located
``Problem``. Pure."""

from __future__ import annotations

from typing import TypeAlias

from gate.util.json_types import PathKey

Finding: TypeAlias = tuple[PathKey, str, str]
