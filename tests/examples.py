"""How many examples a property test tries: the count it names, scaled by
``KARTU_EXAMPLES_SCALE`` (1 unless set). ``make test-lowest`` sets a quarter:
that run proves the tests pass at the oldest dependency versions allowed,
while ``make test`` tries every property in full."""

from __future__ import annotations

import os

SCALE = float(os.environ.get("KARTU_EXAMPLES_SCALE", "1"))


def examples(count: int) -> int:
    """``count`` scaled, at least one."""
    return max(1, round(count * SCALE))
