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
import { copyText, formatClock, h, mount, patchInto } from './dom.js';
import { bySeat, cls, fillBar } from './ui.js';
import { replayLink, rulesButton, tableDealNotes } from './help.js';
import { errorText, gameName, has, listText, t, tn } from './i18n.js';
import { TableFeel } from './feel.js';
import { decorateShortcuts } from './keys.js';

// Refusals are put into words by i18n.js (their reason's sentence, else their code's).
export { errorText };

const LOG_LIMIT = 80;
const SORT_KEY = 'kartu.sort';

/** "draw a card first" -> "Draw a card first." */
export function sentence(text) {
  const s = String(text || '').trim();
  if (!s) return '';
  const capital = s[0].toUpperCase() + s.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

/**
 * A button that may be greyed out: when `why` is set it is disabled, says why
 * on hover (title) and, tapped, shows why in the hint line (a disabled button
 * takes no clicks, so the wrapper around it does).
 */
export function whyButton(table, button, why) {
  if (!why) return button;
  button.disabled = true;
  button.title = why;
  button.setAttribute('aria-description', why);
  return h('span', {
    class: 'why-wrap', testid: `${button.dataset.testid || 'btn'}-why`, title: why,
    onclick: () => {
      // Which button it was, not only its words: a change of language says it again.
      table.why = { testid: button.dataset.testid || 'btn', text: why };
      // The dock says the latest answer only (a refusal and a why both would
      // push it over the piles on a short screen).
      table.error = null;
      table.render();
    },
  }, button);
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
// Events about the room, not a move: never marked as a bot's.
const ROOM_EVENTS = new Set([
  'joined', 'left', 'reconnected', 'disconnected', 'bot_added', 'bot_removed', 'away', 'back',
  'started', 'rematch_offered', 'deal_started', 'deal_over', 'game_over', 'stock_turned',
]);

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
    // The room version the table log (the `log` frame) was made at: events up to it are in it.
    this.logVersion = null;
    this.error = null;
    this.why = null;
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
    // Sounds, cards in flight and keyboard shortcuts (feel.js).
    this.feel = new TableFeel(this);
  }

  destroy() {
    this.feel.destroy();
    clearInterval(this.tick);
    clearTimeout(this.leaveTimer);
    clearTimeout(this.copyTimer);
    document.title = t('app.title');
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
    if (previous && (previous.turn !== view.turn || previous.step !== view.step)) this.why = null;
    this.render();
    this.arriving = false;
    this.feel.onUpdate(previous, view);
  }

  onEvent(event, version) {
    if (!event || typeof event !== 'object' || QUIET_EVENTS.has(event.kind)) return;
    if (this.logVersion !== null && typeof version === 'number' && version <= this.logVersion) return;
    this.events.push({ event, at: Date.now(), bot: this.liveBotMark(event) });
    this.showLog();
    this.feel.onEvent(event);
  }

  /**
   * The table log of the current game (sent on every join and reload): the
   * log starts over from its entries, each written as the same lines as the
   * events it caused; a bot's moves are marked.
   */
  loadLog(msg) {
    if (!msg || !Array.isArray(msg.entries)) return;
    this.logVersion = typeof msg.version === 'number' ? msg.version : null;
    const events = [];
    for (const entry of msg.entries) {
      const list = (Array.isArray(entry?.events) ? entry.events : [])
        .filter((ev) => ev && typeof ev === 'object' && !QUIET_EVENTS.has(ev.kind));
      const mark = entry.bot ? this.botMark(entry.seat) : null;
      // The mark goes on the acting seat's own lines (else on the entry's first line).
      const own = list.some((ev) => ev.seat === entry.seat);
      list.forEach((ev, i) => {
        const marked = mark && (own ? ev.seat === entry.seat : i === 0);
        events.push({ event: ev, at: entry.at, bot: marked ? mark : null });
      });
    }
    this.events = events.slice(-LOG_LIMIT);
    this.showLog();
  }

  /** How a bot's move is marked: "bot" on a bot's seat, "standin" for a bot playing for an away player. */
  botMark(seat) {
    const s = this.seat(seat);
    if (!s) return 'bot';
    return s.bot ? 'bot' : 'standin';
  }

  /** A live move's mark: the seat's bot, or a bot standing in for an away player. */
  liveBotMark(event) {
    if (ROOM_EVENTS.has(event.kind) || typeof event.seat !== 'number') return null;
    // A move of ours still on its way is ours, even from a seat marked away:
    // it is the move that takes the seat back.
    if (event.seat === this.you && this.busy) return null;
    const s = this.seat(event.seat);
    if (s?.bot) return 'bot';
    if (s?.away) return 'standin';
    return null;
  }

  showLog() {
    if (this.events.length > LOG_LIMIT) this.events.splice(0, this.events.length - LOG_LIMIT);
    const list = this.root.querySelector('[data-testid="log"]');
    if (list) {
      mount(list, this.logItems());
      list.scrollTop = list.scrollHeight;
    }
  }

  /**
   * Shows a refusal under the hand. `err`: the server's error (its reason and
   * params), a sentence the page wrote, or a function that writes it. It is
   * kept as given and worded at each render, so a change of language rewords it.
   */
  showError(err) {
    this.error = err;
    this.why = null;
    this.render();
  }

  /** The refusal shown, in the page's current language ('' for none). */
  errorMessage() {
    return typeof this.error === 'function' ? this.error() : errorText(this.error);
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

  nameOf(n, { you = t('common.you') } = {}) {
    if (n === null || n === undefined) return t('common.someone');
    if (n === this.you && this.standinVoice) return t('log.standin_for_you');
    if (n === this.you && you) return you;
    return displayName(this.seat(n)) || t('table.seat_n', { n: Number(n) + 1 });
  }

  /** The key of a sentence about `seat`: its ".you" form ("You drew…") when that seat is yours. */
  about(seat, key) {
    // A move the stand-in bot made for us is not ours: "The bot playing for you drew…".
    if (this.standinVoice && seat === this.you) return key;
    return this.seated && seat === this.you && has(`${key}.you`) ? `${key}.you` : key;
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
    return this.view?.game ? gameName(this.view.game) : t('game.rummy');
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
      this.error = err;
      this.why = null;
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
    this.why = null;
    this.render();
  }

  setSort(mode) {
    this.sortMode = mode;
    localStorage.setItem(SORT_KEY, mode);
    this.render();
  }

  async copyInvite() {
    const ok = await copyText(this.ctx.inviteUrl);
    this.copied = ok ? t('table.link_copied') : t('common.copy_failed');
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

  /**
   * Puts the layout into the page in place (`patchInto`): the server's updates
   * arrive all the time, and a button replaced under the pointer would lose
   * the click (and the keyboard focus).
   */
  render() {
    const root = this.root;
    if (!this.view) {
      mount(root, h('div', { class: 'loading', testid: 'table-loading' }, t('table.taking_seat')));
      return;
    }
    const focused = document.activeElement?.dataset?.testid;
    const log = root.querySelector('[data-testid="log"]');
    const stick = !log || log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
    const tree = this.layout();
    this.rewordWhy(tree);
    patchInto(root, tree);
    if (focused && document.activeElement?.dataset?.testid !== focused) {
      const again = root.querySelector(`[data-testid="${CSS.escape(focused)}"]`);
      if (again && !again.disabled) again.focus({ preventScroll: true });
    }
    const newLog = root.querySelector('[data-testid="log"]');
    if (newLog && stick) newLog.scrollTop = newLog.scrollHeight;
    this.updateClocks();
    document.title = this.pageTitle();
  }

  /** The page's title: the game, marked while it is your turn. */
  pageTitle() {
    return this.myTurn
      ? t('table.page_title_turn', { game: this.gameTitle() })
      : t('table.page_title', { game: this.gameTitle() });
  }

  layout() {
    return decorateShortcuts(this.tableLayout());
  }

  tableLayout() {
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
      h('section', { class: 'felt', 'aria-label': t('table.felt') },
        playing ? this.playArea() : this.waitingRoom()),
      h('aside', { class: 'side' },
        playing ? this.scoresPanel() : null,
        this.logPanel(),
        this.ctx.chat?.element ?? null)));
  }

  header() {
    const v = this.view;
    const match = [];
    if (v.options?.deals) match.push(t('table.n_deals', { n: v.options.deals }));
    if (v.options?.target) match.push(t('table.to_points', { n: v.options.target }));
    return h('header', { class: 'table-head' },
      h('div', { class: 'table-title' },
        h('h1', null, this.gameTitle()),
        h('p', { class: 'muted small' },
          v.phase !== 'waiting' && v.deal ? t('table.deal_n', { n: v.deal }) : t('table.table'),
          match.length ? ` · ${match.join(', ')}` : '',
          v.room?.spectators ? ` · ${t('common.watching', { n: v.room.spectators })}` : '')),
      h('span', {
        class: cls('phase-badge', `phase-${v.phase}`), testid: 'phase', dataset: { phase: v.phase },
      }, this.myTurn ? t('table.your_turn') : (has(`phase.${v.phase}`) ? t(`phase.${v.phase}`) : v.phase)),
      h('div', { class: 'head-actions' },
        rulesButton(v.game),
        h('button', {
          type: 'button', class: 'btn btn-small btn-ghost', testid: 'btn-invite',
          onclick: () => this.copyInvite(), title: t('table.invite_title'),
        }, this.copied || t('table.invite')),
        h('button', {
          type: 'button', class: cls('btn btn-small btn-ghost', this.leaveArmed && 'btn-danger'),
          testid: 'btn-leave', onclick: () => this.leave(),
        }, this.leaveArmed ? t('table.leave_confirm') : t('table.leave'))));
  }

  banner() {
    if (this.seated && !this.ctx.notice) return null;
    // Said once: a notice (why you watch) replaces the banner's own words.
    return h('div', { class: 'banner', testid: 'spectator-banner', role: 'status' },
      this.ctx.notice && !this.seated
        ? [h('strong', null, this.ctx.notice), ' ', t('banner.watching_text')]
        : (this.ctx.notice || [h('strong', null, t('banner.watching')), ' ', t('banner.watching_text')]));
  }

  // --- waiting room --------------------------------------------------------------

  waitingRoom() {
    const v = this.view;
    const seats = v.seats || [];
    const free = seats.filter((s) => !s.name).length;
    const owner = this.isOwner();
    const copyLabel = this.copied || t('table.copy');
    return h('div', { class: 'waiting', testid: 'waiting-room' },
      h('h2', null, free
        ? t('table.waiting_players', { taken: seats.length - free, seats: seats.length })
        : t('table.everyone_seated')),
      h('ul', { class: 'seat-list' }, seats.map((s) => h('li', {
        class: cls('seat-slot', s.name ? 'is-taken' : 'is-free', s.seat === this.you && 'is-you'),
        testid: `seat-${s.seat}`,
      },
      h('span', { class: 'avatar', 'aria-hidden': 'true' }, s.name ? initialOf(displayName(s)) : '+'),
      h('span', { class: 'seat-name' }, displayName(s) || t('table.free_seat')),
      s.seat === this.you ? h('span', { class: 'tag' }, t('tag.you')) : null,
      s.bot ? h('span', { class: 'tag tag-bot' }, t('tag.bot')) : null,
      owner && s.bot ? h('button', {
        type: 'button', class: 'btn btn-small btn-ghost seat-remove', testid: `btn-remove-bot-${s.seat}`,
        title: t('table.remove_bot_title', { name: displayName(s) }), disabled: this.busy,
        onclick: () => this.run(() => this.ctx.command('remove_bot', { seat: s.seat })),
      }, t('table.remove_bot')) : null))),
      h('div', { class: 'invite' },
        h('label', { for: 'invite-link', class: 'small' }, t('table.invite_link')),
        h('div', { class: 'row' },
          h('input', {
            id: 'invite-link', type: 'text', readonly: true, value: this.ctx.inviteUrl, testid: 'invite-link',
            onfocus: (e) => e.target.select(),
          }),
          h('button', {
            type: 'button', class: 'btn btn-small', testid: 'btn-copy-invite', onclick: () => this.copyInvite(),
          }, copyLabel))),
      // The host's buttons, and why one was refused, are a dock at the bottom
      // of the screen: on a phone nine seats would push them below it.
      owner
        ? h('div', { class: 'waiting-dock', testid: 'waiting-dock' },
          h('div', { class: 'actions' },
            h('button', {
              type: 'button', class: 'btn', testid: 'btn-add-bot', disabled: !free || this.busy,
              onclick: () => this.run(() => this.ctx.command('add_bot')),
            }, t('table.add_bot')),
            h('button', {
              type: 'button', class: 'btn btn-primary', testid: 'btn-start', disabled: this.busy,
              onclick: () => this.run(() => this.ctx.command('start')),
            }, t('table.start'))),
          this.errorLine())
        : [h('p', { class: 'muted', testid: 'status' },
          this.seated ? t('table.host_starts') : t('table.not_started')), this.errorLine()]);
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
        h('span', { class: 'seat-name-text', title: s.name || null }, displayName(s) || t('table.seat_n', { n: s.seat + 1 })),
        s.seat === this.you ? h('span', { class: 'tag' }, t('tag.you')) : null,
        s.bot ? h('span', { class: 'tag tag-bot' }, t('tag.bot')) : null,
        s.away ? h('span', { class: 'tag tag-away', title: t('tag.away_title') }, t('tag.away')) : null,
        isDealer ? h('span', { class: 'tag tag-dealer', title: t('tag.dealer_title') }, t('tag.dealer')) : null),
      h('span', { class: 'seat-stats' },
        h('span', { testid: `hand-count-${s.seat}` }, t('table.n_cards', { n: s.hand_count ?? 0 })),
        h('span', { class: 'seat-score' }, ' · ',
          h('span', { testid: `score-${s.seat}` }, t('table.n_pts', { n: s.score ?? 0 }))))),
    backs.length ? h('span', { class: 'mini-hand', 'aria-hidden': 'true' }, backs) : null,
    isTurn ? h('span', { class: 'turn-flag' }, mine ? t('table.flag_your_turn') : t('table.flag_to_play')) : null);
  }

  centre() {
    const v = this.view;
    const canDraw = this.myTurn && v.step === 'draw' && !this.busy;
    const discard = Array.isArray(v.discard) ? v.discard : [];
    const top = discard.length ? discard[discard.length - 1] : null;
    const under = discard.slice(-3, -1);
    const stockCount = v.stock_count ?? 0;
    const turnName = this.turnName();
    return h('div', { class: 'centre' },
      h('div', { class: 'pile' },
        h('button', {
          type: 'button', class: cls('pile-button stock', canDraw && 'is-live'), testid: 'stock',
          disabled: !canDraw, onclick: () => this.draw('stock'),
          'aria-label': canDraw ? t('pile.stock_draw', { n: stockCount }) : t('pile.stock_label', { n: stockCount }),
        },
        stockCount ? cardElement(null, { faceDown: true }) : h('span', { class: 'card-slot' }, t('pile.empty')),
        h('span', { class: 'count', testid: 'stock-count' }, String(stockCount))),
        h('span', { class: 'pile-label' }, t('pile.stock'))),
      h('div', { class: 'pile pile-discard' },
        h('div', { class: 'discard-stack' },
          under.map((id, i) => cardElement(id, { className: `under under-${under.length - i}` })),
          top
            ? h('button', {
              type: 'button', class: cls('pile-button', canDraw && 'is-live'), testid: 'discard-top',
              disabled: !canDraw, onclick: () => this.draw('discard'), dataset: { card: top },
              'aria-label': canDraw
                ? t('pile.discard_take', { card: parseCard(top)?.name || top })
                : t('pile.discard_label', { card: parseCard(top)?.name || top }),
            }, cardElement(top))
            : h('span', { class: 'card-slot', testid: 'discard-empty' }, t('pile.empty'))),
        h('span', { class: 'pile-label' }, `${t('pile.discard')}${discard.length ? `\u00a0· ${discard.length}` : ''}`)),
      this.turnBox(turnName));
  }

  /** "Your turn", "Ana's turn" (null when nobody's). */
  turnName() {
    const v = this.view;
    if (v.phase !== 'playing' || v.turn === null || v.turn === undefined) return null;
    return v.turn === this.you ? t('table.your_turn') : t('table.turn_of', { name: this.nameOf(v.turn) });
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
            const label = t(m.kind === 'set' ? 'meld.set_label' : 'meld.run_label', { cards: m.cards.map(cardLabel).join(' ') });
            return h(target ? 'button' : 'div', {
              class: cls('meld', target && 'is-target', this.freshMelds.has(String(m.id)) && 'is-fresh'),
              type: target ? 'button' : null,
              testid: `meld-${m.id}`,
              dataset: { meld: m.id, kind: m.kind },
              'aria-label': target ? `${label}. ${t('meld.lay_off_here', { card: cardLabel(selectedCard) })}` : label,
              title: target ? t('meld.lay_off_here', { card: cardLabel(selectedCard) }) : null,
              onclick: target ? () => this.layOff(m.id) : null,
            }, m.cards.map((c) => cardElement(c)));
          }))))
        : h('p', { class: 'melds-empty' }, v.phase === 'playing' ? t('meld.none_yet') : ''));
  }

  myArea() {
    const v = this.view;
    const mine = this.seat(this.you) || { seat: this.you, name: this.ctx.identity()?.name };
    const hand = sortCards(Array.isArray(v.hand) ? v.hand : [], this.sortMode);
    const playing = v.phase === 'playing';
    const count = this.selected.size;
    const meldWhy = this.meldWhy();
    const discardWhy = this.discardWhy();
    return h('section', { class: cls('me', this.myTurn && 'is-turn') },
      h('div', { class: 'me-head' },
        this.seatChip(mine, { mine: true }),
        h('p', { class: 'status', testid: 'status', 'aria-live': 'polite' }, this.statusText())),
      mine.away && playing ? h('p', { class: 'away-notice', testid: 'away-notice', role: 'status' },
        t('table.away_notice'))
        : null,
      // --n: how many cards, for the fan a narrow screen lays them out in (style.css).
      h('div', {
        class: 'hand', testid: 'hand', role: 'group', 'aria-label': t('table.your_hand'), style: `--n: ${hand.length || 1}`,
      },
        hand.length ? hand.map((id) => cardElement(id, {
          interactive: true,
          selected: this.selected.has(id),
          testid: `card-${id}`,
          disabled: !playing,
          className: cls(this.newCards.has(id) && 'is-new', this.arriving && this.newCards.has(id) && 'is-arriving',
            v.must_not_discard === id && 'is-locked'),
          title: v.must_not_discard === id
            ? t('hand.locked_title', { card: parseCard(id)?.name }) : null,
          onClick: () => this.toggle(id),
        })) : h('p', { class: 'muted' }, playing ? '' : t('hand.empty'))),
      playing ? h('div', { class: 'controls' },
        h('div', { class: 'sort', role: 'group', 'aria-label': t('hand.sort_label') },
          h('span', { class: 'small muted' }, t('hand.sort')),
          h('button', {
            type: 'button', class: 'btn btn-small btn-toggle', testid: 'btn-sort-suit',
            'aria-pressed': this.sortMode === 'suit' ? 'true' : 'false', onclick: () => this.setSort('suit'),
          }, t('hand.sort_suit')),
          h('button', {
            type: 'button', class: 'btn btn-small btn-toggle', testid: 'btn-sort-rank',
            'aria-pressed': this.sortMode === 'rank' ? 'true' : 'false', onclick: () => this.setSort('rank'),
          }, t('hand.sort_rank'))),
        h('div', { class: 'actions' },
          whyButton(this, h('button', {
            type: 'button', class: 'btn btn-primary', testid: 'btn-meld', disabled: !!meldWhy,
            onclick: () => this.meld(),
          }, count >= 3 ? t('btn.meld_n', { n: count }) : t('btn.meld')), meldWhy),
          whyButton(this, h('button', {
            type: 'button', class: 'btn btn-accent', testid: 'btn-discard', disabled: !!discardWhy,
            onclick: () => this.discard(),
          }, t('btn.discard')), discardWhy))) : null,
      playing ? this.hintLine() : null,
      this.overActions(),
      this.errorLine());
  }

  /** At game over, "Play again" in the dock, where a phone shows it without scrolling. */
  overActions() {
    const again = this.rematchButton();
    return again ? h('div', { class: 'controls' }, h('div', { class: 'actions' }, again)) : null;
  }

  errorLine() {
    const text = this.errorMessage();
    return h('p', {
      class: 'inline-error', testid: 'error', role: 'alert', hidden: !text,
    }, text);
  }

  /**
   * The why shown in the hint, as its button says it now: the button's title
   * is worded at each render (the hint line may be drawn before a table
   * adjusts its buttons), so a change of language rewords the hint too.
   */
  rewordWhy(tree) {
    if (!this.why) return;
    const wrap = tree.querySelector(`[data-testid="${CSS.escape(this.why.testid)}-why"]`);
    if (!wrap?.title) return;
    this.why.text = wrap.title;
    const hint = tree.querySelector('[data-testid="hint"].is-why');
    if (hint) hint.textContent = wrap.title;
  }

  /**
   * Why Meld can't be pressed now (null: it can). Only for moves that are
   * always refused now: not your turn, not drawn yet, too few cards.
   */
  meldWhy() {
    const v = this.view;
    const count = this.selected.size;
    if (this.busy) return t('why.busy');
    if (!this.myTurn) return t('why.not_your_turn');
    if (v.step === 'draw') return t('why.meld_draw_first');
    if (v.can_meld === false) return t('why.one_meld_per_turn');
    if (count < 3) return t('why.meld_three');
    return null;
  }

  /** Why Discard can't be pressed now (null: it can). */
  discardWhy() {
    const v = this.view;
    const [id] = [...this.selected];
    if (this.busy) return t('why.busy');
    if (!this.myTurn) return t('why.not_your_turn');
    if (v.step === 'draw') return t('why.discard_draw_first');
    if (this.selected.size !== 1) return t('why.discard_one');
    if (id === v.must_not_discard) return t('why.discard_just_taken', { card: cardLabel(id) });
    return null;
  }

  statusText() {
    const v = this.view;
    if (v.phase === 'playing') {
      if (this.myTurn) return this.myTurnText();
      const seat = this.seat(v.turn);
      if (!seat) return t('status.playing');
      return this.waitingFor(seat);
    }
    if (v.phase === 'deal_over' || v.phase === 'game_over') {
      const r = v.result;
      if (v.phase === 'game_over') return this.gameOverText();
      if (!r) return t('status.deal_over');
      return this.dealOverText(r);
    }
    return '';
  }

  /** While someone else plays: "Waiting for Ana…", a bot thinking, or a bot standing in for an away player. */
  waitingFor(seat) {
    const name = displayName(seat);
    if (seat.bot) return t('status.bot_thinking', { name: name || t('tag.bot') });
    if (seat.away) return t('status.bot_standing_in', { name });
    return t('status.waiting_for', { name });
  }

  /** The status line on your turn. */
  myTurnText() {
    return this.view.step === 'draw' ? t('br.turn_draw') : t('br.turn_play');
  }

  gameOverText() {
    return `${t('status.game_over')} ${this.winnersText()}`;
  }

  /** The status line once deal `r` (the view's result) is over. */
  dealOverText(r) {
    if (r.void) return t('br.deal_void', { n: r.deal });
    return t(this.about(r.winner, r.rummy ? 'br.went_out_rummy' : 'br.went_out'), { name: this.nameOf(r.winner), points: r.points });
  }

  /** Under the buttons: why a move is refused, else what the cards chosen would do. */
  hintLine() {
    return h('p', {
      class: cls('hint', this.why && 'is-why', !this.why && this.hintIsIdle() && 'is-idle'), testid: 'hint',
    }, this.why?.text || this.hintText());
  }

  /**
   * Whether the hint is only guidance (nothing chosen yet, nothing to warn
   * of): the status line already says what to do, so a very short screen
   * leaves the hint out (style.css). It adds to the status, never repeats it.
   */
  hintIsIdle() {
    return this.selected.size === 0;
  }

  hintText() {
    const v = this.view;
    if (!this.myTurn) return this.selected.size ? t('hint.n_selected', { n: this.selected.size }) : '';
    if (v.step === 'draw') return this.drawHint();
    const n = this.selected.size;
    const melds = this.allMelds().length;
    if (n === 0) return t('br.hint_select');
    if (n === 1) {
      const [id] = [...this.selected];
      if (id === v.must_not_discard) return t('why.discard_just_taken', { card: cardLabel(id) });
      return melds ? t('br.hint_discard_or_lay_off', { card: cardLabel(id) }) : t('hint.discard_q', { card: cardLabel(id) });
    }
    if (n === 2) return t('why.meld_three');
    if (v.can_meld === false) return t('why.one_meld_per_turn');
    return t('hint.meld_n_q', { n });
  }

  /** The hint while you are to draw: how, and what this game's rules make of a take. */
  drawHint() {
    return t('br.hint_draw');
  }

  winnersText() {
    return this.winnersSentence();
  }

  /** "You win!", "Ana wins.", "Ana and Budi share the win." */
  winnersSentence({ you = t('win.you'), wins = 'win.one' } = {}) {
    const winners = this.view.winners || [];
    if (!winners.length) return '';
    const names = winners.map((s) => this.nameOf(s));
    if (winners.length === 1) return winners[0] === this.you ? you : t(wins, { name: names[0] });
    return t('win.shared', { names: listText(names) });
  }

  resultPanel() {
    const v = this.view;
    const r = v.result;
    const seats = this.seatsInOrder();
    const over = v.phase === 'game_over';
    const ranking = [...seats].sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
    return h('section', { class: cls('result', over && 'is-final'), testid: 'result', role: 'status' },
      r ? [
        h('h2', null, r.void ? t('br.result_void_title', { n: r.deal })
          : t(this.about(r.winner, 'result.went_out_title'), { n: r.deal, name: this.nameOf(r.winner) })),
        // What the points are made of is said once, in the deal's notes below.
        r.void ? null : h('p', { class: 'result-points' },
          h('span', { testid: 'result-points' }, t('result.plus_points', { n: r.points })),
          r.rummy ? h('span', { class: 'badge badge-rummy', testid: 'rummy' }, t('br.rummy_doubled')) : null),
        h('div', { class: 'result-table-wrap' },
          h('table', { class: 'result-hands' },
            h('thead', null, h('tr', null, h('th', null, t('col.player')), h('th', null, t('col.cards_left')),
              h('th', { class: 'num' }, t('col.value')))),
            h('tbody', null, seats.map((s) => {
              const cards = bySeat(r.hands, s.seat) || [];
              const value = bySeat(r.hand_values, s.seat);
              return h('tr', { class: cls(s.seat === r.winner && 'is-winner'), testid: `result-row-${s.seat}` },
                h('td', null, this.nameOf(s.seat)),
                h('td', null, cards.length
                  ? h('span', { class: 'result-cards' }, sortCards(cards, 'suit').map((c) => cardElement(c)))
                  : h('span', { class: 'muted small' }, s.seat === r.winner ? t('result.out') : '—')),
                h('td', { class: 'num' }, value ?? '—'));
            }))), tableDealNotes(this))] : null,
      over ? this.gameOverBox(ranking) : this.nextDealBox(t('btn.next_deal')));
  }

  /** The final standings (highest score first) and the way back to the lobby. */
  gameOverBox(ranking, { markYou = false } = {}) {
    return h('div', { class: 'game-over', testid: 'game-over' },
      h('h3', null, this.winnersText() || t('phase.game_over')),
      h('ol', { class: 'standings' }, ranking.map((s) => h('li', markYou ? { class: cls(s.seat === this.you && 'is-you') } : null,
        h('span', null, this.nameOf(s.seat)), h('strong', null, `${s.score ?? 0}`)))),
      this.lobbyButton());
  }

  lobbyButton() {
    return [h('button', {
      type: 'button', class: 'btn btn-primary', testid: 'btn-lobby', onclick: () => this.ctx.leave(),
    }, t('common.back_to_lobby')), this.view?.phase === 'game_over' ? replayLink(this.ctx.roomId) : null];
  }

  /**
   * "Play again", for a seated player once the game is over: the room deals
   * the next game at once for the whole table. Daily (private) rooms play once.
   */
  rematchButton() {
    const v = this.view;
    if (v?.phase !== 'game_over' || !this.seated || v.room?.private) return null;
    return h('button', {
      type: 'button', class: 'btn btn-accent', testid: 'btn-rematch', disabled: this.busy,
      onclick: () => this.run(() => this.ctx.command('rematch')),
    }, t('btn.rematch'));
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
      h('h2', null, t('scores.title')),
      h('p', { class: 'muted small' }, this.matchLength(deals, target, 'scores.open_match')),
      h('div', { class: 'scores-wrap' },
        h('table', { class: 'score-table' },
          this.scoreHead(t('col.deal'), seats),
          h('tbody', null, results.length
            ? results.map((r) => h('tr', { class: cls(r.void && 'is-void') },
              h('th', { scope: 'row' }, r.deal ?? ''),
              seats.map((s) => h('td', { class: 'num' },
                r.void ? '·' : s.seat === r.winner
                  ? h('span', { class: 'won' }, `+${r.points}`, r.rummy ? h('sup', { title: t('br.rummy_doubled_title') }, '×2') : null)
                  : '–'))))
            : this.noScoresRow(seats, t('scores.none_yet'))),
          this.scoreTotals(seats, (s) => (s.score ?? 0) === leader && leader > 0))));
  }

  /** "3 deals or first to 100", "Open-ended match". */
  matchLength(deals, target, none) {
    if (deals && target) return t('scores.deals_or_target', { n: deals, target });
    if (deals) return t('table.n_deals', { n: deals });
    if (target) return t('scores.first_to', { target });
    return t(none);
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
    if (v.phase !== 'waiting' && v.deal) return deals ? t('table.deal_n_of', { n: v.deal, total: deals }) : t('table.deal_n', { n: v.deal });
    return deals ? t('table.n_deals', { n: deals }) : t('table.table');
  }

  /** The score table's head: `label` over the rows, then a column per seat. */
  scoreHead(label, seats) {
    return h('thead', null, h('tr', null, h('th', { scope: 'col' }, label),
      seats.map((s) => h('th', { scope: 'col', class: 'num', title: s.name || '' },
        s.seat === this.you ? t('common.you') : this.nameOf(s.seat)))));
  }

  noScoresRow(seats, text) {
    return h('tr', null, h('td', { colspan: seats.length + 1, class: 'muted small' }, text));
  }

  /** The score table's foot: each seat's total, `isLeader(seat)` marking the leaders. */
  scoreTotals(seats, isLeader) {
    return h('tfoot', null, h('tr', null, h('th', { scope: 'row' }, t('col.total')),
      seats.map((s) => h('td', {
        class: cls('num', isLeader(s) && 'is-leader'), testid: `total-${s.seat}`,
      }, String(s.score ?? 0)))));
  }

  logPanel() {
    return h('section', { class: 'panel log' },
      h('h2', null, t('log.title')),
      h('ol', { class: 'log-list', testid: 'log', 'aria-live': 'polite' }, this.logItems()));
  }

  logItems() {
    if (!this.events.length) return [h('li', { class: 'muted small' }, t('log.empty'))];
    return this.events.map(({ event, bot }) => {
      // Our own seat's moves made by the stand-in bot say so in the sentence itself.
      const forYou = bot === 'standin' && this.seated && event.seat === this.you;
      return h('li', { dataset: { kind: event.kind, bot: bot || null } },
        forYou ? this.standinLine(event) : this.describe(event),
        bot && !forYou ? h('span', { class: 'log-bot muted' }, ' ', t(bot === 'bot' ? 'log.by_bot' : 'log.by_bot_standing_in')) : null);
    });
  }

  /** `event` told as the bot standing in for us made it: "The bot playing for you drew…". */
  standinLine(event) {
    this.standinVoice = true;
    try {
      const line = this.describe(event);
      const parts = Array.isArray(line) ? [...line] : [line];
      // The name may open the sentence: it then starts with a capital.
      if (typeof parts[0] === 'string') parts[0] = parts[0].charAt(0).toLocaleUpperCase() + parts[0].slice(1);
      return parts;
    } finally {
      this.standinVoice = false;
    }
  }

  describe(ev) {
    const who = this.nameOf(ev.seat);
    switch (ev.kind) {
      case 'joined':
        return t(ev.role === 'spectator' ? 'log.joined_watch' : 'log.joined', { name: ev.name || who });
      case 'left':
        return t('log.left', { name: ev.name || who });
      case 'bot_added':
        return t('log.bot_added', { name: String(ev.name || t('tag.bot')).replace(/\s*\(bot\)$/i, '') });
      case 'bot_removed':
        return t('log.bot_removed', { n: Number(ev.seat) + 1 });
      case 'rematch_offered':
        return t(this.about(ev.by, 'log.rematch_offered'), { name: ev.name || this.nameOf(ev.by) });
      case 'reconnected':
        return t('log.reconnected', { name: ev.name || who });
      case 'disconnected':
        return t(this.about(ev.seat, 'log.disconnected'), { name: who });
      case 'away':
        return ev.seat === this.you ? t('log.away_you') : t('log.away', { name: who });
      case 'back':
        return t(this.about(ev.seat, 'log.back'), { name: who });
      case 'started':
        return t('log.started');
      case 'deal_started':
        return t(this.about(ev.dealer, 'log.deal_started'), { n: ev.deal, dealer: this.nameOf(ev.dealer) });
      case 'drew':
        return ev.from === 'discard'
          ? tn(this.about(ev.seat, 'log.took_discard'), { name: who, card: cardText(ev.card) })
          : t(this.about(ev.seat, 'log.drew_stock'), { name: who });
      case 'stock_turned':
        return t('log.stock_turned');
      case 'melded':
        return tn(this.about(ev.seat, 'log.melded'), { name: who, cards: cardList(ev.meld?.cards || ev.cards) });
      case 'laid_off':
        return tn(this.about(ev.seat, 'log.laid_off'), { name: who, card: cardText(ev.card) });
      case 'discarded':
        return tn(this.about(ev.seat, 'log.discarded'), { name: who, card: cardText(ev.card) });
      case 'deal_over':
        return ev.void
          ? t('log.deal_void', { n: ev.deal })
          : t(this.about(ev.winner, ev.rummy ? 'log.went_out_rummy' : 'log.went_out'), { name: this.nameOf(ev.winner), points: ev.points });
      case 'game_over':
        return t('log.game_over');
      default:
        return has(`log.kind.${ev.kind}`) ? t(`log.kind.${ev.kind}`) : t('log.update');
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
      fillBar(clock.querySelector('.clock-fill'), left / this.clockSpan.total);
      clock.classList.toggle('is-low', left < 10_000);
      clock.setAttribute('aria-label', t('clock.seconds_left', { n: Math.max(0, Math.ceil(left / 1000)) }));
    }
    const next = this.root.querySelector('[data-testid="next-deal-in"]');
    if (next) {
      if (v.next_deal_at) {
        const left = Number(v.next_deal_at) - now;
        next.textContent = left > 0 ? t('clock.next_deal_in', { n: Math.ceil(left / 1000) }) : t('clock.dealing');
      } else {
        next.textContent = '';
      }
    }
  }
}
