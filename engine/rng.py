"""A small seeded random number generator whose whole state is one integer.

The engine never touches the global ``random`` module: every shuffle draws
from an :class:`Rng` that the caller seeds. Its state is a plain ``int``, so
a game state can carry it and a saved game resumes the same sequence. The
algorithm is SplitMix64, which is fixed here and does not change with the
Python version (``random.Random`` makes no such promise for ``shuffle``).
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import TypeVar

_MASK = (1 << 64) - 1
T = TypeVar("T")


class Rng:
    """SplitMix64. ``Rng(seed).state`` can be stored and fed back to resume."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def choice(self, items: list[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def derive_seed(*parts: str | int) -> int:
    """A 63-bit seed from labelled parts, stable across runs and machines.

    Used for the daily deal (game + date) and for per-deal seeds. FNV-1a over
    the parts' text, then mixed through SplitMix64.
    """
    h = 0xCBF29CE484222325
    for part in parts:
        for byte in f"{part}\x1f".encode():
            h = ((h ^ byte) * 0x100000001B3) & _MASK
    return Rng(h).next_u64() >> 1
