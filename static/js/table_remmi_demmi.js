// The Remmi Demmi table: a real-time trading game (rules RD-n).
//
// Terms: a card has a colour (orange O, purple P, green G), a figure
// (running R, jumping J, lying L) and a copy number: `OR3`. A *Demmi* is one
// or more cards all of one colour or all of one figure; a *Remmi* is nine
// cards of one colour showing at most two figures, or of one figure showing
// at most two colours. While the *timer* runs, everybody trades at once: an
// *offer* puts k of your cards up (everyone sees only its size and target);
// two offers of the same size match and swap at once. Whoever received cards
// that are not a Demmi may *return* the trade (or *keep* it) during a short
// window. A *claim* ("Remmi-Demmi!") lays nine cards face down and takes the
// highest *point man* left (4, 3, 2); the round's *check* reveals the claims
// and scores them. In the *frantic* variant the hand stays face down until
// the dealer's signal; a *peek* costs a point.

import { BasicRummyTable } from './table_basic_rummy.js';
import { cardShell, installSprite, sortByKey, symbolsMarkup } from './cards.js';
import { esc, formatClock, h } from './dom.js';
import { cls, fillBar, signed } from './ui.js';
import { rdReasonText, tableDealNotes } from './help.js';
import { has, t } from './i18n.js';
import { whyButton } from './table_basic_rummy.js';

// Names in the player's language: `rd.colour.<O|P|G>`, `rd.figure.<R|J|L>`.
export const COLOURS = {
  O: { fill: '#ef7d1a', deep: '#a94e05' },
  P: { fill: '#8a48b8', deep: '#55206f' },
  G: { fill: '#2f9b58', deep: '#146233' },
};
export const FIGURES = { R: {}, J: {}, L: {} };
const colourName = (c) => t(`rd.colour.${c}`);
const figureName = (f) => t(`rd.figure.${f}`);

// The server's reasons (penalties, withdrawn offers) in words.
const reasonText = rdReasonText;
const COLOUR_ORDER = 'OPG';
const FIGURE_ORDER = 'RJL';
const SPEED_MS = { snail: 120_000, lightning: 70_000 };
const REMMI_SIZE = 9;
const GROUP_KEY = 'kartu.rd.group';

// --- cards ---------------------------------------------------------------------------

/** {id, colour, figure, copy, name} or null. */
export function parseRdCard(id) {
  if (typeof id !== 'string' || id.length < 3) return null;
  const colour = COLOURS[id[0]];
  const figure = FIGURES[id[1]];
  if (!colour || !figure) return null;
  return {
    id, colour: id[0], figure: id[1], copy: id.slice(2),
    name: t('rd.card_name', { colour: colourName(id[0]), figure: figureName(id[1]) }),
  };
}

// Stick figures, drawn in a 100x100 box with round strokes.
// The head is filled with currentColor, the limbs use the inherited stroke.
const HEAD = 'fill="currentColor"';
const GROUND = 'stroke-width="3" opacity=".65"';
const FIGURE_PATHS = {
  R: `<circle cx="60" cy="20" r="9" ${HEAD}/>`
    + '<path fill="none" d="M56 31 44 60M53 38 66 50 76 42M53 38 38 46 30 40M44 60 60 72 58 90M44 60 32 78 16 78"/>',
  J: `<circle cx="50" cy="16" r="9" ${HEAD}/>`
    + '<path fill="none" d="M50 27v30M50 34 32 16M50 34 68 16M50 57 36 68 44 80M50 57 64 68 56 80"/>'
    + `<path fill="none" ${GROUND} d="M24 95h52"/>`,
  L: `<circle cx="14" cy="62" r="9" ${HEAD}/>`
    + '<path fill="none" d="M25 66h38M34 66 44 56 56 60M63 66 80 58 92 62M63 66 82 72 94 70"/>'
    + `<path fill="none" ${GROUND} d="M6 82h88"/>`,
};

/** Puts the three figures into the page once (shared by every card). */
export function installRdSprite() {
  installSprite('kartu-rd-sprite', symbolsMarkup(FIGURE_PATHS, 'rd-fig-'));
}

function rdFaceSvg(card) {
  const c = COLOURS[card.colour];
  return `<svg class="card-svg" viewBox="0 0 100 140" aria-hidden="true" focusable="false">
    <rect x="1" y="1" width="98" height="138" rx="9" fill="${c.fill}" stroke="${c.deep}" stroke-width="2"/>
    <rect x="7" y="7" width="86" height="126" rx="6" fill="none" stroke="rgba(255,255,255,.45)" stroke-width="1.5"/>
    <g class="rd-ink">
      <use href="#rd-fig-${card.figure}" x="14" y="30" width="72" height="72"/>
      <use href="#rd-fig-${card.figure}" x="9" y="9" width="22" height="22" class="rd-corner"/>
      <use href="#rd-fig-${card.figure}" x="69" y="109" width="22" height="22" class="rd-corner"
        transform="rotate(180 80 120)"/>
    </g>
    <text x="91" y="24" text-anchor="end" class="rd-copy">${esc(card.copy)}</text>
  </svg>`;
}

function rdBackSvg() {
  return `<svg class="card-svg" viewBox="0 0 100 140" aria-hidden="true" focusable="false">
    <rect x="1" y="1" width="98" height="138" rx="9" class="card-bg"/>
    <rect x="8" y="8" width="84" height="124" rx="5" class="rd-back"/>
    <circle cx="36" cy="56" r="12" fill="${COLOURS.O.fill}"/>
    <circle cx="64" cy="56" r="12" fill="${COLOURS.P.fill}"/>
    <circle cx="50" cy="80" r="12" fill="${COLOURS.G.fill}"/>
  </svg>`;
}

/** A Remmi Demmi card element (`interactive`: a toggle button). */
export function rdCardElement(id, {
  interactive = false, selected = false, faceDown = false, testid = null, className = '',
  onClick = null, disabled = false, title = null,
} = {}) {
  const card = faceDown ? null : parseRdCard(id);
  const label = title || (card ? `${card.name} (${card.copy})` : t('card.face_down'));
  const el = cardShell({ interactive, selected, disabled, testid, onClick, label });
  el.className = cls('card', 'rd-card', faceDown && 'is-back', card && `rd-${card.colour}`,
    selected && 'is-selected', className);
  if (card) {
    el.dataset.card = card.id;
    el.dataset.colour = card.colour;
    el.dataset.figure = card.figure;
  }
  el.title = label;
  el.innerHTML = card ? rdFaceSvg(card) : rdBackSvg();
  return el;
}

const ICONS = {
  snail: '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" '
    + 'stroke-linejoin="round"><path d="M2 19h14a5 5 0 0 0 5-5V9"/><circle cx="11" cy="12" r="5"/>'
    + '<path d="M11 12a1.6 1.6 0 1 1 1.6 1.6"/><path d="M21 9l-1.5-4M21 9l1.5-4"/></svg>',
  lightning: '<svg viewBox="0 0 24 24"><path d="M13.5 2 4 14h7l-1.5 8L19 10h-7z" fill="currentColor"/></svg>',
};

/** A small inline icon ("snail", "lightning"), drawn so that no emoji font is needed. */
function icon(name) {
  const el = document.createElement('span');
  el.className = `icon icon-${name}`;
  el.setAttribute('aria-hidden', 'true');
  el.innerHTML = ICONS[name];
  return el;
}

// --- rules the page checks for hints (the server decides) ----------------------------------

export function isDemmi(cards) {
  if (!cards.length) return false;
  return new Set(cards.map((c) => c[0])).size === 1 || new Set(cards.map((c) => c[1])).size === 1;
}

export function isRemmi(cards) {
  if (cards.length !== REMMI_SIZE) return false;
  const colours = new Set(cards.map((c) => c[0])).size;
  const figures = new Set(cards.map((c) => c[1])).size;
  return (colours === 1 && figures <= 2) || (figures === 1 && colours <= 2);
}

/** Nine cards of `hand` making a Remmi, or null. */
export function findRemmi(hand) {
  if (hand.length < REMMI_SIZE) return null;
  if (hand.length === REMMI_SIZE) return isRemmi(hand) ? [...hand] : null;
  // Hands hold at most ten cards (four players): leave each one out in turn.
  for (let skip = 0; skip < hand.length && hand.length === REMMI_SIZE + 1; skip += 1) {
    const nine = hand.filter((_, i) => i !== skip);
    if (isRemmi(nine)) return nine;
  }
  return null;
}

function sortRd(cards, mode) {
  const key = (id) => (mode === 'figure'
    ? [FIGURE_ORDER.indexOf(id[1]), COLOUR_ORDER.indexOf(id[0]), id.slice(2)]
    : [COLOUR_ORDER.indexOf(id[0]), FIGURE_ORDER.indexOf(id[1]), id.slice(2)]);
  return sortByKey(cards, key);
}

// --- the table -------------------------------------------------------------------------

export class RemmiDemmiTable extends BasicRummyTable {
  constructor(root, ctx) {
    super(root, ctx);
    installRdSprite();
    this.groupMode = localStorage.getItem(GROUP_KEY) === 'figure' ? 'figure' : 'colour';
    this.target = null;
    this.claimArmed = false;
    this.timerSpan = null;
    clearInterval(this.tick);
    // The countdown bar moves smoothly: a short tick, the bar's CSS does the rest.
    this.tick = setInterval(() => this.updateClocks(), 200);
    this.onResize = () => this.fitGroupLabels();
    window.addEventListener('resize', this.onResize);
  }

  destroy() {
    clearTimeout(this.claimTimer);
    window.removeEventListener('resize', this.onResize);
    super.destroy();
  }

  render() {
    super.render();
    this.fitGroupLabels();
  }

  /**
   * A group's label is as wide as its cards: where its name would be cut
   * (a lone card's group, on any screen), the group shows its colour's dot or
   * its figure's drawing instead, and the name stays for screen readers.
   */
  fitGroupLabels() {
    // Every name shown, then all measured at once: one layout, not one per group.
    const groups = [...this.root.querySelectorAll('.rd-hand .rd-group')];
    for (const group of groups) group.classList.remove('is-cramped');
    const cramped = groups.filter((group) => {
      const name = group.querySelector('.rd-group-name');
      return name && name.scrollWidth > name.clientWidth;
    });
    for (const group of cramped) group.classList.add('is-cramped');
  }

  update(view, version) {
    const previous = this.view;
    if (previous && (previous.deal !== view.deal || view.phase !== 'playing')) {
      this.claimArmed = false;
    }
    super.update(view, version);
  }

  // --- helpers over the view -------------------------------------------------------------

  get trading() {
    const v = this.view;
    return v?.phase === 'playing' && v.stage === 'trading';
  }

  get claimed() {
    const me = this.seat(this.you);
    return !!me && me.claimed !== null && me.claimed !== undefined;
  }

  get hand() {
    return Array.isArray(this.view?.hand) ? this.view.hand : [];
  }

  get locked() {
    return new Set(this.view?.locked || []);
  }

  get offered() {
    return new Set(this.view?.my_offer?.cards || []);
  }

  speedMs(speed) {
    const v = this.view;
    return v.timer_s ? v.timer_s * 1000 : SPEED_MS[speed] || SPEED_MS.snail;
  }

  // --- actions -----------------------------------------------------------------------------

  offer(to = this.target) {
    const cards = this.hand.filter((id) => this.selected.has(id));
    this.act({ kind: 'offer', cards, to: to ?? null }, { clearSelection: true });
  }

  claim() {
    const hand = this.hand;
    if (!this.claimArmed) {
      let cards = null;
      if (hand.length === REMMI_SIZE) cards = [...hand];
      else if (this.selected.size === REMMI_SIZE) cards = hand.filter((c) => this.selected.has(c));
      else cards = findRemmi(hand) || sortRd(hand, this.groupMode).slice(0, REMMI_SIZE);
      this.selected = new Set(cards);
      this.claimArmed = true;
      clearTimeout(this.claimTimer);
      this.claimTimer = setTimeout(() => {
        this.claimArmed = false;
        this.render();
      }, 8000);
      this.render();
      return;
    }
    clearTimeout(this.claimTimer);
    this.claimArmed = false;
    const cards = this.selected.size === REMMI_SIZE
      ? hand.filter((c) => this.selected.has(c))
      : (hand.length === REMMI_SIZE ? [...hand] : null);
    if (!cards) {
      this.showError(() => t('rd.choose_nine', { n: REMMI_SIZE }));
      return;
    }
    this.act({ kind: 'claim', cards }, { clearSelection: true });
  }

  setGroup(mode) {
    this.groupMode = mode;
    localStorage.setItem(GROUP_KEY, mode);
    this.render();
  }

  // --- rendering -----------------------------------------------------------------------------

  /** The page's title: the game, marked while you may trade. */
  pageTitle() {
    return this.trading && !this.claimed && this.seated
      ? t('rd.page_title_trading', { game: this.gameTitle() }) : t('table.page_title', { game: this.gameTitle() });
  }

  header() {
    const head = super.header();
    const v = this.view;
    const line = head.querySelector('.table-title p');
    if (line) {
      const bits = [];
      const rounds = v.rounds ?? 7;
      // Past the last round, rounds are played only to break a tie for the lead (RD-18).
      if (v.phase === 'waiting' || !v.deal) bits.push(t('table.table'));
      else if (v.deal > rounds) bits.push(t('rd.tie_round_n', { n: v.deal - rounds }));
      else bits.push(t('rd.round_n_of', { n: v.deal, total: rounds }));
      if (v.frantic) bits.push(t('rd.frantic'));
      if (v.room?.spectators) bits.push(t('common.watching', { n: v.room.spectators }));
      line.textContent = bits.join(' · ');
    }
    const badge = head.querySelector('[data-testid="phase"]');
    if (badge && v.phase === 'playing') badge.textContent = v.stage === 'trading' ? t('rd.trading') : t('rd.dealt');
    if (badge && v.phase === 'deal_over') badge.textContent = t('rd.round_over');
    return head;
  }

  playArea() {
    const v = this.view;
    const over = v.phase === 'deal_over' || v.phase === 'game_over';
    return [
      h('div', { class: 'opponents' }, this.opponentSeats().map((s) => this.seatChip(s))),
      this.timerBox(),
      over ? this.resultPanel() : null,
      h('div', { class: 'rd-board' },
        this.pointMen(),
        this.offersBoard()),
      // The trading floor reads top to bottom: timer, offers, your hand and
      // buttons; your past trades fold away below, never between offers and hand.
      this.seated ? this.myArea() : h('section', { class: 'me is-spectator' },
        h('p', { class: 'status', testid: 'status', 'aria-live': 'polite' }, this.statusText()),
        this.errorLine()),
      this.seated ? this.tradesPanel() : null,
    ];
  }

  seatChip(s, options = {}) {
    const chip = super.seatChip(s, options);
    const v = this.view;
    const stats = chip.querySelector('.seat-stats');
    // A claim or an offer follows the card count; a phone's narrow chip shows it
    // instead of the count (while trading every hand holds the same: nine, ten at four).
    const tag = (cls_, testid, text) => {
      chip.classList.add('has-tag');
      stats?.append(h('span', { class: 'rd-seat-tag' }, h('span', { class: 'rd-tag-sep' }, ' · '),
        h('span', { class: cls_, testid }, text)));
    };
    if (s.claimed !== null && s.claimed !== undefined) {
      chip.classList.add('has-claimed');
      tag('rd-claim-tag', `claimed-${s.seat}`, `${t('rd.claim_call')} ★${s.claimed}`);
    } else if (s.offer) {
      const to = s.offer_to === null || s.offer_to === undefined ? '' : ` → ${this.nameOf(s.offer_to)}`;
      tag('rd-offer-tag', `seat-offer-${s.seat}`, `${t('rd.offers_n', { n: s.offer })}${to}`);
    }
    if (v.frantic && s.peeked) stats?.append(' · ', h('span', { class: 'muted' }, t('rd.peeked_tag')));
    // Nobody takes turns here: the "to play" flag never applies.
    chip.querySelector('.turn-flag')?.remove();
    return chip;
  }

  timerBox() {
    const v = this.view;
    const isDealer = this.seated && v.dealer === this.you;
    if (v.phase !== 'playing') {
      return h('section', { class: 'rd-timer is-stopped', testid: 'rd-timer', dataset: { stage: 'over' } },
        h('div', { class: 'rd-timer-row' },
          h('span', { class: 'rd-timer-label' }, v.phase === 'game_over' ? t('phase.game_over') : t('rd.round_over')),
          h('span', { class: 'rd-timer-text', testid: 'rd-timer-text' }, '0:00')),
        h('div', { class: 'rd-bar' }, h('span', { class: 'rd-bar-fill', style: 'transform:scaleX(0)' })));
    }
    if (v.stage === 'dealt') {
      const speeds = ['snail', 'lightning'];
      return h('section', { class: 'rd-timer is-waiting', testid: 'rd-timer', dataset: { stage: 'dealt' } },
        h('div', { class: 'rd-timer-row' },
          h('span', { class: 'rd-timer-label' },
            isDealer ? t('rd.you_deal') : this.waitingDealer()),
          h('span', { class: 'muted small', testid: 'auto-start' }, '')),
        isDealer ? h('div', { class: 'rd-start' },
          v.frantic && !v.revealed ? h('button', {
            type: 'button', class: 'btn', testid: 'btn-reveal', disabled: this.busy,
            onclick: () => this.act({ kind: 'reveal' }),
          }, t('rd.reveal')) : null,
          speeds.map((speed) => h('button', {
            type: 'button', class: cls('btn', speed === v.speed ? 'btn-primary' : ''),
            testid: `btn-start-${speed}`, disabled: this.busy,
            onclick: () => this.act({ kind: 'start_timer', speed }),
          }, icon(speed), speed === 'snail' ? t('rd.snail') : t('rd.lightning'),
          h('small', { class: 'rd-speed-len' }, formatClock(this.speedMs(speed)))))) : null,
        h('div', { class: 'rd-bar' }, h('span', { class: 'rd-bar-fill' })));
    }
    return h('section', {
      class: 'rd-timer is-running', testid: 'rd-timer', role: 'timer',
      dataset: { stage: 'trading', deadline: v.deadline ?? '' },
    },
    h('div', { class: 'rd-timer-row' },
      this.timerLabel(),
      h('span', { class: 'rd-timer-text', testid: 'rd-timer-text' }, '')),
    h('div', { class: 'rd-bar' }, h('span', { class: 'rd-bar-fill' })));
  }

  /** "Trading · snail", "Trading · lightning", or a custom length: "Trading · 40 s". */
  timerLabel() {
    const v = this.view;
    const total = v.timer_s ? v.timer_s * 1000 : SPEED_MS[v.speed] || SPEED_MS.snail;
    const speed = Object.keys(SPEED_MS).find((k) => SPEED_MS[k] === total);
    return h('span', { class: 'rd-timer-label' },
      speed ? icon(speed) : null,
      speed ? t(speed === 'lightning' ? 'rd.trading_lightning' : 'rd.trading_snail')
        : t('rd.trading_seconds', { n: Math.round(total / 1000) }));
  }

  pointMen() {
    const v = this.view;
    const all = (v.seats || []).length === 4 ? [4, 3] : [4, 3, 2];
    const left = new Set(v.point_men || []);
    const claims = v.claims || [];
    return h('section', { class: 'rd-men', testid: 'point-men', 'aria-label': t('rd.point_men') },
      h('span', { class: 'pile-label' }, t('rd.point_men')),
      h('div', { class: 'rd-men-row' }, all.map((p) => {
        const claim = claims.find((c) => c.points === p);
        const free = left.has(p) && v.phase === 'playing';
        return h('div', {
          class: cls('rd-man', free ? 'is-free' : 'is-taken'), testid: `point-man-${p}`,
          dataset: { free: free ? 'true' : 'false' },
        },
        h('span', { class: 'rd-man-token' }, String(p)),
        h('span', { class: 'rd-man-who small' }, claim ? this.nameOf(claim.seat) : (free ? t('rd.man_free') : '—')));
      })));
  }

  offersBoard() {
    const v = this.view;
    const offers = v.offers || [];
    const n = this.selected.size;
    const canAnswer = this.seated && this.trading && !this.claimed && !this.busy;
    return h('section', { class: 'rd-offers', testid: 'offers', 'aria-label': t('rd.open_offers') },
      h('span', { class: 'pile-label' }, `${t('rd.open_offers')}${offers.length ? ` · ${offers.length}` : ''}`),
      offers.length
        ? h('ul', { class: 'rd-offer-list' }, offers.map((o) => {
          const mine = o.seat === this.you;
          const forMe = o.to === this.you;
          const closed = o.to !== null && o.to !== undefined && o.to !== this.you;
          const answerable = canAnswer && !mine && !closed;
          return h('li', {
            class: cls('rd-offer', mine && 'is-mine', forMe && 'is-for-me'), testid: `offer-${o.seat}`,
            dataset: { size: o.size, to: o.to ?? '' },
          },
          h('span', { class: 'rd-offer-size', 'aria-hidden': 'true' },
            Array.from({ length: Math.min(o.size, 10) }, () => h('span', { class: 'mini-back' }))),
          h('span', { class: 'rd-offer-text' },
            h('strong', null, mine ? t('common.you') : this.nameOf(o.seat)),
            ' ',
            o.to === null || o.to === undefined
              ? t(mine ? 'rd.you_offer_anyone' : 'rd.offers_anyone', { n: o.size })
              : t(mine ? 'rd.you_offer_to' : 'rd.offers_to', { n: o.size, to: forMe ? t('rd.you_lower') : this.nameOf(o.to) })),
          answerable ? h('button', {
            type: 'button', class: cls('btn btn-small', n === o.size && 'btn-primary'),
            testid: `btn-answer-${o.seat}`, disabled: n !== o.size,
            title: n === o.size ? t('rd.answer_title', { n, name: this.nameOf(o.seat) })
              : t('rd.answer_select', { n: o.size }),
            onclick: () => this.offer(o.seat),
          }, t('rd.trade_n', { n: o.size })) : null,
          mine ? h('button', {
            type: 'button', class: 'btn btn-small btn-ghost-dark', testid: 'btn-withdraw-inline',
            disabled: this.busy, onclick: () => this.act({ kind: 'withdraw' }),
          }, t('rd.withdraw')) : null);
        }))
        : h('p', { class: 'muted small rd-empty' }, this.trading ? t('rd.no_offers') : t('rd.offers_later')));
  }

  /** One trade: what went each way, its status, and (while it may be returned) Return / Keep. */
  tradeEntry(tr) {
    const open = tr.can_return;
    const status = tr.status === 'returnable' ? (open ? 'not_demmi' : 'waiting') : tr.status;
    return h('li', {
      class: cls('rd-trade', open && 'is-open', tr.status === 'returned' && 'is-returned'),
      testid: `trade-${tr.id}`, dataset: { status: tr.status },
    },
    h('div', { class: 'rd-trade-head' },
      h('strong', null, t('rd.trade_with', { name: this.nameOf(tr.with) })),
      h('span', { class: cls('badge', `badge-${tr.status}`) },
        has(`rd.trade_status.${status}`) ? t(`rd.trade_status.${status}`) : tr.status)),
    h('div', { class: 'rd-trade-cards' },
      h('span', { class: 'small muted' }, t('rd.gave')),
      h('span', { class: 'rd-mini-cards' }, tr.gave.map((c) => rdCardElement(c))),
      h('span', { class: 'rd-arrow', 'aria-hidden': 'true' }, '⇄'),
      h('span', { class: 'small muted' }, t('rd.got')),
      h('span', { class: 'rd-mini-cards', testid: `trade-got-${tr.id}` }, tr.got.map((c) => rdCardElement(c)))),
    open ? h('div', { class: 'rd-trade-actions' },
      h('span', { class: 'small' }, t('rd.received_not_demmi')),
      h('button', {
        type: 'button', class: 'btn btn-small btn-accent', testid: `btn-return-${tr.id}`, disabled: this.busy,
        onclick: () => this.act({ kind: 'return', trade: tr.id }),
      }, t('rd.return')),
      h('button', {
        type: 'button', class: 'btn btn-small', testid: `btn-keep-${tr.id}`, disabled: this.busy,
        onclick: () => this.act({ kind: 'keep', trade: tr.id }),
      }, t('rd.keep')),
      h('span', { class: 'small muted rd-window', dataset: { until: tr.return_until ?? '' } }, ''))
      : (tr.locked_until ? h('p', { class: 'small muted rd-window', dataset: { until: tr.locked_until } }, '') : null));
  }

  /** The trades still waiting for your answer (Return or Keep): shown with your hand. */
  openTrades() {
    const open = [...(this.view.trades || [])].filter((tr) => tr.can_return).reverse();
    return open.length ? h('ul', { class: 'rd-trade-list rd-open-trades', testid: 'open-trades' },
      open.map((tr) => this.tradeEntry(tr))) : null;
  }

  /**
   * Your past trades, newest first, folded into a drawer after your hand: it
   * shows their count, opens on a tap, and starts closed on a phone.
   */
  tradesPanel() {
    const v = this.view;
    const trades = [...(v.trades || [])].reverse();
    if (!trades.length) return null;
    if (this.tradesOpen === undefined) this.tradesOpen = !window.matchMedia?.('(max-width: 560px)').matches;
    const settled = trades.filter((tr) => !tr.can_return);
    return h('details', {
      class: 'rd-trades', testid: 'trades', open: this.tradesOpen,
      ontoggle: (e) => { this.tradesOpen = e.target.open; },
    },
    h('summary', { class: 'rd-trades-summary' },
      h('span', null, t('rd.your_trades')),
      h('span', { class: 'badge rd-trades-count', testid: 'trades-count' }, String(trades.length))),
    settled.length ? h('ul', { class: 'rd-trade-list' }, settled.map((tr) => this.tradeEntry(tr))) : null);
  }

  myArea() {
    const v = this.view;
    const mine = this.seat(this.you) || { seat: this.you, name: this.ctx.identity()?.name };
    const playing = v.phase === 'playing';
    const hidden = !!v.hand_hidden;
    const count = this.selected.size;
    const locked = this.locked;
    const offered = this.offered;
    const hand = this.hand;
    const claimed = this.claimed;
    const offerWhy = this.offerWhy();
    const claimWhy = this.claimWhy();
    const others = (v.seats || []).filter((s) => s.seat !== this.you && (s.claimed === null || s.claimed === undefined));
    if (this.target !== null && !others.some((s) => s.seat === this.target)) this.target = null;
    const targetSelect = h('select', {
      class: 'rd-target', testid: 'rd-target', 'aria-label': t('rd.offer_to'),
      onchange: (e) => { this.target = e.target.value === '' ? null : Number(e.target.value); },
    },
    h('option', { value: '', selected: this.target === null }, t('rd.to_anyone')),
    others.map((s) => h('option', { value: s.seat, selected: this.target === s.seat }, t('rd.to_name', { name: this.nameOf(s.seat) }))));
    return h('section', { class: cls('me', 'rd-me', this.trading && !claimed && 'is-turn') },
      h('div', { class: 'me-head' },
        this.seatChip(mine, { mine: true }),
        h('p', { class: 'status', testid: 'status', 'aria-live': 'polite' }, this.statusText())),
      // Face down only until the check: then the results show it, face up.
      v.my_claim && playing ? h('div', { class: 'rd-my-claim', testid: 'my-claim' },
        h('strong', null, t('rd.my_claim', { points: v.my_claim.points })),
        h('span', { class: 'rd-mini-cards' }, v.my_claim.cards.map((c) => rdCardElement(c)))) : null,
      hidden ? this.hiddenHand(mine) : this.handGroups(hand, { locked, offered, playing, claimed }),
      playing && !hidden && !claimed ? h('div', { class: 'controls' },
        h('div', { class: 'sort', role: 'group', 'aria-label': t('rd.group_label') },
          h('span', { class: 'small muted' }, t('rd.group')),
          h('button', {
            type: 'button', class: 'btn btn-small btn-toggle', testid: 'btn-group-colour',
            'aria-pressed': this.groupMode === 'colour' ? 'true' : 'false', onclick: () => this.setGroup('colour'),
          }, t('rd.by_colour')),
          h('button', {
            type: 'button', class: 'btn btn-small btn-toggle', testid: 'btn-group-figure',
            'aria-pressed': this.groupMode === 'figure' ? 'true' : 'false', onclick: () => this.setGroup('figure'),
          }, t('rd.by_figure'))),
        h('div', { class: 'actions' },
          targetSelect,
          whyButton(this, h('button', {
            type: 'button', class: 'btn btn-primary', testid: 'btn-offer', disabled: !!offerWhy,
            onclick: () => this.offer(),
          }, count ? t('rd.offer_n', { n: count }) : t('rd.offer')), offerWhy),
          v.my_offer ? h('button', {
            type: 'button', class: 'btn', testid: 'btn-withdraw', disabled: this.busy,
            onclick: () => this.act({ kind: 'withdraw' }),
          }, t('rd.withdraw')) : null,
          whyButton(this, h('button', {
            type: 'button', class: cls('btn btn-claim', this.claimArmed && 'is-armed'), testid: 'btn-claim',
            disabled: !!claimWhy, onclick: () => this.claim(),
          }, this.claimArmed ? t('rd.claim_with', { n: REMMI_SIZE }) : t('rd.claim_call')), claimWhy))) : null,
      playing ? this.openTrades() : null,
      playing && !claimed ? this.hintLine() : null,
      this.overActions(),
      this.errorLine());
  }

  /** Why Offer can't be pressed (null: it can). */
  offerWhy() {
    if (this.busy) return t('why.busy');
    if (!this.trading) return t('rd.why_timer');
    if (this.claimed) return t('rd.why_claimed');
    if (!this.selected.size) return t('rd.why_select_offer');
    return null;
  }

  /** Why Remmi-Demmi! can't be pressed (null: it can). */
  claimWhy() {
    const v = this.view;
    if (this.busy) return t('why.busy');
    if (!this.trading) return t('rd.why_timer');
    if (this.claimed) return t('rd.why_claimed');
    if (v.my_offer) return t('rd.why_offer_open');
    if (this.locked.size) return t('rd.why_locked');
    if (this.hand.length < REMMI_SIZE) return t('rd.why_nine', { n: REMMI_SIZE });
    return null;
  }

  hiddenHand(mine) {
    const v = this.view;
    const n = mine.hand_count || 0;
    return h('div', { class: 'rd-hidden' },
      h('div', { class: 'hand rd-hand-hidden', testid: 'hand', 'aria-label': t('rd.hidden_hand'), style: `--n: ${n || 1}` },
        Array.from({ length: n }, () => rdCardElement(null, { faceDown: true }))),
      h('div', { class: 'actions' },
        h('button', {
          type: 'button', class: 'btn btn-accent', testid: 'btn-peek',
          disabled: this.busy || v.stage !== 'dealt', onclick: () => this.act({ kind: 'peek' }),
        }, t('rd.peek'))),
      h('p', { class: 'hint' }, t('rd.frantic_hint')));
  }

  handGroups(hand, { locked, offered, playing, claimed }) {
    if (!hand.length) {
      return h('div', { class: 'hand rd-hand is-empty', testid: 'hand' },
        h('p', { class: 'muted' }, claimed ? t('rd.laid_down') : t('hand.empty')));
    }
    const mode = this.groupMode;
    const order = mode === 'figure' ? FIGURE_ORDER : COLOUR_ORDER;
    const keyOf = (id) => (mode === 'figure' ? id[1] : id[0]);
    const interactive = playing && !claimed;
    const groupName = mode === 'figure' ? figureName : colourName;
    const groupMark = mode === 'figure' ? figureIcon : colourDot;
    const groups = [...order].map((k) => ({ k, name: groupName(k), cards: sortRd(hand.filter((id) => keyOf(id) === k), mode) }))
      .filter((g) => g.cards.length);
    return h('div', { class: 'rd-hand-wrap' },
      h('div', {
        class: 'hand rd-hand', testid: 'hand', role: 'group', 'aria-label': t('table.your_hand'),
        style: `--n: ${hand.length}; --g: ${groups.length}`,
      },
        groups.map((g) => h('div', { class: cls('rd-group', `rd-group-${g.k}`), dataset: { group: g.k } },
          h('span', { class: 'rd-group-label', title: g.name },
            h('span', { class: 'rd-group-mark', 'aria-hidden': 'true' }, groupMark(g.k)),
            h('span', { class: 'rd-group-name' }, g.name), h('b', null, ` ${g.cards.length}`)),
          h('div', { class: 'rd-group-cards' }, g.cards.map((id) => rdCardElement(id, {
            interactive,
            selected: this.selected.has(id),
            testid: `card-${id}`,
            disabled: !interactive || locked.has(id),
            className: cls(this.newCards.has(id) && 'is-new', this.arriving && this.newCards.has(id) && 'is-arriving',
              locked.has(id) && 'is-locked', offered.has(id) && 'is-offered'),
            title: locked.has(id) ? t('rd.locked_title', { card: parseRdCard(id).name }) : null,
            onClick: () => this.toggle(id),
          })))))),
      this.tally(hand));
  }

  tally(hand) {
    const count = (c, f) => hand.filter((id) => id[0] === c && id[1] === f).length;
    return h('table', { class: 'rd-tally', 'aria-label': t('rd.tally') },
      h('thead', null, h('tr', null, h('th', null, ''),
        [...FIGURE_ORDER].map((f) => h('th', { title: figureName(f) },
          figureIcon(f))))),
      h('tbody', null, [...COLOUR_ORDER].map((c) => h('tr', null,
        h('th', null, colourDot(c, colourName(c))),
        [...FIGURE_ORDER].map((f) => {
          const n = count(c, f);
          return h('td', { class: cls(n === 0 && 'is-zero'), testid: `tally-${c}${f}` }, String(n));
        })))));
  }

  /** Who starts the timer: the dealer, or the bot playing the dealer's seat (no wait on a person). */
  waitingDealer() {
    const dealer = this.seat(this.view.dealer);
    const name = this.nameOf(this.view.dealer);
    if (dealer?.bot) return t('rd.bot_dealer', { name });
    if (dealer?.away) return t('rd.standin_dealer', { name });
    return t('rd.waiting_dealer', { name });
  }

  statusText() {
    const v = this.view;
    if (v.phase === 'playing') {
      if (!this.seated) {
        return v.stage === 'dealt' ? this.waitingDealer() : t('rd.trading_status');
      }
      if (this.claimed) return t('rd.status_claimed');
      if (v.stage === 'dealt') {
        if (v.hand_hidden) return t('rd.status_hidden');
        return v.dealer === this.you ? t('rd.status_look_dealer') : t('rd.status_look');
      }
      if (v.my_offer) {
        return v.my_offer.to !== null && v.my_offer.to !== undefined
          ? t('rd.status_offer_to', { n: v.my_offer.cards.length, name: this.nameOf(v.my_offer.to) })
          : t('rd.status_offer', { n: v.my_offer.cards.length });
      }
      return t('rd.status_trade');
    }
    if (v.phase === 'game_over') return `${t('status.game_over')} ${this.winnersText()}`;
    if (v.phase === 'deal_over') return t('rd.status_round_over', { n: v.result?.deal ?? v.deal });
    return '';
  }

  hintIsIdle() {
    return super.hintIsIdle() && !this.claimArmed && !findRemmi(this.hand);
  }

  hintText() {
    const v = this.view;
    if (!this.trading || this.claimed || v.hand_hidden) return '';
    const chosen = this.hand.filter((id) => this.selected.has(id));
    if (this.claimArmed) {
      const ok = chosen.length === REMMI_SIZE && isRemmi(chosen);
      return chosen.length === REMMI_SIZE
        ? `${ok ? t('rd.hint_is_remmi', { n: REMMI_SIZE }) : t('rd.hint_not_remmi', { n: REMMI_SIZE })} ${t('rd.hint_tap_again')}`
        : t('rd.hint_choose_nine', { n: REMMI_SIZE, selected: chosen.length });
    }
    if (v.my_offer && !chosen.length) return t('rd.hint_new_offer');
    if (!chosen.length) return findRemmi(this.hand) ? t('rd.hint_hold_remmi') : t('rd.hint_select');
    return isDemmi(chosen)
      ? t('rd.hint_demmi', { n: chosen.length })
      : t('rd.hint_not_demmi', { n: chosen.length });
  }

  resultPanel() {
    const v = this.view;
    const r = v.result;
    const over = v.phase === 'game_over';
    const seats = this.seatsInOrder();
    const points = r?.points || [];
    return h('section', { class: cls('result', 'rd-result', over && 'is-final'), testid: 'result', role: 'status' },
      r ? [
        h('h2', null, t('rd.check_title', { n: r.deal })),
        h('p', { class: 'muted small' }, r.ended_by === 'claims' ? t('rd.ended_claims') : t('rd.ended_timer')),
        (r.claims || []).length
          ? h('ol', { class: 'rd-check' }, r.claims.map((c) => h('li', {
            class: cls('rd-check-line', c.valid ? 'is-valid' : 'is-invalid'), testid: `check-${c.seat}`,
            dataset: { valid: c.valid ? 'true' : 'false' },
          },
          h('div', { class: 'rd-check-head' },
            h('strong', null, this.nameOf(c.seat)),
            h('span', { class: cls('badge', c.valid ? 'badge-valid' : 'badge-invalid') },
              c.valid ? t('rd.valid') : t('rd.invalid')),
            h('span', { class: 'rd-check-points' }, c.valid ? `★${c.awarded} · ${signed(c.points)}` : signed(c.points))),
          h('span', { class: 'rd-mini-cards' }, sortRd(c.cards || [], 'colour').map((id) => rdCardElement(id))))))
          : h('p', null, t('rd.no_claims')),
        tableDealNotes(this),
        h('div', { class: 'result-table-wrap' },
          h('table', { class: 'result-hands' },
            h('thead', null, h('tr', null, h('th', null, t('col.player')), h('th', { class: 'num' }, t('col.round')),
              h('th', { class: 'num' }, t('col.total')))),
            h('tbody', null, seats.map((s) => h('tr', { testid: `result-row-${s.seat}` },
              h('td', null, this.nameOf(s.seat)),
              h('td', { class: 'num' }, signed(points[s.seat] ?? 0)),
              h('td', { class: 'num' }, String(s.score ?? 0))))))),
        Array.isArray(r.hands) ? h('details', { class: 'rd-hands' },
          h('summary', null, t('rd.every_hand')),
          h('ul', null, seats.map((s) => h('li', null,
            h('span', { class: 'rd-hands-name' }, this.nameOf(s.seat)),
            h('span', { class: 'rd-mini-cards' }, sortRd(r.hands[s.seat] || [], 'colour').map((id) => rdCardElement(id))))))) : null,
      ] : null,
      over
        ? this.gameOverBox([...seats].sort((a, b) => (b.score ?? 0) - (a.score ?? 0)))
        : this.nextDealBox(t('rd.next_round'), r?.tie_round_next ? t('rd.tie_round') : ''));
  }

  scoresPanel() {
    const v = this.view;
    const seats = this.seatsInOrder();
    const results = this.dealResults();
    const best = Math.max(...seats.map((s) => s.score ?? 0));
    return h('section', { class: 'panel scores', testid: 'scores' },
      h('h2', null, t('rd.points')),
      h('p', { class: 'muted small' }, t('rd.rounds_most_wins', { n: v.rounds ?? 7 })),
      h('div', { class: 'scores-wrap' },
        h('table', { class: 'score-table' },
          this.scoreHead(t('col.round_short'), seats),
          h('tbody', null, results.length
            ? results.map((r) => h('tr', null,
              h('th', { scope: 'row' }, r.deal ?? ''),
              seats.map((s) => {
                const p = (r.points || [])[s.seat] ?? 0;
                return h('td', { class: cls('num', p > 0 && 'won', p < 0 && 'lost') }, p ? signed(p) : '–');
              })))
            : this.noScoresRow(seats, t('rd.none_yet'))),
          this.scoreTotals(seats, (s) => (s.score ?? 0) === best && best > 0))));
  }

  describe(ev) {
    const who = this.nameOf(ev.seat);
    switch (ev.kind) {
      case 'round_started':
        return t(this.about(ev.dealer, 'rd.log_round_started'), { n: ev.deal, dealer: this.nameOf(ev.dealer) });
      case 'timer_started': {
        const speed = t(ev.speed === 'lightning' ? 'rd.lightning' : 'rd.snail');
        return ev.by === null || ev.by === undefined
          ? t('rd.log_timer_auto', { speed })
          : t(this.about(ev.by, 'rd.log_timer'), { name: this.nameOf(ev.by), speed });
      }
      case 'revealed':
        return t('rd.log_revealed');
      case 'peeked':
        return t(this.about(ev.seat, 'rd.log_peeked'), { name: who });
      case 'penalty': {
        const why = reasonText(ev.reason);
        return `${who}: ${signed(ev.points)}${why ? ` (${why})` : ''}.`;
      }
      case 'offered': {
        const mine = ev.seat === this.you;
        return ev.to === null || ev.to === undefined
          ? t(mine ? 'rd.log_you_offer' : 'rd.log_offers', { name: who, n: ev.size })
          : t(mine ? 'rd.log_you_offer_to' : 'rd.log_offers_to', {
            name: who, n: ev.size, to: this.nameOf(ev.to, { you: t('rd.you_lower') }),
          });
      }
      case 'withdrawn': {
        const why = reasonText(ev.reason);
        return `${t(ev.seat === this.you ? 'rd.log_you_withdrew' : 'rd.log_withdrew', { name: who })}${why ? ` (${why})` : ''}`;
      }
      case 'traded':
        return t('rd.log_traded', { a: this.nameOf(ev.a), b: this.nameOf(ev.b, { you: t('rd.you_lower') }), n: ev.size });
      case 'returned':
        return t(this.about(ev.by, 'rd.log_returned'), { name: this.nameOf(ev.by) });
      case 'kept':
        return t(this.about(ev.by, 'rd.log_kept'), { name: this.nameOf(ev.by) });
      case 'claimed':
        return `${who}: ${t('rd.claim_call')} ★${ev.points}`;
      case 'round_over':
        return ev.ended_by === 'claims' ? t('rd.log_over_claims') : t('rd.log_over_time');
      case 'checked':
        return t('rd.log_checked', {
          list: (ev.claims || []).map((c) => `${this.nameOf(c.seat)} ${c.valid ? '✓' : '✗'} ${signed(c.points)}`).join(', ')
            || t('rd.no_claims_short'),
        });
      case 'game_over':
        return t('log.game_over');
      default:
        return super.describe(ev);
    }
  }

  // --- clocks ------------------------------------------------------------------------------

  updateClocks() {
    const v = this.view;
    if (!v) return;
    const now = this.ctx.serverNow();
    const box = this.root.querySelector('[data-testid="rd-timer"]');
    if (box && v.phase === 'playing' && v.stage === 'trading' && v.deadline) {
      const deadline = Number(v.deadline);
      const total = Math.max(1000, v.timer_started_at ? deadline - Number(v.timer_started_at) : Number(v.timer_ms) || 1);
      const left = Math.max(0, deadline - now);
      const text = box.querySelector('.rd-timer-text');
      if (text) text.textContent = formatClock(left);
      const fill = box.querySelector('.rd-bar-fill');
      if (fill) fillBar(fill, left / total);
      box.classList.toggle('is-low', left < 10_000);
      box.dataset.left = String(Math.ceil(left / 1000));
      box.setAttribute('aria-label', t('rd.trading_left', { n: Math.ceil(left / 1000) }));
    }
    const auto = this.root.querySelector('[data-testid="auto-start"]');
    if (auto) {
      const left = v.auto_start_at ? Number(v.auto_start_at) - now : 0;
      auto.textContent = left > 0 ? t('rd.auto_start', { n: Math.ceil(left / 1000) }) : '';
    }
    for (const el of this.root.querySelectorAll('.rd-window[data-until]')) {
      const until = Number(el.dataset.until);
      if (!until) continue;
      const left = until - now;
      el.textContent = left > 0 ? t('rd.decide_in', { n: Math.ceil(left / 1000) }) : '';
    }
    const next = this.root.querySelector('[data-testid="next-deal-in"]');
    if (next && v.next_deal_at) {
      const left = Number(v.next_deal_at) - now;
      next.textContent = `${v.result?.tie_round_next ? `${t('rd.tie_round')} ` : ''}${left > 0 ? t('rd.next_round_in', { n: Math.ceil(left / 1000) }) : t('clock.dealing')}`;
    }
  }
}

/** A colour's dot; a title names it on hover where the dot stands alone (the tally). */
function colourDot(c, title = null) {
  return h('span', { class: `rd-dot rd-${c}`, title });
}

function figureIcon(f) {
  const el = document.createElement('span');
  el.className = 'rd-tally-fig';
  el.innerHTML = `<svg viewBox="0 0 100 100" aria-hidden="true" focusable="false"><use href="#rd-fig-${f}"/></svg>`;
  return el;
}
