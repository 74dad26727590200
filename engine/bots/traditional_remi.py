"""A Traditional Remi bot: a patient hunter working from its own view.

Terms:

- a *placement* puts hand cards down: a new meld from the hand, or a group of
  cards laid off on one meld of the table (a run extended at either end, a
  set filled up to four suits);
- a *plan* is a set of disjoint placements; the cards it leaves are the
  hand's *deadwood*, and the best plan leaves the least deadwood value (every
  card counts, so an empty deadwood means the whole hand could go down);
- a *near-meld* is two deadwood cards one card short of a meld whose missing
  card is still *live*: with two decks a card is gone only when both copies
  are in the discard pile or on the table (a pair of one rank waits for any
  copy of a third suit; two cards of a suit one or two ranks apart, in the
  ace-low or the ace-high order, wait for the card that joins them).

Strategy, one action per call:

- Go out whenever it can: if all cards but one can be placed, it places them
  (melds first, then lay-offs in an order that keeps every meld valid) and
  discards the last card (TR-10). Done in one turn with nothing laid before,
  that is a hunt (TR-12).
- Hunt: while it has laid nothing down this deal, its hand is *close* (at most
  ``HUNT_DEADWOOD`` deadwood cards before the discard) and no opponent is
  near going out (more than ``DANGER_CARDS`` cards in hand), it holds its
  melds back and only discards, so that it can lay everything down in one
  turn and win with a discard.
- Otherwise it plays gradually: it lays down every placement of the best plan
  for the hand without its discard, cutting the penalty it would take if
  someone else went out.
- Draw: the top of the discard pile when the best plan with it leaves less
  deadwood than without it plus its value (it lands in a meld or a lay-off),
  else the stock.
- Discard: the card whose loss raises the deadwood least, then one outside
  any live near-meld, then the highest value (an ace counts 11).

The bot is pure: no randomness and no clock, so the same view always gives
the same action. Plans are searched exactly, memoized per call; a hand holds
at most eleven cards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.cards import RANKS, SUITS, rank_of, sort_key, suit_of
from engine.game import Action, View
from engine.games.rummy import possible_melds
from engine.games.traditional_remi import HAND_SIZE, MELDS, RULES
from engine.melds import extended

HUNT_DEADWOOD = 3  # deadwood cards (before the discard) at which the bot holds back
DANGER_CARDS = 3  # an opponent with this many cards or fewer may go out any turn
OUTS_HAND = 6  # hands (after the draw) this small choose their discard by counting outs

Hand = frozenset[str]
# A table meld as the bot sees it: (meld id, kind, cards in table order).
TableMeld = tuple[str, str, tuple[str, ...]]


def choose(view: View) -> Action | None:
    """The next action for the viewer's seat, or None when it is not this seat's turn."""
    if view.get("phase") != "playing" or view.get("turn") != view.get("you"):
        return None
    hand: list[str] = list(view["hand"])
    table: list[TableMeld] = [(m["id"], m["kind"], tuple(m["cards"])) for m in view["melds"]]
    discard: list[str] = list(view["discard"])
    planner = _Planner(hand, table)
    if view.get("step") == "draw":
        return _draw(hand, table, discard, planner)
    seen = list(discard) + [c for _, _, cards in table for c in cards]
    others = [s["hand_count"] for s in view["seats"] if s["seat"] != view.get("you")]
    return _play(planner, frozenset(hand), table, seen,
                 danger=min(others, default=99) <= DANGER_CARDS)


def value(card: str) -> int:
    return RULES.value(card)


# --- plans ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """Cards put down in one go: a new meld (``meld`` None) or lay-offs on table meld ``meld``."""

    meld: str | None
    cards: tuple[str, ...]  # a new meld's cards, or the lay-offs in a valid order


@dataclass(frozen=True)
class Plan:
    deadwood: int  # total value left in hand
    left: Hand
    placements: tuple[Placement, ...]


class _Planner:
    """The best plans for the sub-hands of one hand against one table, memoized."""

    def __init__(self, hand: Iterable[str], table: Sequence[TableMeld]) -> None:
        cards = sorted(set(hand), key=sort_key)
        self._with: dict[str, list[tuple[int | None, Hand, Placement]]] = {}
        for meld in possible_melds(cards, MELDS):
            placement = Placement(None, tuple(meld))
            for card in meld:
                self._with.setdefault(card, []).append((None, frozenset(meld), placement))
        for index, (meld_id, kind, on_table) in enumerate(table):
            for group, order in _extensions(on_table, kind, cards).items():
                placement = Placement(meld_id, order)
                for card in group:
                    self._with.setdefault(card, []).append((index, group, placement))
        self._memo: dict[tuple[Hand, frozenset[int]], Plan] = {}

    def best(self, cards: Hand, used: frozenset[int] = frozenset()) -> Plan:
        """The plan for ``cards`` that leaves the least deadwood (table melds in ``used`` taken)."""
        if not cards:
            return Plan(0, frozenset(), ())
        key = (cards, used)
        known = self._memo.get(key)
        if known is not None:
            return known
        # The lowest card is either left in hand or in one placement that holds it.
        card = min(cards, key=sort_key)
        rest = self.best(cards - {card}, used)
        best = Plan(rest.deadwood + value(card), rest.left | {card}, rest.placements)
        for table_index, group, placement in self._with.get(card, ()):
            if not group <= cards or (table_index is not None and table_index in used):
                continue
            taken = used if table_index is None else used | {table_index}
            rest = self.best(cards - group, taken)
            if rest.deadwood < best.deadwood or (
                rest.deadwood == best.deadwood and len(rest.placements) + 1 < len(best.placements)
            ):
                best = Plan(rest.deadwood, rest.left, (placement, *rest.placements))
        self._memo[key] = best
        return best


def _extensions(on_table: tuple[str, ...], kind: str, hand: Sequence[str]
                ) -> dict[Hand, tuple[str, ...]]:
    """Every group of hand cards that can be laid off on one table meld, with a valid order."""
    found: dict[Hand, tuple[str, ...]] = {}
    frontier: list[tuple[tuple[str, ...], tuple[str, ...]]] = [(on_table, ())]
    while frontier:
        cards, added = frontier.pop()
        for card in hand:
            if card in added:
                continue
            grown = extended(cards, kind, card, MELDS)
            if grown is None:
                continue
            order = (*added, card)
            group = frozenset(order)
            if group not in found:
                found[group] = order
                frontier.append((tuple(grown), order))
    return found


# --- the draw -------------------------------------------------------------------------


def _draw(hand: list[str], table: list[TableMeld], discard: list[str],
          planner: _Planner) -> Action:
    if discard:
        top = discard[-1]
        cards = frozenset(hand)
        with_top = _Planner([*hand, top], table)
        # Taking the top card is worth it when the turn can end with fewer cards
        # left outside placements (or as few, worth less) than a useless draw gives.
        best_with = min(_left(with_top.best(cards | {top} - {d})) for d in cards | {top})
        if best_with < _left(planner.best(cards)):
            return {"kind": "draw", "from": "discard"}
    return {"kind": "draw", "from": "stock"}


def _left(plan: Plan) -> tuple[int, int]:
    """How far a plan is from going out: cards left in hand, then their value."""
    return len(plan.left), plan.deadwood


# --- the play step --------------------------------------------------------------------


def _play(planner: _Planner, hand: Hand, table: list[TableMeld], seen: list[str],
          danger: bool) -> Action:
    whole = planner.best(hand)
    # What each possible discard leaves: the best plan of the rest of the hand.
    after = {card: planner.best(hand - {card}) for card in hand}
    out = [card for card in sorted(hand, key=lambda c: (-value(c), sort_key(c)))
           if not after[card].left]
    if out:
        return _first_step(after[out[0]], out[0])  # goes out (TR-10)
    dead = whole.left

    def key(card: str) -> tuple[int, bool, int, tuple[int, int, int]]:
        # How much deadwood discarding ``card`` adds by breaking a placement (0 for deadwood).
        breakage = after[card].deadwood - (whole.deadwood - value(card))
        return breakage, _is_near_meld(card, dead, hand, seen), -value(card), sort_key(card)

    ranked = sorted(hand, key=key)
    nothing_laid = len(hand) == HAND_SIZE + 1
    if nothing_laid and len(dead) <= HUNT_DEADWOOD and not danger:
        return {"kind": "discard", "card": ranked[0]}  # holds back for the hunt
    if len(hand) <= OUTS_HAND:
        # Near the end what counts is how many draws would let the hand go out.
        outs = {card: _outs(after[card].left, table, seen) for card in ranked}
        card = max(ranked, key=lambda c: outs[c])  # max keeps the first of equals
    else:
        card = ranked[0]
    return _first_step(after[card], card)


def _outs(cards: Hand, table: list[TableMeld], seen: list[str]) -> int:
    """How many unseen cards, drawn next turn, would let a hand of ``cards`` go out."""
    total = 0
    for rank in RANKS:
        for suit in SUITS:
            left = _copies_left(rank, suit, cards, seen)
            if not left:
                continue
            gone = {c for c in (*cards, *seen) if c[:2] == rank + suit}
            drawn = next(f"{rank}{suit}{d}" for d in range(1, RULES.decks + 1)
                         if f"{rank}{suit}{d}" not in gone)
            if not _related(drawn, cards, table):
                continue
            pool = cards | {drawn}
            planner = _Planner(pool, table)
            if any(not planner.best(pool - {d}).left for d in pool):
                total += left
    return total


def _related(drawn: str, cards: Hand, table: list[TableMeld]) -> bool:
    """Whether ``drawn`` could share a new meld with ``cards`` or be laid off on the table.

    A card that does neither changes nothing: the hand could go out with it
    only if it could already go out without it.
    """
    rank, suit = rank_of(drawn), suit_of(drawn)
    for card in cards:
        if rank_of(card) == rank and suit_of(card) != suit:
            return True
        if suit_of(card) == suit and _run_gaps(rank_of(card), rank):
            return True
    return any(extended(on_table, kind, drawn, MELDS) is not None
               for _, kind, on_table in table)


def _first_step(plan: Plan, discard: str) -> Action:
    """The plan's first placement (melds before lay-offs), or the discard once all are down."""
    ordered = sorted(plan.placements, key=lambda p: p.meld is not None)
    if not ordered:
        return {"kind": "discard", "card": discard}
    first = ordered[0]
    if first.meld is None:
        return {"kind": "meld", "cards": list(first.cards)}
    return {"kind": "lay_off", "card": first.cards[0], "meld": first.meld}


# --- the discard ----------------------------------------------------------------------


def _copies_left(rank: str, suit: str, hand: Hand, seen: list[str]) -> int:
    """How many of the two copies of rank+suit may still come into the hand."""
    gone = sum(1 for c in (*hand, *seen) if c[0] == rank and c[1] == suit)
    return max(0, RULES.decks - gone)


def _is_near_meld(card: str, dead: Hand, hand: Hand, seen: list[str]) -> bool:
    """Whether ``card`` and another deadwood card still wait for a live third card."""
    rank, suit = rank_of(card), suit_of(card)
    for other in dead:
        if other == card:
            continue
        if rank_of(other) == rank:
            if suit_of(other) == suit:
                continue  # two copies of one card make no set (TR-5)
            if any(_copies_left(rank, s, hand, seen) for s in SUITS
                   if s not in (suit, suit_of(other))):
                return True
        elif suit_of(other) == suit:
            for missing in _run_gaps(rank, rank_of(other)):
                if _copies_left(missing, suit, hand, seen):
                    return True
    return False


def _run_gaps(first: str, second: str) -> list[str]:
    """The ranks that would make a three-card run with these two ranks (either ace order)."""
    wanted: list[str] = []
    for seq in MELDS.sequences:
        a, b = sorted((seq.index(first), seq.index(second)))
        if b - a == 1:
            wanted += [seq[i] for i in (a - 1, b + 1) if 0 <= i < len(seq)]
        elif b - a == 2:
            wanted.append(seq[a + 1])
    return list(dict.fromkeys(wanted))
