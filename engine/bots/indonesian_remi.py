"""An Indonesian Remi bot: builds melds in hand, takes what pays, closes as soon as it can.

Terms:

- a hand's *score* is what it would count if the deal ended now: its best
  partition into melds and the rest (IR-16, :func:`hand_partition`); the
  rest are its *loose* cards;
- *unseen* cards are those neither in the bot's hand, nor in the pile, nor on
  the table: the stock and the other hands;
- an *out* of a loose card is an unseen card that would make a meld of it
  with another loose card (a pair waits for a third card of the rank, two
  cards of a suit one or two ranks apart for the card that joins them);
- the *evaluation* of a hand (after the discard) is its score plus its
  chances: every loose card may still turn from minus to plus, by the
  chance that one of its outs turns up in the draws left; a hand with one
  loose card may close next time with it, worth 10 x its value (IR-17), by
  the chance of drawing a card that completes the rest.

Strategy, one action per call:

- Close whenever all cards but one form melds (IR-14), with the closing card
  worth the most (an ace: 150).
- Draw: every legal take (IR-10) is valued as the meld it lays plus the best
  play of the hand it leaves; drawing from the stock is valued as the hand as
  it stands. The bot takes when that pays. From an empty stock, drawing ends
  the deal (IR-15), so a take must beat the hand's plain score.
- Melds stay in hand (they count there too, and can still be rearranged),
  except the first sequence when the bot holds a loose pair, since a sequence
  on the table lets it take discards for sets (IR-11). With the option
  ``hand_melds_count=false`` only table melds count, so it lays every meld
  of its best partition, sequences first.
- Discard: the card whose loss leaves the best evaluation. Since the chances
  shrink with the draws left, the bot keeps an ace as its closing card while
  a close is likely, and sheds its highest loose cards as the stock runs low.

The bot is pure: no randomness and no clock, so the same view always gives
the same action. Partitions are memoized per call; a hand holds at most
eight cards after the draw.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.bots.rummy_common import completions, costliest_first, on_turn
from engine.cards import rank_index, rank_of, sort_key, standard_deck, suit_of
from engine.game import Action, View
from engine.games.indonesian_remi import (
    CLOSE_BONUS,
    MELDS,
    card_value,
    hand_partition,
    legal_takes,
)
from engine.melds import HandMeld, Partition

DECK = tuple(standard_deck())
# How much the chance of a loose card joining a meld is worth, as a share of
# the swing from minus to plus.
JOIN_WEIGHT = 0.6
# A full hand's typical closing card when the bot cannot tell which it will be.
TYPICAL_BONUS = CLOSE_BONUS * 5


def choose(view: View) -> Action | None:
    """The next action for the viewer's seat, or None when it is not this seat's turn."""
    if not on_turn(view):
        return None
    bot = _Position(view)
    if view.get("step") == "draw":
        return bot.draw()
    return bot.play()


class _Position:
    """What the bot knows from its view, and its memoized hand analysis."""

    def __init__(self, view: View) -> None:
        self.hand: list[str] = list(view["hand"])
        seat = view["you"]
        seats = view["seats"]
        self.players = len(seats)
        self.sequence = bool(seats[seat].get("has_sequence"))
        self.pile: list[str] = list(view["discard"])
        table = [c for m in view["melds"] for c in m["cards"]]
        self.seen = set(self.pile) | set(table)
        self.stock = int(view.get("stock_count") or 0)
        self.hand_melds_count = bool((view.get("options") or {}).get("hand_melds_count", True))
        self._memo: dict[frozenset[str], Partition] = {}

    # -- analysis --

    def partition(self, cards: Iterable[str]) -> Partition:
        key = frozenset(cards)
        known = self._memo.get(key)
        if known is None:
            known = hand_partition(list(key), self.sequence)
            self._memo[key] = known
        return known

    def score(self, cards: Iterable[str]) -> int:
        """IR-16: what the cards count if the deal ends now (table melds aside)."""
        cards = list(cards)
        if self.hand_melds_count:
            return self.partition(cards).score
        return -sum(card_value(c) for c in cards)

    def unseen(self, hand: Iterable[str]) -> list[str]:
        held = set(hand)
        return [c for c in DECK if c not in self.seen and c not in held]

    def draws_left(self) -> float:
        """About how many more cards the bot draws this deal, after this turn."""
        return self.stock / self.players

    def evaluate(self, hand: list[str]) -> float:
        """The hand's score plus its chances over the draws left (see the module doc)."""
        part = self.partition(hand)
        value = float(self.score(hand))
        draws = self.draws_left()
        if draws <= 0 or not hand:
            return value
        unseen = self.unseen(hand)
        if not unseen:
            return value
        loose = list(part.rest)
        if len(loose) == 1:
            value += self._closing_chance(hand, unseen, draws)
        sets_count = self.sequence or part.has_run
        for card in loose:
            outs = _outs(card, loose, unseen, sets_count)
            if outs:
                chance = 1 - (1 - outs / len(unseen)) ** draws
                value += JOIN_WEIGHT * chance * 2 * card_value(card)
        return value

    def _closing_chance(self, hand: list[str], unseen: list[str], draws: float) -> float:
        """What the hand's chance to close next time is worth (one loose card left)."""
        gain = 0.0
        for card in unseen:
            if not _connects(card, hand):
                continue
            part = self.partition([*hand, card])
            if len(part.rest) > 1:
                continue
            closer = part.rest[0] if part.rest else None
            # The closer leaves the hand (no minus) and brings its bonus.
            gain += (CLOSE_BONUS + 1) * card_value(closer) if closer else TYPICAL_BONUS
        if not gain:
            return 0.0
        # Each draw finds one of these cards with probability outs / unseen.
        per_draw = gain / len(unseen)
        return per_draw * min(draws, 3.0)

    def closing(self, hand: list[str]) -> tuple[str, tuple[HandMeld, ...]] | None:
        """The best close of ``hand``: the costliest card whose loss leaves only melds."""
        for card in costliest_first(set(hand), card_value):
            part = self.partition([c for c in hand if c != card])
            if not part.rest:
                return card, part.melds
        return None

    def best_play_value(self, hand: list[str], laid: int) -> float:
        """The value of the best play step for ``hand`` (after a draw or take)."""
        close = self.closing(hand)
        if close is not None:
            card = close[0]
            return laid + sum(card_value(c) for c in hand if c != card) + (
                CLOSE_BONUS * card_value(card))
        return laid + max(self.evaluate([c for c in hand if c != d]) for d in set(hand))

    # -- the draw step --

    def draw(self) -> Action:
        # From an empty stock, drawing ends the deal (IR-15): the hand counts as it is.
        stock_value = self.evaluate(self.hand) if self.stock else float(self.score(self.hand))
        best: tuple[float, Action] | None = None
        for take, meld_points, rest in self.takes():
            value = self.best_play_value(rest, meld_points)
            if value > stock_value and (best is None or value > best[0]):
                best = (value, take)
        return best[1] if best is not None else {"kind": "draw"}

    def takes(self) -> list[tuple[Action, int, list[str]]]:
        """Every legal take: the action, the meld's points and the hand it leaves."""
        found = []
        for index, meld in legal_takes(self.hand, self.pile, self.sequence):
            card = self.pile[index]
            used = [c for c in meld.cards if c != card]
            rest = [c for c in self.hand if c not in used] + self.pile[index + 1:]
            points = sum(card_value(c) for c in meld.cards)
            found.append(({"kind": "take", "card": card, "with": used}, points, rest))
        return found

    # -- the play step --

    def play(self) -> Action:
        hand = self.hand
        close = self.closing(hand)
        if close is not None:
            card, melds = close
            if not melds:
                return {"kind": "discard", "card": card}
            return {"kind": "close", "melds": [list(m.cards) for m in melds], "card": card}
        meld = self.meld_to_lay()
        if meld is not None:
            return {"kind": "meld", "cards": list(meld.cards)}
        return {"kind": "discard", "card": self.discard_choice()}

    def meld_to_lay(self) -> HandMeld | None:
        part = self.partition(self.hand)
        runs = [m for m in part.melds if m.kind == "run"]
        sets = [m for m in part.melds if m.kind == "set"]
        if not self.hand_melds_count:
            # Only table melds count: lay them all, keeping a card to discard (IR-12).
            for meld in [*runs, *(sets if self.sequence else [])]:
                if len(self.hand) > len(meld.cards):
                    return meld
            return None
        if not self.sequence and runs and _has_pair(part.rest):
            # A sequence on the table lets the bot take discards for sets (IR-11).
            return runs[0]
        return None

    def discard_choice(self) -> str:
        def key(card: str) -> tuple[float, int, tuple[int, int, int]]:
            left = [c for c in self.hand if c != card]
            return (-self.evaluate(left), -card_value(card), sort_key(card))

        return min(set(self.hand), key=key)


# --- card relations ---------------------------------------------------------------------


def _outs(card: str, loose: Sequence[str], unseen: Sequence[str], sets_count: bool) -> int:
    """How many unseen cards would make a meld of ``card`` with another loose card."""
    wanted: set[str] = set()
    for other in loose:
        if other == card or (rank_of(other) == rank_of(card) and not sets_count):
            continue
        wanted.update(rank + suit for rank, suit in completions(card, other, MELDS.sequences))
    unseen_set = set(unseen)
    return sum(1 for c in wanted if c in unseen_set)


def _connects(card: str, hand: Sequence[str]) -> bool:
    """Whether ``card`` could join a meld with cards of ``hand`` (same rank, or near in suit)."""
    rank = rank_index(card)
    return any(
        rank_of(other) == rank_of(card)
        or (suit_of(other) == suit_of(card) and abs(rank_index(other) - rank) <= 2)
        for other in hand
    )


def _has_pair(cards: Sequence[str]) -> bool:
    ranks = [rank_of(c) for c in cards]
    return len(set(ranks)) < len(ranks)

