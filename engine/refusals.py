"""Every refusal's *reason*: a stable key with its English sentence.

A *reason* names one exact refusal (``draw_first``, ``not_held``) so that a
client can say it in its player's language: ``static/js/lang/errors.<lang>.js``
hold the same keys with the same ``{placeholders}``, filled from the
refusal's *params* (a list, such as ``cards``, is written joined by ", ").
The message sent with a refusal is the English sentence made here; the
written rule it enforces travels apart (``rule``), never in the sentence.

The keys are part of the wire protocol (``docs/protocol.md`` lists them): a
key may be added, never renamed or reused for another refusal. Grouped by
who refuses: the games (engine/games), the room (engine/room.py), the
server (app/).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# --- the games ---------------------------------------------------------------------

GAME_REASONS: dict[str, str] = {
    # any game
    "illegal_action": "That move is not allowed.",
    "not_an_action": 'An action must be an object with a "kind".',
    "unknown_action": "There is no action {kind} in this game.",
    "no_such_seat": "There is no seat {seat} at this table.",
    "not_your_turn": "It is not your turn.",
    "deal_not_over": "The next deal can only start once a deal is over.",
    "deal_over": "The deal is over; wait for the next one.",
    "game_over": "The game is over.",
    "missing_card": "Choose a card for this move.",
    "missing_cards": "Choose the cards for this move.",
    "card_twice": "The same card is chosen twice.",
    "not_held": "You do not hold {cards}.",
    # the rummy games
    "draw_first": "Draw a card first.",
    "already_drew": "You have already drawn this turn.",
    "missing_draw_source": "Draw from the stock or from the discard pile.",
    "discard_pile_empty": "The discard pile is empty.",
    "nothing_to_draw": "There is nothing left to draw.",
    "melds_per_turn": "No more new melds this turn: a turn allows {limit} at most.",
    "not_a_meld": "{cards} is not a meld.",
    "no_lay_off": "Nothing may be added to melds on the table.",
    "missing_meld": "Choose the meld on the table to add the card to.",
    "no_such_meld": "That meld is not on the table.",
    "does_not_fit": "{card} does not fit on that meld.",
    "card_just_taken": "{card} was just taken from the discard pile and cannot be "
                       "discarded this turn.",
    "keep_a_discard": "Keep a card to discard: a deal is won only by discarding "
                      "your last card.",
    "only_taken_card_left": "That would leave you only {card}, which you took from the "
                            "discard pile and which fits no meld.",
    "set_needs_sequence": "You may lay down a set only once you have a sequence on "
                          "the table.",
    # Indonesian Remi
    "draw_or_take_first": "Draw from the stock or take from the discard pile first.",
    "already_drew_or_took": "You have already drawn or taken this turn.",
    "take_to_use_discard": "To use the discard pile, take a card together with the "
                           "hand cards it melds with.",
    "not_in_top_three": "{card} is not one of the top three discards.",
    "take_needs_two": "The taken card must meld with at least two of your cards.",
    "take_from_hand_only": "You do not hold {cards}; the meld may use only cards that "
                           "were in your hand before the take.",
    "take_set_needs_sequence": "You may not take a discard for a set until you have "
                               "a sequence.",
    "close_lay_everything": "To close, lay down every card but the closing card, each "
                            "in one meld.",
    # Remmi Demmi
    "round_not_over": "The next round can only start once a round is over.",
    "round_over": "The round is over; the next one starts soon.",
    "dealer_starts_timer": "Only the dealer starts the timer.",
    "dealer_reveals": "Only the dealer gives the sign to look at the cards.",
    "timer_not_running": "Wait for the timer: the dealer starts it.",
    "timer_running": "The timer is already running.",
    "missing_speed": "Choose a speed: snail or lightning.",
    "claimed_out": "You have made Remmi-Demmi: you take no further part.",
    "not_frantic": "The cards are dealt face up in this game.",
    "already_face_up": "The cards are already face up.",
    "already_peeked": "You have already looked at your cards.",
    "cards_locked": "{cards} stay with you until the trade's return window closes.",
    "offer_too_big": "You hold only {count} cards.",
    "bad_trade_seat": "Offer to one seat at the table, or to everyone.",
    "trade_with_self": "You cannot trade with yourself.",
    "seat_claimed_out": "Seat {seat} has made Remmi-Demmi and trades no more.",
    "no_open_offer": "You have no open offer to withdraw.",
    "missing_trade": "Choose one of your trades.",
    "no_such_trade": "That trade is not yours to settle this round.",
    "valid_demmi": "You received a valid Demmi in that trade: nothing to return.",
    "already_returned": "That trade has already been returned.",
    "return_window_closed": "The return window of that trade is closed.",
    "withdraw_before_claim": "Withdraw your open offer before making Remmi-Demmi.",
    "locked_before_claim": "You hold cards of an open return window; wait for it to "
                           "close.",
    "remmi_size": "A Remmi names exactly {count} cards.",
}

# --- the room (engine/room.py) ------------------------------------------------------

ROOM_REASONS: dict[str, str] = {
    "cannot_watch": "This room cannot be watched.",
    "sign_in_to_play": "Choose a name to take a seat; anyone may watch.",
    "game_started": "The game has started: you can watch it.",
    "room_full": "Every seat is taken: you can watch.",
    "not_your_seat": "That is not your seat.",
    "owner_only": "Only the room's owner can do that.",
    "bots_before_start": "Bots can be added or removed only before the game starts.",
    "already_started": "The game has already started.",
    "seats_empty":
        "The table is not full yet (empty seats: {count}): add bots or wait for players.",
    "not_seated": "Only seated players can do that.",
    "not_playing": "The game is not being played.",
    "not_a_bot_seat": "Seat {seat} holds no bot.",
    "game_not_over": "A new game can start only once this one is over.",
    "no_rematch_here": "This room's games are played once: start a new one from the "
                       "lobby.",
    "sign_in_to_chat": "Choose a name to chat.",
    "chat_empty": "Write something, or pick an emote.",
    "chat_too_long": "Chat lines are at most {limit} characters.",
    "unknown_emote": "There is no emote {emote}.",
    "unknown_command": "The room does not know that command.",
    "moved": "The room moved; try again.",
    "busy": "The room is busy; try again.",
    "server_error": "Something went wrong on the server; try again.",
    "unavailable": "The game cannot be saved right now, so nothing changed: try again shortly.",
}

# --- the server (app/): WebSocket frames and HTTP requests ---------------------------

SERVER_REASONS: dict[str, str] = {
    "not_json": "The message is not valid JSON.",
    "too_deep": "Messages may nest at most {limit} levels deep.",
    "not_text": "Send JSON text frames.",
    "bad_field": "The message's {field} is not right: {problem}",
    "rate_limited": "Slow down: too many messages.",
    "join_first": "Join the room first.",
    "not_in_room": "You are not in that room.",
    "unknown_room": "There is no such room.",
    "room_over": "That room is closed.",
    "unknown_game": "There is no such game.",
    "scenarios_disabled": "Scenario rooms are disabled on this server.",
    "bad_options": "Those options do not work: {detail}",
    "needs_deals_or_target": "The game needs a number of deals or a target score.",
    "unauthorized": "Choose a name first.",
    "daily_private": "A daily deal's replay is private until its day is over.",
    "no_replay": "No finished game in that room.",
    "unknown_player": "There is no such player.",
    "daily_misconfigured": "The daily deal is not set up on this server.",
    "name_empty": "Choose a name.",
    "name_too_long": "Names are at most {limit} characters.",
    "name_not_printable": "Names may use only printable characters.",
    "too_many_rooms": "You already have as many rooms waiting or being played as you may "
                      "({limit}): finish or leave one first.",
    "replay_too_long": "This game is too long to watch step by step.",
    "too_large": "Requests are limited to {limit} bytes.",
    "bad_length": "The request's length is not a number.",
    "unreadable_number": "Numbers must be finite JSON numbers of a usable size.",
    "slow_down": "Too many requests from your address; try again in {seconds} s.",
}

REASONS: dict[str, str] = {**GAME_REASONS, **ROOM_REASONS, **SERVER_REASONS}


def _shown(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def sentence(reason: str, params: Mapping[str, Any]) -> str:
    """The English sentence of ``reason`` with ``params`` filled in.

    An unknown reason, or a placeholder the params lack, still gives a
    sentence: a refusal must never fail to be said.
    """
    template = REASONS.get(reason)
    if template is None:
        return reason.replace("_", " ")
    shown = {key: _shown(value) for key, value in params.items()}
    try:
        return template.format_map(shown)
    except (KeyError, IndexError, ValueError):
        return template
