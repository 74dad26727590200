"""Runs and sets: the meld checks shared by every rummy game.

A *meld* is a group of cards laid face up: a *run* (three or more cards of
one suit in sequence) or a *set* (three or more cards of one rank). The
games differ only in details, which they pass in as a :class:`MeldRules`:

- which rank orders a run may follow (``sequences``): Basic Rummy's ace is
  low only (``A..K``); Traditional Remi's ace is low or high but never
  both (``A..K`` or ``2..A``); Indonesian Remi allows ``2..10`` and
  ``J..K`` and never an ace;
- how large a set may be and whether its suits must differ (two decks).

``arrange_run`` returns a run's cards in rank order, which is how a meld is
kept on the table so that laying off at either end is a plain check.

``best_partition`` splits a whole hand into disjoint melds the way that
scores best (Indonesian Remi counts the melds in a hand at the end of a
deal); ``all_melds`` lists every meld a hand can make.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, product
from typing import Literal, NamedTuple

from engine.cards import rank_of, sort_key, suit_of

LOW_ACE = "A23456789TJQK"
HIGH_ACE = "23456789TJQKA"


@dataclass(frozen=True)
class MeldRules:
    """What counts as a meld in one game."""

    sequences: tuple[str, ...] = (LOW_ACE,)
    min_size: int = 3
    max_set_size: int = 4
    set_suits_distinct: bool = False


BASIC = MeldRules()


def _run_order(cards: Sequence[str], rules: MeldRules) -> list[str] | None:
    if len(cards) < rules.min_size:
        return None
    suit = suit_of(cards[0])
    if any(suit_of(c) != suit for c in cards):
        return None
    ranks = [rank_of(c) for c in cards]
    if len(set(ranks)) != len(ranks):
        return None
    for seq in rules.sequences:
        if not all(r in seq for r in ranks):
            continue
        positions = sorted(seq.index(r) for r in ranks)
        if positions[-1] - positions[0] == len(positions) - 1:
            by_rank = {rank_of(c): c for c in cards}
            return [by_rank[seq[p]] for p in positions]
    return None


def is_run(cards: Sequence[str], rules: MeldRules = BASIC) -> bool:
    """Three or more cards of one suit whose ranks are consecutive in one allowed order."""
    return _run_order(cards, rules) is not None


def arrange_run(cards: Sequence[str], rules: MeldRules = BASIC) -> list[str]:
    """The cards of a valid run in sequence order; ValueError if they are no run."""
    ordered = _run_order(cards, rules)
    if ordered is None:
        raise ValueError("not a run")
    return ordered


def is_set(cards: Sequence[str], rules: MeldRules = BASIC) -> bool:
    """Three (or more, up to ``max_set_size``) cards of one rank."""
    if not rules.min_size <= len(cards) <= rules.max_set_size:
        return False
    if len({rank_of(c) for c in cards}) != 1:
        return False
    if len(set(cards)) != len(cards):
        return False
    return not (rules.set_suits_distinct and len({suit_of(c) for c in cards}) != len(cards))


def meld_kind(cards: Sequence[str], rules: MeldRules = BASIC) -> str | None:
    """``"run"``, ``"set"`` or None. Three cards of one rank are a set, never a run."""
    if is_set(cards, rules):
        return "set"
    if is_run(cards, rules):
        return "run"
    return None


def arrange(cards: Sequence[str], kind: str, rules: MeldRules = BASIC) -> list[str]:
    """A meld's cards in table order: runs by sequence, sets as given."""
    return arrange_run(cards, rules) if kind == "run" else list(cards)


def extended(meld_cards: Sequence[str], kind: str, card: str, rules: MeldRules = BASIC
             ) -> list[str] | None:
    """The meld with ``card`` laid off on it, in table order, or None if that breaks it.

    A meld keeps its kind: a card laid off on a set must keep it a set, on a
    run must keep it a run (BR-8: melds are never rearranged).
    """
    cards = [*meld_cards, card]
    if kind == "set":
        return cards if is_set(cards, rules) else None
    return _run_order(cards, rules)


# --- the best split of a hand into melds ------------------------------------------------
#
# A *partition* of a hand is a choice of disjoint melds from it; the cards in
# no meld are its *rest*. Its *score* counts every meld card plus its value
# and every rest card minus (Indonesian Remi's IR-16, where a hand is split
# the way that scores best). Sets may be limited: ``sets_allowed`` is True
# (sets count), False (they never do) or ``"with_run"``: sets count only in
# a partition that also holds a run, which is IR-16's "sets count only for a
# player who has a sequence" for a player with no sequence on the table yet.

SetsAllowed = bool | Literal["with_run"]


class HandMeld(NamedTuple):
    """One meld of a partition: its kind and its cards in table order."""

    kind: str  # "run" | "set"
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Partition:
    """A hand split into disjoint melds and the rest, with the split's score.

    Runs come before sets, each kind in ``sort_key`` order of its first card;
    the rest is in ``sort_key`` order.
    """

    melds: tuple[HandMeld, ...]
    rest: tuple[str, ...]
    score: int

    @property
    def has_run(self) -> bool:
        return any(m.kind == "run" for m in self.melds)


def all_melds(cards: Iterable[str], rules: MeldRules = BASIC, *, sets: bool = True
              ) -> list[HandMeld]:
    """Every run (and set, unless ``sets`` is False) that can be formed from ``cards``.

    Overlapping melds are all listed: a five-card run also yields its three-
    and four-card parts. Runs come in table order, sets in ``sort_key``
    order, and the list is the same whatever order ``cards`` came in: runs
    suit by suit from the lowest start, then sets rank by rank.
    """
    keys = {c: sort_key(c) for c in cards}
    pool = sorted(keys, key=keys.__getitem__)
    found: list[HandMeld] = []
    seen: set[tuple[str, ...]] = set()
    by_suit: dict[str, list[str]] = {}
    for card in pool:
        by_suit.setdefault(suit_of(card), []).append(card)
    for suited in by_suit.values():
        for seq in rules.sequences:
            # With two decks a rank may be held twice; a run takes one copy of each.
            copies: dict[int, list[str]] = {}
            for card in suited:
                position = seq.find(rank_of(card))
                if position >= 0:
                    copies.setdefault(position, []).append(card)
            positions = sorted(copies)
            start = 0
            for i in range(1, len(positions) + 1):
                if i < len(positions) and positions[i] == positions[i - 1] + 1:
                    continue
                stretch = positions[start:i]  # a maximal stretch of consecutive ranks
                start = i
                for lo in range(len(stretch) - rules.min_size + 1):
                    for hi in range(lo + rules.min_size, len(stretch) + 1):
                        for run in product(*(copies[p] for p in stretch[lo:hi])):
                            # Orders that share ranks (ace low and ace high) find a run twice.
                            if run not in seen:
                                seen.add(run)
                                found.append(HandMeld("run", run))
    if sets:
        by_rank: dict[str, list[str]] = {}
        for card in pool:
            by_rank.setdefault(rank_of(card), []).append(card)
        for ranked in by_rank.values():
            for size in range(rules.min_size, min(len(ranked), rules.max_set_size) + 1):
                for group in combinations(ranked, size):
                    if is_set(group, rules):
                        found.append(HandMeld("set", group))
    return found


def best_partition(hand: Iterable[str], rules: MeldRules, value: Callable[[str], int], *,
                   sets_allowed: SetsAllowed) -> Partition:
    """The highest-scoring split of ``hand`` into disjoint melds and the rest.

    Exact: a search over the sub-hands that remain once the lowest card is
    decided (left out, or in one of the melds that contain it), memoized by
    sub-hand, so every sub-hand is solved once. Cards in no possible meld are
    left out before the search starts. Ties go to longer melds.
    """
    cards = sorted(set(hand), key=sort_key)
    total = sum(value(c) for c in cards)
    melds = all_melds(cards, rules, sets=sets_allowed is not False)
    if not melds:
        return Partition((), tuple(cards), -total)
    search = _Search(cards, melds, value)
    if sets_allowed == "with_run":
        plain = search.best(search.full, runs_only=True, need_run=False)
        with_run = search.best(search.full, runs_only=False, need_run=True)
        chosen = (search.partition(runs_only=False, need_run=True)
                  if with_run >= plain else search.partition(runs_only=True, need_run=False))
    else:
        search.best(search.full, runs_only=False, need_run=False)
        chosen = search.partition(runs_only=False, need_run=False)
    in_melds = {c for m in chosen for c in m.cards}
    rest = tuple(c for c in cards if c not in in_melds)
    melded = total - sum(value(c) for c in rest)
    # Runs first (the order they go down in, IR-8 style), each kind in card order.
    ordered = tuple(sorted(chosen, key=lambda m: (m.kind != "run", sort_key(m.cards[0]))))
    return Partition(ordered, rest, melded - (total - melded))


_IMPOSSIBLE = -(1 << 30)


class _Search:
    """The memoized search behind :func:`best_partition` over one hand.

    Sub-hands are bit masks over the hand's cards. ``best`` is the highest
    total value of meld cards a sub-hand can reach; with ``need_run`` only
    splits holding at least one run qualify (``_IMPOSSIBLE`` if none does).
    """

    def __init__(self, cards: list[str], melds: list[HandMeld],
                 value: Callable[[str], int]) -> None:
        index = {c: i for i, c in enumerate(cards)}
        self.values = [value(c) for c in cards]
        self.melds = melds
        # Per card, the melds whose lowest card it is: (mask, value, is_run, meld index).
        self.starting: list[list[tuple[int, int, bool, int]]] = [[] for _ in cards]
        useful = 0
        for number, meld in enumerate(melds):
            mask = 0
            for card in meld.cards:
                mask |= 1 << index[card]
            useful |= mask
            low = (mask & -mask).bit_length() - 1
            points = sum(self.values[index[c]] for c in meld.cards)
            self.starting[low].append((mask, points, meld.kind == "run", number))
        for starting in self.starting:
            starting.sort(key=lambda m: -m[0].bit_count())  # stable: longer melds win ties
        self.full = useful  # cards in no meld never matter
        self.memo: dict[tuple[int, bool, bool], tuple[int, int]] = {}

    def best(self, mask: int, runs_only: bool, need_run: bool) -> int:
        if not mask:
            return _IMPOSSIBLE if need_run else 0
        key = (mask, runs_only, need_run)
        known = self.memo.get(key)
        if known is not None:
            return known[0]
        low_bit = mask & -mask
        low = low_bit.bit_length() - 1
        # The lowest card left out ...
        best = self.best(mask ^ low_bit, runs_only, need_run)
        choice = -1
        # ... or in a meld it starts (every meld containing it starts with it here,
        # since every lower card has been decided already).
        for meld_mask, points, is_run, number in self.starting[low]:
            if meld_mask & mask != meld_mask or (runs_only and not is_run):
                continue
            rest = self.best(mask ^ meld_mask, runs_only, need_run and not is_run)
            if rest != _IMPOSSIBLE and rest + points > best:
                best = rest + points
                choice = number
        self.memo[key] = (best, choice)
        return best

    def partition(self, runs_only: bool, need_run: bool) -> tuple[HandMeld, ...]:
        """The melds of the best split found for the whole hand."""
        chosen: list[HandMeld] = []
        mask = self.full
        while mask:
            _, number = self.memo[(mask, runs_only, need_run)]
            if number < 0:
                mask ^= mask & -mask
                continue
            meld = self.melds[number]
            chosen.append(meld)
            meld_mask = next(m for m, _, _, n in self.starting[(mask & -mask).bit_length() - 1]
                             if n == number)
            mask ^= meld_mask
            need_run = need_run and meld.kind != "run"
        return tuple(chosen)


def brute_force_partition_score(hand: Iterable[str], rules: MeldRules,
                                value: Callable[[str], int], *,
                                sets_allowed: SetsAllowed) -> int:
    """:func:`best_partition`'s score by trying every partition of the hand into groups.

    A reference for tests and benchmarks, slow on purpose: a group counts plus
    if it is a meld (a set only as ``sets_allowed`` says), every other card
    counts minus. A hand of eight cards has 4,140 partitions.
    """
    cards = list(dict.fromkeys(hand))
    best: int | None = None

    def score(groups: list[list[str]]) -> int:
        kinds = [meld_kind(g, rules) for g in groups]
        # meld_kind calls three cards of one rank a set; one deck cannot make them a run.
        sets_count = sets_allowed is True or (sets_allowed == "with_run" and "run" in kinds)
        total = 0
        for group, kind in zip(groups, kinds, strict=True):
            counts = kind == "run" or (kind == "set" and sets_count)
            total += sum(value(c) for c in group) * (1 if counts else -1)
        return total

    def place(i: int, groups: list[list[str]]) -> None:
        nonlocal best
        if i == len(cards):
            found = score(groups)
            best = found if best is None else max(best, found)
            return
        for group in groups:
            group.append(cards[i])
            place(i + 1, groups)
            group.pop()
        groups.append([cards[i]])
        place(i + 1, groups)
        groups.pop()

    place(0, [])
    return 0 if best is None else best
