"""A Remmi Demmi bot: an honest trader working from its own view.

Terms: a *family* is one of the eighteen card groups a Remmi can come from
(RD-9): one colour with two of the figures, or one figure with two of the
colours. The bot's *target* is the family it holds most cards of; the cards
outside it are its *misfits*, the ones it trades away.

Strategy, one action per call:

- Dealt: the dealer gives the frantic sign (``reveal``) if needed, then starts
  the timer at the room's speed; everybody else waits.
- An invalid Demmi received is returned at once (valid ones are simply kept:
  they never open a return window).
- Nine cards making a Remmi are claimed (withdrawing an open offer first; with
  locked cards the bot waits for the window to close).
- An open offer of another seat (aimed at the bot or at nobody) is answered,
  oldest first, with a Demmi of the same size made of misfits, aimed back at
  that seat so that exactly that offer matches.
- Otherwise the bot offers a Demmi of misfits of one to three cards (valid,
  so honest), and withdraws it when nobody has taken it for a while.

The bot uses no clock: "a while" is measured with the view's ``server_time``
(added by the room), or else the latest time the view shows. The seed only
picks the size of a new offer, so the same view and seed give the same action.
"""

from __future__ import annotations

from typing import Any

from engine.game import Action, View
from engine.games.remmi_demmi import COLOURS, FIGURES, find_remmi, is_demmi
from engine.rng import Rng

STALE_MS = 10_000  # an offer nobody took in this time is withdrawn
MAX_OFFER = 3

# (colours, figures) of each family, in a fixed order (ties go to the first).
FAMILIES: tuple[tuple[str, str], ...] = tuple(
    [(c, f1 + f2) for c in COLOURS for i, f1 in enumerate(FIGURES) for f2 in FIGURES[i + 1:]]
    + [(c1 + c2, f) for f in FIGURES for i, c1 in enumerate(COLOURS) for c2 in COLOURS[i + 1:]]
)


def choose(view: View, seed: int) -> Action | None:
    """The next action for the viewer's seat, or None to wait."""
    me = view.get("you")
    if view.get("phase") != "playing" or me is None:
        return None
    if view["seats"][me].get("claimed") is not None:
        return None
    if view.get("stage") == "dealt":
        if view.get("dealer") != me:
            return None
        if view.get("frantic") and not view.get("revealed"):
            return {"kind": "reveal"}
        return {"kind": "start_timer", "speed": view.get("speed") or "snail"}
    if view.get("stage") != "trading" or view.get("hand_hidden"):
        return None
    for trade in view.get("trades", []):
        if trade.get("can_return") and not is_demmi(trade["got"]):
            return {"kind": "return", "trade": trade["id"]}
    hand: list[str] = list(view["hand"])
    locked = set(view.get("locked", []))
    mine = view.get("my_offer")
    remmi = find_remmi(hand)
    if remmi is not None:
        if mine is not None:
            return {"kind": "withdraw"}
        return None if locked else {"kind": "claim", "cards": remmi}
    misfits = [c for c in hand if c not in locked and not fits(c, target_of(hand))]
    for offer in view.get("offers", []):
        if offer["seat"] == me or offer["to"] not in (None, me):
            continue
        cards = demmi_of_size(misfits, offer["size"])
        if cards is not None:
            return {"kind": "offer", "cards": cards, "to": offer["seat"]}
    if mine is not None:
        if _now(view) - mine["at"] >= STALE_MS:
            return {"kind": "withdraw"}
        return None
    largest = max((len(g) for g in groups(misfits)), default=0)
    if largest == 0:
        return None
    size = Rng(seed).below(min(largest, MAX_OFFER)) + 1
    cards = demmi_of_size(misfits, size)
    return None if cards is None else {"kind": "offer", "cards": cards, "to": None}


def fits(card: str, family: tuple[str, str]) -> bool:
    colours, figures = family
    return card[0] in colours and card[1] in figures


def target_of(hand: list[str]) -> tuple[str, str]:
    """The family with the most cards of ``hand`` (the first such, in a fixed order)."""
    return max(FAMILIES, key=lambda family: sum(fits(c, family) for c in hand))


def groups(cards: list[str]) -> list[list[str]]:
    """``cards`` split by colour and by figure (each card is in two groups)."""
    by_colour = [[c for c in cards if c[0] == colour] for colour in COLOURS]
    by_figure = [[c for c in cards if c[1] == figure] for figure in FIGURES]
    return [g for g in by_colour + by_figure if g]


def demmi_of_size(cards: list[str], size: int) -> list[str] | None:
    """``size`` of ``cards`` making a Demmi (from the largest group), or None."""
    best = max(groups(cards), key=len, default=[])
    return sorted(best)[:size] if len(best) >= size else None


def _now(view: View) -> int:
    if isinstance(view.get("server_time"), int):
        return int(view["server_time"])
    times: list[Any] = [view.get("timer_started_at")]
    times += [o.get("at") for o in view.get("offers", [])]
    times += [t.get("at") for t in view.get("trades", [])]
    return max((t for t in times if isinstance(t, int)), default=0)
