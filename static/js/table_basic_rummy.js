// The Basic Rummy table (Traditional Remi plays with the same actions).
//
// Terms: the *stock* is the face-down pile, the *discard* pile is face up;
// a *meld* is a run or a set on the table; *laying off* adds one card from
// the hand to any meld. A turn is: draw one card, then optionally one new
// meld and any lay-offs, then discard one card.
//
// The table keeps only what the server sent (the latest view) plus local UI
// state: the selected cards, the sort order, the event log and an inline error.

import { cardElement, cardLabel, parseCard, sortCards } from './cards.js';
import { copyText, formatClock, h, mount } from './dom.js';
import { bySeat, cls, plural } from './ui.js';
import { replayLink, rulesButton, tableDealNotes } from './help.js';

const PHASE_LABELS = {
  waiting: 'Waiting',
  playing: 'Playing',
  deal_over: 'Deal over',
  game_over: 'Game over',
};
const GAME_TITLES = { basic_rummy: 'Basic Rummy', traditional_remi: 'Traditional Remi' };
const ERROR_TEXT = {
  not_your_turn: 'It is not your turn.',
  rate_limited: 'Slow down a little and try again.',
  forbidden: 'Only the host can do that.',
  room_full: 'The table is full.',
  unknown_room: 'This table no longer exists.',
  disconnected: 'Connection lost: reconnecting…',
  timeout: 'The server did not answer in time. Try again.',
};
const LOG_LIMIT = 80;
const SORT_KEY = 'kartu.sort';

/** "draw a card first" -> "Draw a card first." */
export function sentence(text) {
  const t = String(text || '').trim();
  if (!t) return '';
  const capital = t[0].toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

export function errorText(err) {
  if (!err) return '';
  if (err.code && ERROR_TEXT[err.code] && (err.code === 'disconnected' || !err.message
    || err.message === err.code)) {
    return ERROR_TEXT[err.code];
  }
  return sentence(err.message || ERROR_TEXT[err.code] || 'That was refused.');
}

function initialOf(name) {
  const trimmed = String(name || '').trim();
  return trimmed ? [...trimmed][0].toUpperCase() : '·';
}

/** A seat's name for display: bots are marked with a tag, not a "(bot)" suffix. */
function displayName(seat) {
  if (!seat?.name) return null;
  return seat.bot ? seat.name.replace(/\s*\(bot\)$/i, '') : seat.name;
}

// Room events that only move a counter: not worth a log line.
const QUIET_EVENTS = new Set(['spectator_joined', 'spectator_left']);

/** A card label as a node, its suit coloured. */
function cardText(id) {
  const card = parseCard(id);
  return h('span', { class: cls('card-text', card?.red && 'is-red') }, cardLabel(id));
}

function cardList(ids) {
  const out = [];
  (ids || []).forEach((id, i) => {
    if (i) out.push(' ');
    out.push(cardText(id));
  });
  return out;
}

export class BasicRummyTable {
  /**
   * `ctx`: {roomId, role, identity(), act(action), command(type), leave(),
   * serverNow(), inviteUrl, notice}
   */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.view = null;
    this.version = 0;
    this.selected = new Set();
    this.sortMode = localStorage.getItem(SORT_KEY) === 'rank' ? 'rank' : 'suit';
    this.events = [];
    this.error = null;
    this.busy = false;
    this.prevHand = null;
    this.prevDeal = null;
    this.newCards = new Set();
    this.arriving = false;
    this.leaveArmed = false;
    this.copied = false;
    this.clockSpan = null;
    this.freshMelds = new Set();
    this.prevMelds = null;
    this.tick = setInterval(() => this.updateClocks(), 250);
  }

  destroy() {
    clearInterval(this.tick);
    clearTimeout(this.leaveTimer);
    clearTimeout(this.copyTimer);
    document.title = 'Kartu';
  }

  // --- input from the socket -------------------------------------------------

  update(view, version) {
    const previous = this.view;
    this.view = view;
    this.version = version;
    const hand = Array.isArray(view.hand) ? view.hand : [];
    for (const id of [...this.selected]) if (!hand.includes(id)) this.selected.delete(id);
    // Cards that just came into the hand get a short highlight.
    if (this.prevHand && this.prevDeal === view.deal && previous?.phase === 'playing') {
      this.newCards = new Set(hand.filter((id) => !this.prevHand.includes(id)));
    } else {
      this.newCards = new Set();
    }
    this.arriving = this.newCards.size > 0;
    const meldIds = new Set(this.allMelds().map((m) => `${m.id}:${m.cards.length}`));
    this.freshMelds = this.prevMelds && this.prevDeal === view.deal
      ? new Set([...meldIds].filter((k) => !this.prevMelds.has(k)).map((k) => k.split(':')[0]))
      : new Set();
    this.prevMelds = meldIds;
    this.prevHand = hand;
    this.prevDeal = view.deal;
    if (view.phase !== 'playing') this.selected.clear();
    // An error is about the moment it happened: a new turn or phase clears it.
    if (previous && (previous.turn !== view.turn || previous.phase !== view.phase)) this.error = null;
    this.render();
    this.arriving = false;
  }

  onEvent(event) {
    if (!event || typeof event !== 'object' || QUIET_EVENTS.has(event.kind)) return;
    this.events.push({ event, at: Date.now() });
    if (this.events.length > LOG_LIMIT) this.events.splice(0, this.events.length - LOG_LIMIT);
    const list = this.root.querySelector('[data-testid="log"]');
    if (list) {
      mount(list, this.logItems());
      list.scrollTop = list.scrollHeight;
    }
  }

  showError(err) {
    this.error = typeof err === 'string' ? err : errorText(err);
    this.render();
  }

  // --- helpers over the view -------------------------------------------------

  get you() {
    const you = this.view?.you;
    return typeof you === 'number' ? you : null;
  }

  get seated() {
    return this.you !== null;
  }

  get myTurn() {
    const v = this.view;
    return !!v && v.phase === 'playing' && this.seated && v.turn === this.you;
  }

  seat(n) {
    return (this.view?.seats || []).find((s) => s.seat === n) || null;
  }

  nameOf(n, { you = 'You' } = {}) {
    if (n === null || n === undefined) return 'Someone';
    if (n === this.you && you) return you;
    return displayName(this.seat(n)) || `Seat ${Number(n) + 1}`;
  }

  allMelds() {
    const v = this.view;
    if (!v) return [];
    if (Array.isArray(v.melds)) return v.melds;
    return (v.seats || []).flatMap((s) => (s.melds || []).map((m) => ({ ...m, owner: s.seat })));
  }

  isOwner() {
    const owner = this.view?.room?.owner_id;
    const me = this.ctx.identity();
    return owner !== undefined && owner !== null && me && String(owner) === String(me.player_id);
  }

  canLayOff() {
    return this.myTurn && this.view.step === 'play' && this.selected.size === 1 && !this.busy;
  }

  gameTitle() {
    return GAME_TITLES[this.view?.game] || 'Rummy';
  }

  // --- actions -----------------------------------------------------------------

  async run(promise, { clearSelection = false } = {}) {
    if (this.busy) return;
    this.busy = true;
    this.error = null;
    this.render();
    try {
      await promise();
      if (clearSelection) this.selected.clear();
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.busy = false;
      this.render();
    }
  }

  act(action, options) {
    return this.run(() => this.ctx.act(action), options);
  }

  draw(from) {
    this.act({ kind: 'draw', from });
  }

  meld() {
    const hand = this.view.hand || [];
    const cards = hand.filter((id) => this.selected.has(id));
    this.act({ kind: 'meld', cards: sortCards(cards, 'suit') }, { clearSelection: true });
  }

  layOff(meldId) {
    const [card] = [...this.selected];
    this.act({ kind: 'lay_off', card, meld: meldId }, { clearSelection: true });
  }

  discard() {
    const [card] = [...this.selected];
    this.act({ kind: 'discard', card }, { clearSelection: true });
  }

  toggle(id) {
    if (this.selected.has(id)) this.selected.delete(id);
    else this.selected.add(id);
    this.error = null;
    this.render();
  }

  setSort(mode) {
    this.sortMode = mode;
    localStorage.setItem(SORT_KEY, mode);
    this.render();
  }

  async copyInvite() {
    const ok = await copyText(this.ctx.inviteUrl);
    this.copied = ok ? 'Link copied' : 'Copy failed';
    this.render();
    clearTimeout(this.copyTimer);
    this.copyTimer = setTimeout(() => {
      this.copied = false;
      this.render();
    }, 1800);
  }

  leave() {
    const risky = this.seated && this.view?.phase === 'playing';
    if (risky && !this.leaveArmed) {
      this.leaveArmed = true;
      this.render();
      this.leaveTimer = setTimeout(() => {
        this.leaveArmed = false;
        this.render();
      }, 4000);
      return;
    }
    this.ctx.leave();
  }

  // --- rendering ---------------------------------------------------------------

  render() {
    const v = this.view;
    if (!v) {
      mount(this.root, h('div', { class: 'loading', testid: 'table-loading' }, 'Taking a seat…'));
      return;
    }
    const focused = document.activeElement?.dataset?.testid;
    const log = this.root.querySelector('[data-testid="log"]');
    const stick = !log || log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
    mount(this.root, this.layout());
    if (focused) {
      const again = this.root.querySelector(`[data-testid="${CSS.escape(focused)}"]`);
      if (again && !again.disabled) again.focus({ preventScroll: true });
    }
    const newLog = this.root.querySelector('[data-testid="log"]');
    if (newLog && stick) newLog.scrollTop = newLog.scrollHeight;
    this.updateClocks();
    document.title = `${this.myTurn ? '● Your turn · ' : ''}${this.gameTitle()} · Kartu`;
  }

  layout() {
    const v = this.view;
    const playing = v.phase !== 'waiting';
    return h('div', {
      class: cls('table-wrap', `phase-${v.phase}`, this.myTurn && 'is-my-turn'),
      testid: 'table',
      dataset: {
        phase: v.phase, turn: v.turn ?? '', you: this.you ?? '', version: this.version, room: this.ctx.roomId,
      },
    },
    this.header(),
    this.banner(),
    h('div', { class: 'table-grid' },
      h('section', { class: 'felt', 'aria-label': 'The table' },
        playing ? this.playArea() : this.waitingRoom()),
      h('aside', { class: 'side' },
        playing ? this.scoresPanel() : null,
        this.logPanel())));
  }

  header() {
    const v = this.view;
    const match = [];
    if (v.options?.deals) match.push(`${v.options.deals} deal${v.options.deals === 1 ? '' : 's'}`);
    if (v.options?.target) match.push(`to ${v.options.target} points`);
    return h('header', { class: 'table-head' },
      h('div', { class: 'table-title' },
        h('h1', null, this.gameTitle()),
        h('p', { class: 'muted small' },
          v.phase !== 'waiting' && v.deal ? `Deal ${v.deal}` : 'Table',
          match.length ? ` · ${match.join(', ')}` : '',
          v.room?.spectators ? ` · ${v.room.spectators} watching` : '')),
      h('span', {
        class: cls('phase-badge', `phase-${v.phase}`), testid: 'phase', dataset: { phase: v.phase },
      }, this.myTurn ? 'Your turn' : PHASE_LABELS[v.phase] || v.phase),
      h('div', { class: 'head-actions' },
        rulesButton(v.game),
        h('button', {
          type: 'button', class: 'btn btn-small btn-ghost', testid: 'btn-invite',
          onclick: () => this.copyInvite(), title: 'Copy a link to this table',
        }, this.copied || 'Invite'),
        h('button', {
          type: 'button', class: cls('btn btn-small btn-ghost', this.leaveArmed && 'btn-danger'),
          testid: 'btn-leave', onclick: () => this.leave(),
        }, this.leaveArmed ? 'Leave for good?' : 'Leave')));
  }

  banner() {
    if (this.seated && !this.ctx.notice) return null;
    return h('div', { class: 'banner', testid: 'spectator-banner', role: 'status' },
      this.seated ? null : h('strong', null, 'Watching. '),
      this.ctx.notice || (this.seated ? '' : 'You see what every player sees, never a hand.'));
  }

  // --- waiting room --------------------------------------------------------------

  waitingRoom() {
    const v = this.view;
    const seats = v.seats || [];
    const free = seats.filter((s) => !s.name).length;
    const owner = this.isOwner();
    const copyLabel = this.copied || 'Copy';
    return h('div', { class: 'waiting', testid: 'waiting-room' },
      h('h2', null, free ? `Waiting for players · ${seats.length - free}/${seats.length}` : 'Everyone is seated'),
      h('ul', { class: 'seat-list' }, seats.map((s) => h('li', {
        class: cls('seat-slot', s.name ? 'is-taken' : 'is-free', s.seat === this.you && 'is-you'),
        testid: `seat-${s.seat}`,
      },
      h('span', { class: 'avatar', 'aria-hidden': 'true' }, s.name ? initialOf(displayName(s)) : '+'),
      h('span', { class: 'seat-name' }, displayName(s) || 'Free seat'),
      s.seat === this.you ? h('span', { class: 'tag' }, 'you') : null,
      s.bot ? h('span', { class: 'tag tag-bot' }, 'bot') : null))),
      h('div', { class: 'invite' },
        h('label', { for: 'invite-link', class: 'small' }, 'Invite link'),
        h('div', { class: 'row' },
          h('input', {
            id: 'invite-link', type: 'text', readonly: true, value: this.ctx.inviteUrl, testid: 'invite-link',
            onfocus: (e) => e.target.select(),
          }),
          h('button', {
            type: 'button', class: 'btn btn-small', testid: 'btn-copy-invite', onclick: () => this.copyInvite(),
          }, copyLabel))),
      owner
        ? h('div', { class: 'actions' },
          h('button', {
            type: 'button', class: 'btn', testid: 'btn-add-bot', disabled: !free || this.busy,
            onclick: () => this.run(() => this.ctx.command('add_bot')),
          }, 'Add bot'),
          h('button', {
            type: 'button', class: 'btn btn-primary', testid: 'btn-start', disabled: this.busy,
            onclick: () => this.run(() => this.ctx.command('start')),
          }, 'Start'))
        : h('p', { class: 'muted', testid: 'status' },
          this.seated ? 'The host starts the game when the table is ready.' : 'The game has not started yet.'),
      this.errorLine());
  }

  // --- the game ----------------------------------------------------------------------

  playArea() {
    const v = this.view;
    return [
      h('div', { class: 'opponents' }, this.opponentSeats().map((s) => this.seatChip(s))),
      this.centre(),
      v.phase === 'deal_over' || v.phase === 'game_over' ? this.resultPanel() : null,
      this.meldsArea(),
      this.seated ? this.myArea() : h('section', { class: 'me is-spectator' },
        h('p', { class: 'status', testid: 'status', 'aria-live': 'polite' }, this.statusText()),
        this.errorLine()),
    ];
  }

  opponentSeats() {
    const seats = this.seatsInOrder();
    if (!this.seated) return seats;
    const after = seats.filter((s) => s.seat > this.you);
    const before = seats.filter((s) => s.seat < this.you);
    return [...after, ...before];
  }

  seatChip(s, { mine = false } = {}) {
    const v = this.view;
    const isTurn = v.phase === 'playing' && v.turn === s.seat;
    const isDealer = v.dealer === s.seat;
    const online = s.bot || s.connected !== false;
    const backs = [];
    if (!mine) {
      const n = Math.min(s.hand_count || 0, 11);
      for (let i = 0; i < n; i += 1) {
        // A small fan: each back turned a little further than the last.
        const angle = (i - (n - 1) / 2) * 7;
        backs.push(h('span', { class: 'mini-back', style: `transform: rotate(${angle}deg)` }));
      }
    }
    return h('div', {
      class: cls('seat', isTurn && 'is-turn', mine && 'is-you', !online && 'is-offline'),
      testid: `seat-${s.seat}`,
      dataset: { turn: isTurn ? 'true' : 'false', seat: s.seat },
    },
    h('span', { class: 'avatar', 'aria-hidden': 'true' }, initialOf(displayName(s)),
      h('span', { class: cls('presence', online ? 'is-on' : 'is-off') })),
    h('span', { class: 'seat-info' },
      h('span', { class: 'seat-name' },
        h('span', { class: 'seat-name-text', title: s.name || null }, displayName(s) || `Seat ${s.seat + 1}`),
        s.seat === this.you ? h('span', { class: 'tag' }, 'you') : null,
        s.bot ? h('span', { class: 'tag tag-bot' }, 'bot') : null,
        s.away ? h('span', { class: 'tag tag-away' }, 'away') : null,
        isDealer ? h('span', { class: 'tag tag-dealer', title: 'Dealer' }, 'D') : null),
      h('span', { class: 'seat-stats' },
        h('span', { testid: `hand-count-${s.seat}` }, `${s.hand_count ?? 0} card${s.hand_count === 1 ? '' : 's'}`),
        ' · ',
        h('span', { testid: `score-${s.seat}` }, `${s.score ?? 0} pts`))),
    backs.length ? h('span', { class: 'mini-hand', 'aria-hidden': 'true' }, backs) : null,
    isTurn ? h('span', { class: 'turn-flag' }, mine ? 'your turn' : 'to play') : null);
  }

  centre() {
    const v = this.view;
    const canDraw = this.myTurn && v.step === 'draw' && !this.busy;
    const discard = Array.isArray(v.discard) ? v.discard : [];
    const top = discard.length ? discard[discard.length - 1] : null;
    const under = discard.slice(-3, -1);
    const stockCount = v.stock_count ?? 0;
    const turnName = v.phase === 'playing' && v.turn !== null && v.turn !== undefined
      ? (v.turn === this.you ? 'Your turn' : `${this.nameOf(v.turn)}'s turn`) : null;
    return h('div', { class: 'centre' },
      h('div', { class: 'pile' },
        h('button', {
          type: 'button', class: cls('pile-button stock', canDraw && 'is-live'), testid: 'stock',
          disabled: !canDraw, onclick: () => this.draw('stock'),
          'aria-label': `Stock, ${stockCount} cards${canDraw ? ': draw a card' : ''}`,
        },
        stockCount ? cardElement(null, { faceDown: true }) : h('span', { class: 'card-slot' }, 'empty'),
        h('span', { class: 'count', testid: 'stock-count' }, String(stockCount))),
        h('span', { class: 'pile-label' }, 'Stock')),
      h('div', { class: 'pile pile-discard' },
        h('div', { class: 'discard-stack' },
          under.map((id, i) => cardElement(id, { className: `under under-${under.length - i}` })),
          top
            ? h('button', {
              type: 'button', class: cls('pile-button', canDraw && 'is-live'), testid: 'discard-top',
              disabled: !canDraw, onclick: () => this.draw('discard'), dataset: { card: top },
              'aria-label': `Discard pile, top card ${parseCard(top)?.name || top}${canDraw ? ': take it' : ''}`,
            }, cardElement(top))
            : h('span', { class: 'card-slot', testid: 'discard-empty' }, 'empty')),
        h('span', { class: 'pile-label' }, `Discard${discard.length ? ` · ${discard.length}` : ''}`)),
      this.turnBox(turnName));
  }

  /** Whose turn it is, with the turn clock while a deadline runs. */
  turnBox(turnName) {
    const v = this.view;
    return h('div', { class: 'turn-box' },
      turnName ? h('span', { class: 'turn-name', testid: 'turn-name' }, turnName) : null,
      v.phase === 'playing' && v.turn_deadline
        ? h('div', {
          class: 'clock', testid: 'turn-clock', role: 'timer', dataset: { deadline: v.turn_deadline },
        },
        h('span', { class: 'clock-text' }, ''),
        h('span', { class: 'clock-bar' }, h('span', { class: 'clock-fill' })))
        : null);
  }

  meldsArea() {
    const v = this.view;
    const melds = this.allMelds();
    const target = this.canLayOff();
    const [selectedCard] = [...this.selected];
    const owners = [...new Set(melds.map((m) => m.owner))].sort((a, b) => {
      // Your melds first, then the others in seat order.
      if (a === this.you) return -1;
      if (b === this.you) return 1;
      return a - b;
    });
    return h('section', { class: cls('melds', target && melds.length && 'is-targeting'), testid: 'melds' },
      melds.length
        ? owners.map((owner) => h('div', { class: 'meld-group', dataset: { owner } },
          h('span', { class: 'meld-owner' }, this.nameOf(owner)),
          h('div', { class: 'meld-row' }, melds.filter((m) => m.owner === owner).map((m) => {
            const label = `${m.kind === 'set' ? 'Set' : 'Run'}: ${m.cards.map(cardLabel).join(' ')}`;
            return h(target ? 'button' : 'div', {
              class: cls('meld', target && 'is-target', this.freshMelds.has(String(m.id)) && 'is-fresh'),
              type: target ? 'button' : null,
              testid: `meld-${m.id}`,
              dataset: { meld: m.id, kind: m.kind },
              'aria-label': target ? `${label}. Lay off ${cardLabel(selectedCard)} here` : label,
              title: target ? `Lay off ${cardLabel(selectedCard)} here` : null,
              onclick: target ? () => this.layOff(m.id) : null,
            }, m.cards.map((c) => cardElement(c)));
          }))))
        : h('p', { class: 'melds-empty' }, v.phase === 'playing' ? 'No melds on the table yet.' : ''));
  }

  myArea() {
    const v = this.view;
    const mine = this.seat(this.you) || { seat: this.you, name: this.ctx.identity()?.name };
    const hand = sortCards(Array.isArray(v.hand) ? v.hand : [], this.sortMode);
    const playing = v.phase === 'playing';
    const count = this.selected.size;
    const canMeld = this.myTurn && count >= 3 && v.can_meld !== false && v.step === 'play' && !this.busy;
    const canDiscard = this.myTurn && count === 1 && !this.busy;
    return h('section', { class: cls('me', this.myTurn && 'is-turn') },
      h('div', { class: 'me-head' },
        this.seatChip(mine, { mine: true }),
        h('p', { class: 'status', testid: 'status', 'aria-live': 'polite' }, this.statusText())),
      mine.away && playing ? h('p', { class: 'away-notice', testid: 'away-notice', role: 'status' },
        'Your time ran out, so a bot is playing for you. Make a move on your turn to take your seat back.')
        : null,
      h('div', { class: 'hand', testid: 'hand', role: 'group', 'aria-label': 'Your hand' },
        hand.length ? hand.map((id) => cardElement(id, {
          interactive: true,
          selected: this.selected.has(id),
          testid: `card-${id}`,
          disabled: !playing,
          className: cls(this.newCards.has(id) && 'is-new', this.arriving && this.newCards.has(id) && 'is-arriving',
            v.must_not_discard === id && 'is-locked'),
          title: v.must_not_discard === id
            ? `${parseCard(id)?.name}: taken from the discard pile, it cannot be discarded this turn` : null,
          onClick: () => this.toggle(id),
        })) : h('p', { class: 'muted' }, playing ? '' : 'No cards in hand.')),
      playing ? h('div', { class: 'controls' },
        h('div', { class: 'sort', role: 'group', 'aria-label': 'Sort the hand' },
          h('span', { class: 'small muted' }, 'Sort'),
          h('button', {
            type: 'button', class: 'btn btn-small btn-toggle', testid: 'btn-sort-suit',
            'aria-pressed': this.sortMode === 'suit' ? 'true' : 'false', onclick: () => this.setSort('suit'),
          }, 'Suit'),
          h('button', {
            type: 'button', class: 'btn btn-small btn-toggle', testid: 'btn-sort-rank',
            'aria-pressed': this.sortMode === 'rank' ? 'true' : 'false', onclick: () => this.setSort('rank'),
          }, 'Rank')),
        h('div', { class: 'actions' },
          h('button', {
            type: 'button', class: 'btn btn-primary', testid: 'btn-meld', disabled: !canMeld,
            onclick: () => this.meld(),
          }, count >= 3 ? `Meld ${count}` : 'Meld'),
          h('button', {
            type: 'button', class: 'btn btn-accent', testid: 'btn-discard', disabled: !canDiscard,
            onclick: () => this.discard(),
          }, 'Discard'))) : null,
      playing ? h('p', { class: 'hint', testid: 'hint' }, this.hintText()) : null,
      this.errorLine());
  }

  errorLine() {
    return h('p', {
      class: 'inline-error', testid: 'error', role: 'alert', hidden: !this.error,
    }, this.error || '');
  }

  statusText() {
    const v = this.view;
    if (v.phase === 'playing') {
      if (this.myTurn) return this.myTurnText();
      const seat = this.seat(v.turn);
      if (!seat) return 'Playing…';
      return seat.bot ? `${displayName(seat) || 'The bot'} is thinking…` : `Waiting for ${displayName(seat)}…`;
    }
    if (v.phase === 'deal_over' || v.phase === 'game_over') {
      const r = v.result;
      if (v.phase === 'game_over') return this.gameOverText();
      if (!r) return 'The deal is over.';
      return this.dealOverText(r);
    }
    return '';
  }

  /** The status line on your turn. */
  myTurnText() {
    return this.view.step === 'draw'
      ? 'Your turn: draw from the stock or take the top discard.'
      : 'Your turn: meld or lay off if you can, then discard.';
  }

  gameOverText() {
    return `Game over. ${this.winnersText()}`;
  }

  /** The status line once deal `r` (the view's result) is over. */
  dealOverText(r) {
    if (r.void) return `Deal ${r.deal} is void: nobody scores.`;
    return `${this.nameOf(r.winner)} went out${r.rummy ? ' with rummy' : ''}: +${r.points} points.`;
  }

  hintText() {
    const v = this.view;
    if (!this.myTurn) return this.selected.size ? `${this.selected.size} selected` : '';
    if (v.step === 'draw') return 'Click the stock or the top discard to draw.';
    const n = this.selected.size;
    const melds = this.allMelds().length;
    if (n === 0) return 'Select cards to meld, or one card to lay off or discard.';
    if (n === 1) {
      const [id] = [...this.selected];
      if (id === v.must_not_discard) {
        return `${cardLabel(id)} was just taken from the discard pile: it cannot be discarded this turn.`;
      }
      return melds ? `Discard ${cardLabel(id)}, or click a meld to lay it off.` : `Discard ${cardLabel(id)}?`;
    }
    if (n === 2) return 'A meld needs at least three cards.';
    if (v.can_meld === false) return 'You have already laid down a meld this turn.';
    return `Meld these ${n} cards?`;
  }

  winnersText() {
    return this.winnersSentence();
  }

  /** "You win!", "Ana wins.", "Ana and Budi share the win." */
  winnersSentence({ you = 'You win!', wins = 'wins' } = {}) {
    const winners = this.view.winners || [];
    if (!winners.length) return '';
    const names = winners.map((s) => this.nameOf(s));
    if (winners.length === 1) return winners[0] === this.you ? you : `${names[0]} ${wins}.`;
    return `${names.join(' and ')} share the win.`;
  }

  resultPanel() {
    const v = this.view;
    const r = v.result;
    const seats = this.seatsInOrder();
    const over = v.phase === 'game_over';
    const ranking = [...seats].sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
    return h('section', { class: cls('result', over && 'is-final'), testid: 'result', role: 'status' },
      r ? [
        h('h2', null, r.void ? `Deal ${r.deal}: void` : `Deal ${r.deal}: ${this.nameOf(r.winner)} went out`),
        r.void
          ? h('p', { class: 'muted' }, 'The stock and the discard pile ran out: nobody scores.')
          : h('p', { class: 'result-points' },
            h('span', { testid: 'result-points' }, `+${r.points} points`),
            r.rummy ? h('span', { class: 'badge badge-rummy', testid: 'rummy' }, 'Rummy · doubled') : null),
        h('div', { class: 'result-table-wrap' },
          h('table', { class: 'result-hands' },
            h('thead', null, h('tr', null, h('th', null, 'Player'), h('th', null, 'Cards left'),
              h('th', { class: 'num' }, 'Value'))),
            h('tbody', null, seats.map((s) => {
              const cards = bySeat(r.hands, s.seat) || [];
              const value = bySeat(r.hand_values, s.seat);
              return h('tr', { class: cls(s.seat === r.winner && 'is-winner'), testid: `result-row-${s.seat}` },
                h('td', null, this.nameOf(s.seat)),
                h('td', null, cards.length
                  ? h('span', { class: 'result-cards' }, sortCards(cards, 'suit').map((c) => cardElement(c)))
                  : h('span', { class: 'muted small' }, s.seat === r.winner ? 'out!' : '—')),
                h('td', { class: 'num' }, value ?? '—'));
            }))), tableDealNotes(this))] : null,
      over ? this.gameOverBox(ranking) : this.nextDealBox('Next deal'));
  }

  /** The final standings (highest score first) and the way back to the lobby. */
  gameOverBox(ranking, { markYou = false } = {}) {
    return h('div', { class: 'game-over', testid: 'game-over' },
      h('h3', null, this.winnersText() || 'Game over'),
      h('ol', { class: 'standings' }, ranking.map((s) => h('li', markYou ? { class: cls(s.seat === this.you && 'is-you') } : null,
        h('span', null, this.nameOf(s.seat)), h('strong', null, `${s.score ?? 0}`)))),
      this.lobbyButton());
  }

  lobbyButton() {
    return [h('button', {
      type: 'button', class: 'btn btn-primary', testid: 'btn-lobby', onclick: () => this.ctx.leave(),
    }, 'Back to the lobby'), this.view?.phase === 'game_over' ? replayLink(this.ctx.roomId) : null];
  }

  /** Between deals: an optional note and, for a seated player, the next-deal button. */
  nextDealBox(label, note = '') {
    return h('div', { class: 'result-next' },
      h('span', { class: 'muted', testid: 'next-deal-in' }, note),
      this.seated ? h('button', {
        type: 'button', class: 'btn btn-primary', testid: 'btn-next-deal', disabled: this.busy,
        onclick: () => this.act({ kind: 'next_deal' }),
      }, label) : null);
  }

  scoresPanel() {
    const v = this.view;
    const seats = this.seatsInOrder();
    const results = this.dealResults();
    const target = v.options?.target;
    const deals = v.options?.deals;
    const leader = Math.max(...seats.map((s) => s.score ?? 0));
    return h('section', { class: 'panel scores', testid: 'scores' },
      h('h2', null, 'Scores'),
      h('p', { class: 'muted small' },
        [deals ? `${deals} deal${deals === 1 ? '' : 's'}` : null, target ? `first to ${target}` : null]
          .filter(Boolean).join(' or ') || 'Open-ended match'),
      h('div', { class: 'scores-wrap' },
        h('table', { class: 'score-table' },
          this.scoreHead('Deal', seats),
          h('tbody', null, results.length
            ? results.map((r) => h('tr', { class: cls(r.void && 'is-void') },
              h('th', { scope: 'row' }, r.deal ?? ''),
              seats.map((s) => h('td', { class: 'num' },
                r.void ? '·' : s.seat === r.winner
                  ? h('span', { class: 'won' }, `+${r.points}`, r.rummy ? h('sup', { title: 'Rummy: doubled' }, '×2') : null)
                  : '–'))))
            : this.noScoresRow(seats, 'No deal finished yet.')),
          this.scoreTotals(seats, (s) => (s.score ?? 0) === leader && leader > 0))));
  }

  /** The seats, by seat number. */
  seatsInOrder() {
    return [...(this.view.seats || [])].sort((a, b) => a.seat - b.seat);
  }

  /** The results of the finished deals, oldest first. */
  dealResults() {
    return Array.isArray(this.view.results) ? this.view.results : [];
  }

  /** "Deal 2 of 5" once dealt, else "5 deals" (or "Table"). */
  dealProgress() {
    const v = this.view;
    const deals = v.options?.deals;
    return v.phase !== 'waiting' && v.deal ? `Deal ${v.deal}${deals ? ` of ${deals}` : ''}` : (deals ? plural(deals, 'deal') : 'Table');
  }

  /** The score table's head: `label` over the rows, then a column per seat. */
  scoreHead(label, seats) {
    return h('thead', null, h('tr', null, h('th', { scope: 'col' }, label),
      seats.map((s) => h('th', { scope: 'col', class: 'num', title: s.name || '' },
        s.seat === this.you ? 'You' : this.nameOf(s.seat)))));
  }

  noScoresRow(seats, text) {
    return h('tr', null, h('td', { colspan: seats.length + 1, class: 'muted small' }, text));
  }

  /** The score table's foot: each seat's total, `isLeader(seat)` marking the leaders. */
  scoreTotals(seats, isLeader) {
    return h('tfoot', null, h('tr', null, h('th', { scope: 'row' }, 'Total'),
      seats.map((s) => h('td', {
        class: cls('num', isLeader(s) && 'is-leader'), testid: `total-${s.seat}`,
      }, String(s.score ?? 0)))));
  }

  logPanel() {
    return h('section', { class: 'panel log' },
      h('h2', null, 'Table log'),
      h('ol', { class: 'log-list', testid: 'log', 'aria-live': 'polite' }, this.logItems()));
  }

  logItems() {
    if (!this.events.length) return [h('li', { class: 'muted small' }, 'Moves will appear here.')];
    return this.events.map(({ event }) => h('li', { dataset: { kind: event.kind } }, this.describe(event)));
  }

  describe(ev) {
    const who = this.nameOf(ev.seat);
    switch (ev.kind) {
      case 'joined':
        return `${ev.name || who} joined${ev.role === 'spectator' ? ' to watch' : ''}.`;
      case 'left':
        return `${ev.name || who} left.`;
      case 'bot_added':
        return `${String(ev.name || 'A bot').replace(/\s*\(bot\)$/i, '')} sat down (bot).`;
      case 'reconnected':
        return `${ev.name || who} is back.`;
      case 'disconnected':
        return `${who} lost the connection.`;
      case 'away':
        return ev.seat === this.you
          ? 'You ran out of time: a bot plays for you.'
          : `${who} ran out of time: a bot plays for them.`;
      case 'back':
        return `${who} took the seat back.`;
      case 'started':
        return 'The game has started.';
      case 'deal_started':
        return `Deal ${ev.deal} begins; ${this.nameOf(ev.dealer)} dealt.`;
      case 'drew':
        return ev.from === 'discard'
          ? [`${who} took `, cardText(ev.card), ' from the discard pile.']
          : `${who} drew from the stock.`;
      case 'stock_turned':
        return 'The discard pile was turned over to make a new stock.';
      case 'melded':
        return [`${who} melded `, ...cardList(ev.meld?.cards || ev.cards), '.'];
      case 'laid_off':
        return [`${who} laid off `, cardText(ev.card), '.'];
      case 'discarded':
        return [`${who} discarded `, cardText(ev.card), '.'];
      case 'deal_over':
        return ev.void
          ? `Deal ${ev.deal} is void.`
          : `${this.nameOf(ev.winner)} went out${ev.rummy ? ' with rummy' : ''}: +${ev.points}.`;
      case 'game_over':
        return 'Game over.';
      default:
        return sentence(String(ev.kind || 'update').replace(/_/g, ' '));
    }
  }

  // --- clocks --------------------------------------------------------------------

  updateClocks() {
    const v = this.view;
    if (!v) return;
    const now = this.ctx.serverNow();
    const clock = this.root.querySelector('[data-testid="turn-clock"]');
    if (clock && v.turn_deadline) {
      const deadline = Number(v.turn_deadline);
      if (!this.clockSpan || this.clockSpan.deadline !== deadline) {
        this.clockSpan = { deadline, total: Math.max(1000, deadline - now) };
      }
      const left = deadline - now;
      clock.querySelector('.clock-text').textContent = formatClock(left);
      const fill = clock.querySelector('.clock-fill');
      fill.style.width = `${Math.max(0, Math.min(1, left / this.clockSpan.total)) * 100}%`;
      clock.classList.toggle('is-low', left < 10_000);
      clock.setAttribute('aria-label', `${Math.max(0, Math.ceil(left / 1000))} seconds left`);
    }
    const next = this.root.querySelector('[data-testid="next-deal-in"]');
    if (next) {
      if (v.next_deal_at) {
        const left = Number(v.next_deal_at) - now;
        next.textContent = left > 0 ? `Next deal in ${Math.ceil(left / 1000)} s` : 'Dealing…';
      } else {
        next.textContent = '';
      }
    }
  }
}
