// The Indonesian Remi table (rules IR-n, the browser product of IR-21).
//
// Terms: a *sequence* is 3+ cards of one suit in a row, either number cards
// from 2 to 10 or J-Q-K (never an ace); a *set* is 3 or 4 cards of one rank.
// A set may be laid only by a player with a sequence on the table. A turn:
// tap the stock to *draw*, or *take* one of the top three discards by tapping
// it, then the hand cards it melds with, then Meld; lay more melds; tap a
// card and Discard. Nothing is ever laid off. *Closing*: when every card but
// one forms melds, the Close button lays them all down and discards the last
// card, the *closing card* (worth 10 x its value to the closer). Every deal is
// scored for everyone: meld cards (on the table and, by default, in hand)
// count plus, the other cards minus.

import { BasicRummyTable } from './table_basic_rummy.js';
import { cardElement, cardLabel, parseCard, sortCards } from './cards.js';
import { h } from './dom.js';
import { bySeat, cls, plural, renderTable, signed } from './ui.js';
import { tableDealNotes } from './help.js';

const TAKE_DEPTH = 3;
const SEQUENCES = ['23456789T', 'JQK'];
const RANKS = 'A23456789TJQK';
const VALUES = { A: 15, J: 10, Q: 10, K: 10 };

/** IR-5: 2-10 are worth 5, J Q K 10, an ace 15. */
export function irValue(id) {
  return VALUES[id[0]] ?? 5;
}

/** "run" (a sequence), "set" or null: IR-6, IR-7. */
export function meldKind(cards) {
  if (cards.length < 3) return null;
  const ranks = cards.map((c) => c[0]);
  const suits = cards.map((c) => c[1]);
  if (ranks.every((r) => r === ranks[0])) {
    return cards.length <= 4 && new Set(suits).size === cards.length ? 'set' : null;
  }
  if (!suits.every((s) => s === suits[0])) return null;
  for (const line of SEQUENCES) {
    if (!ranks.every((r) => line.includes(r))) continue;
    const at = ranks.map((r) => line.indexOf(r)).sort((a, b) => a - b);
    if (at.every((p, i) => i === 0 || p === at[i - 1] + 1)) return 'run';
  }
  return null;
}

/** Every meld that can be made of `cards` (each a sorted list). */
function allMelds(cards) {
  const out = [];
  const byRank = new Map();
  for (const c of cards) byRank.set(c[0], [...(byRank.get(c[0]) || []), c]);
  for (const group of byRank.values()) {
    if (group.length >= 3) {
      for (const pick of subsets(group, 3)) out.push(pick);
      if (group.length === 4) out.push([...group]);
    }
  }
  for (const suit of 'SHDC') {
    for (const line of SEQUENCES) {
      const have = [...line].map((r) => cards.find((c) => c[0] === r && c[1] === suit) || null);
      for (let start = 0; start < have.length; start += 1) {
        for (let end = start + 3; end <= have.length; end += 1) {
          const run = have.slice(start, end);
          if (run.every(Boolean)) out.push(run);
        }
      }
    }
  }
  return out;
}

function subsets(list, k) {
  if (k === 0) return [[]];
  if (list.length < k) return [];
  const [first, ...rest] = list;
  return [...subsets(rest, k - 1).map((s) => [first, ...s]), ...subsets(rest, k)];
}

/**
 * One way to lay every card of `cards` down in melds (sequences first), or
 * null. Sets need a sequence: on the table already, or in the same split.
 */
export function closingSplit(cards, sequenceOnTable) {
  const melds = allMelds(cards);
  const order = [...cards].sort((a, b) => RANKS.indexOf(a[0]) - RANKS.indexOf(b[0]) || a.localeCompare(b));
  const search = (left) => {
    if (!left.size) return [[]];
    const lowest = order.find((c) => left.has(c));
    const found = [];
    for (const meld of melds) {
      if (!meld.includes(lowest) || !meld.every((c) => left.has(c))) continue;
      const rest = new Set(left);
      for (const c of meld) rest.delete(c);
      for (const tail of search(rest)) {
        found.push([meld, ...tail]);
        if (found.length > 40) return found;
      }
    }
    return found;
  };
  for (const split of search(new Set(cards))) {
    const kinds = split.map((m) => meldKind(m));
    if (sequenceOnTable || !split.length || kinds.includes('run')) {
      return split.map((m, i) => ({ cards: m, kind: kinds[i] }))
        .sort((a, b) => (a.kind === 'run' ? 0 : 1) - (b.kind === 'run' ? 0 : 1))
        .map((m) => m.cards);
    }
  }
  return null;
}

/** For each card of `hand` that can close (IR-14): the melds the rest makes. */
export function closingOptions(hand, sequenceOnTable) {
  const options = new Map();
  if (hand.length === 1) {
    options.set(hand[0], []);
    return options;
  }
  for (const card of hand) {
    const split = closingSplit(hand.filter((c) => c !== card), sequenceOnTable);
    if (split) options.set(card, split);
  }
  return options;
}

export class IndonesianRemiTable extends BasicRummyTable {
  constructor(root, ctx) {
    super(root, ctx);
    this.taking = null; // the discard card being taken
    this.closing = false; // choosing the closing card
  }

  gameTitle() {
    return 'Indonesian Remi';
  }

  update(view, version) {
    const previous = this.view;
    if (!previous || previous.turn !== view.turn || previous.step !== view.step || previous.phase !== view.phase) {
      this.taking = null;
      this.closing = false;
    }
    if (this.taking && !(view.takeable || []).includes(this.taking)) this.taking = null;
    if (this.closing && !view.can_close) this.closing = false;
    super.update(view, version);
  }

  header() {
    const head = super.header();
    const v = this.view;
    const line = head.querySelector('.table-title p');
    if (line) {
      const target = v.options?.target;
      line.textContent = [
        this.dealProgress(),
        target ? `to ${target} points` : null,
        v.room?.spectators ? `${v.room.spectators} watching` : null,
      ].filter(Boolean).join(' · ');
    }
    return head;
  }

  get hasSequence() {
    return !!this.seat(this.you)?.has_sequence;
  }

  closers() {
    const hand = Array.isArray(this.view.hand) ? this.view.hand : [];
    return closingOptions(hand, this.hasSequence);
  }

  // --- actions -----------------------------------------------------------------------

  draw() {
    this.taking = null;
    this.act({ kind: 'draw' });
  }

  chooseTake(card) {
    this.closing = false;
    this.taking = this.taking === card ? null : card;
    this.error = null;
    this.render();
  }

  meld() {
    const hand = this.view.hand || [];
    const cards = hand.filter((id) => this.selected.has(id));
    if (this.taking && this.view.step === 'draw') {
      const card = this.taking;
      this.act({ kind: 'take', card, with: sortCards(cards, 'suit') }, { clearSelection: true });
      return;
    }
    super.meld();
  }

  startClose() {
    const options = this.closers();
    if (options.size === 1 && (this.view.hand || []).length === 1) {
      const [[card, melds]] = [...options];
      this.act({ kind: 'close', melds, card }, { clearSelection: true });
      return;
    }
    this.closing = !this.closing;
    this.selected.clear();
    this.error = null;
    this.render();
  }

  closeWith(card) {
    const melds = this.closers().get(card);
    if (!melds) {
      this.showError(`${cardLabel(card)} cannot be the closing card: the other cards do not all form melds.`);
      return;
    }
    this.closing = false;
    this.act({ kind: 'close', melds, card }, { clearSelection: true });
  }

  toggle(id) {
    if (this.closing) {
      this.closeWith(id);
      return;
    }
    super.toggle(id);
  }

  // --- rendering -----------------------------------------------------------------------

  layout() {
    const tree = super.layout();
    if (!this.closing) return tree;
    const options = this.closers();
    for (const el of tree.querySelectorAll('[data-testid="hand"] .card[data-card]')) {
      const ok = options.has(el.dataset.card);
      el.classList.toggle('is-closer', ok);
      el.classList.toggle('is-dimmed', !ok);
      if (ok) el.setAttribute('aria-label', `${el.getAttribute('aria-label')}: close with this card`);
    }
    return tree;
  }

  render() {
    const title = `${this.myTurn ? '● Your turn · ' : ''}${this.gameTitle()} · Kartu`;
    if (!renderTable(this, { title })) super.render();
  }

  centre() {
    const v = this.view;
    const canDraw = this.myTurn && v.step === 'draw' && !this.busy;
    const discard = Array.isArray(v.discard) ? v.discard : [];
    const takeable = new Set(v.takeable || discard.slice(-TAKE_DEPTH));
    const top = discard.slice(-TAKE_DEPTH);
    const hidden = discard.length - top.length;
    const stockCount = v.stock_count ?? 0;
    const turnName = v.phase === 'playing' && v.turn !== null && v.turn !== undefined
      ? (v.turn === this.you ? 'Your turn' : `${this.nameOf(v.turn)}'s turn`) : null;
    return h('div', { class: 'centre' },
      h('div', { class: 'pile' },
        h('button', {
          type: 'button', class: cls('pile-button stock', canDraw && !this.taking && 'is-live'), testid: 'stock',
          disabled: !canDraw, onclick: () => this.draw(),
          'aria-label': `Stock, ${stockCount} cards${canDraw ? ': draw a card' : ''}`,
        },
        stockCount ? cardElement(null, { faceDown: true }) : h('span', { class: 'card-slot' }, 'empty'),
        h('span', { class: 'count', testid: 'stock-count' }, String(stockCount))),
        h('span', { class: 'pile-label' }, 'Stock')),
      h('div', { class: 'pile pile-discard ir-pile' },
        h('div', { class: 'ir-discard', testid: 'discard' },
          hidden > 0 ? h('span', { class: 'ir-buried', title: `${hidden} more below` }, `+${hidden}`) : null,
          top.length ? top.map((id, i) => {
            const live = canDraw && takeable.has(id);
            const isTop = i === top.length - 1;
            return h('button', {
              type: 'button',
              class: cls('pile-button ir-take', live && 'is-live', this.taking === id && 'is-taking'),
              testid: `take-${id}`, disabled: !live, dataset: { card: id, top: isTop ? 'true' : null },
              'aria-pressed': this.taking === id ? 'true' : 'false',
              'aria-label': `${parseCard(id)?.name || id}${live ? ': take it into a new meld' : ''}`,
              onclick: () => this.chooseTake(id),
            }, cardElement(id));
          }) : h('span', { class: 'card-slot', testid: 'discard-empty' }, 'empty')),
        h('span', { class: 'pile-label' }, `Discard${discard.length ? ` · ${discard.length}` : ''} · top 3 takeable`)),
      this.turnBox(turnName));
  }

  meldsArea() {
    const v = this.view;
    const melds = this.allMelds();
    const owners = [...new Set(melds.map((m) => m.owner))].sort((a, b) => {
      if (a === this.you) return -1;
      if (b === this.you) return 1;
      return a - b;
    });
    return h('section', { class: 'melds', testid: 'melds' },
      melds.length
        ? owners.map((owner) => h('div', { class: 'meld-group', dataset: { owner } },
          h('span', { class: 'meld-owner' }, this.nameOf(owner),
            this.seat(owner)?.has_sequence ? h('span', { class: 'tag tag-seq', title: 'Has a sequence: may lay sets' }, 'seq') : null),
          h('div', { class: 'meld-row' }, melds.filter((m) => m.owner === owner).map((m) => h('div', {
            class: cls('meld', this.freshMelds.has(String(m.id)) && 'is-fresh'),
            testid: `meld-${m.id}`, dataset: { meld: m.id, kind: m.kind },
            'aria-label': `${m.kind === 'set' ? 'Set' : 'Sequence'}: ${m.cards.map(cardLabel).join(' ')}`,
          }, m.cards.map((c) => cardElement(c)))))))
        : h('p', { class: 'melds-empty' }, v.phase === 'playing' ? 'No melds on the table yet. Nothing can be added to a meld once laid.' : ''));
  }

  myArea() {
    const area = super.myArea();
    const v = this.view;
    const actions = area.querySelector('.controls .actions');
    if (!actions) return area;
    const count = this.selected.size;
    const meldButton = actions.querySelector('[data-testid="btn-meld"]');
    if (meldButton) {
      const taking = this.taking && this.myTurn && v.step === 'draw';
      const canMeld = this.myTurn && !this.busy && !this.closing
        && (taking ? count >= 2 : v.step === 'play' && count >= 3);
      meldButton.disabled = !canMeld;
      meldButton.textContent = taking
        ? `Meld ${cardLabel(this.taking)}${count ? ` + ${count}` : ''}`
        : (count >= 3 ? `Meld ${count}` : 'Meld');
    }
    const discardButton = actions.querySelector('[data-testid="btn-discard"]');
    if (discardButton && (this.closing || v.step !== 'play')) discardButton.disabled = true;
    if (v.can_close) {
      actions.append(h('button', {
        type: 'button', class: cls('btn btn-close', this.closing && 'is-armed'), testid: 'btn-close',
        disabled: this.busy, 'aria-pressed': this.closing ? 'true' : 'false',
        onclick: () => this.startClose(),
      }, this.closing ? 'Cancel close' : 'Close'));
    }
    return area;
  }

  myTurnText() {
    if (this.closing) return 'Close: tap the closing card.';
    return this.view.step === 'draw'
      ? 'Your turn: tap the stock, or a top-three discard to meld it.'
      : 'Your turn: lay down melds if you like, then discard.';
  }

  dealOverText(r) {
    return r.ended === 'closed' || (r.winner !== null && r.winner !== undefined)
      ? `${this.nameOf(r.winner)} closed with ${cardLabel(r.closing_card)}: +${r.bonus}.`
      : 'The stock ran out: everyone scores their cards.';
  }

  hintText() {
    const v = this.view;
    if (!this.myTurn) return this.selected.size ? `${this.selected.size} selected` : '';
    const n = this.selected.size;
    if (this.closing) {
      const options = [...this.closers().keys()];
      return options.length
        ? `Closing cards: ${options.map(cardLabel).join(' ')}. The others are laid down in melds.`
        : 'No card closes this hand.';
    }
    if (v.step === 'draw') {
      if (this.taking) {
        return n >= 2
          ? `Meld ${cardLabel(this.taking)} with these ${n} cards?`
          : `Tap the hand cards that meld with ${cardLabel(this.taking)} (at least two), then Meld.`;
      }
      return 'Tap the stock to draw, or one of the top three discards to take it into a meld.';
    }
    if (v.can_close && n === 0) return 'You can close! Tap Close, then the closing card.';
    if (n === 0) return 'Select cards to meld, or one card to discard.';
    if (n === 1) return `Discard ${cardLabel([...this.selected][0])}?`;
    if (n === 2) return 'A meld needs at least three cards.';
    const chosen = (v.hand || []).filter((c) => this.selected.has(c));
    const kind = meldKind(chosen);
    if (!kind) return 'These cards are not a meld.';
    if (kind === 'set' && !this.hasSequence) return 'A set needs a sequence of yours on the table first.';
    return `Meld this ${kind === 'run' ? 'sequence' : 'set'}?`;
  }

  resultPanel() {
    const v = this.view;
    const r = v.result;
    const over = v.phase === 'game_over';
    const seats = this.seatsInOrder();
    const closed = r && r.winner !== null && r.winner !== undefined;
    const ranking = [...seats].sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
    return h('section', { class: cls('result', 'ir-result', over && 'is-final'), testid: 'result', role: 'status' },
      r ? [
        h('h2', null, closed
          ? `Deal ${r.deal}: ${this.nameOf(r.winner)} closed`
          : `Deal ${r.deal}: the stock ran out`),
        closed ? h('p', { class: 'result-points' }, 'Closing card ', h('span', { class: 'ir-closer' }, cardElement(r.closing_card)),
          h('span', { testid: 'close-bonus' }, ` +${r.bonus}`)) : null,
        h('div', { class: 'result-table-wrap' },
          h('table', { class: 'result-hands ir-breakdown fan-cards' },
            h('thead', null, h('tr', null, h('th', null, 'Player'), h('th', null, 'Melds'),
              h('th', null, 'Minus'), h('th', { class: 'num' }, 'Deal'), h('th', { class: 'num col-total' }, 'Total'))),
            h('tbody', null, seats.map((s) => this.breakdownRow(s, r))))), tableDealNotes(this)] : null,
      over ? this.gameOverBox(ranking, { markYou: true }) : this.nextDealBox('Next deal'));
  }

  breakdownRow(s, r) {
    const b = (r.seats || []).find((e) => e.seat === s.seat);
    const points = b?.points ?? bySeat(r.points, s.seat) ?? 0;
    const total = b?.total ?? s.score ?? 0;
    const closer = s.seat === r.winner;
    if (!b) {
      const cards = bySeat(r.hands, s.seat) || [];
      return h('tr', { class: cls(closer && 'is-winner'), testid: `result-row-${s.seat}` },
        h('td', null, this.nameOf(s.seat)),
        h('td', null, ''),
        h('td', null, h('span', { class: 'result-cards' }, sortCards(cards, 'suit').map((c) => cardElement(c)))),
        h('td', { class: 'num' }, signed(points)),
        h('td', { class: 'num col-total' }, String(total)));
    }
    const meldCards = (melds, where) => melds.map((m) => h('span', { class: cls('result-cards ir-meld', where) },
      m.cards.map((c) => cardElement(c))));
    return h('tr', { class: cls(closer && 'is-winner'), testid: `result-row-${s.seat}` },
      h('td', null, this.nameOf(s.seat), closer ? h('span', { class: 'badge badge-closed' }, 'closed') : null),
      h('td', null,
        h('div', { class: 'ir-melds' }, meldCards(b.table_melds || [], 'on-table'), meldCards(b.hand_melds || [], 'in-hand')),
        h('span', { class: 'small muted' },
          (b.table_melds || []).length ? `table +${b.table_points}` : 'nothing laid',
          b.hand_points ? ` · in hand +${b.hand_points}` : '',
          b.bonus ? ` · close +${b.bonus}` : '')),
      h('td', null, (b.minus_cards || []).length
        ? [h('span', { class: 'result-cards' }, sortCards(b.minus_cards, 'suit').map((c) => cardElement(c))),
          h('span', { class: 'small muted' }, ` −${b.minus_points}`)]
        : h('span', { class: 'muted small' }, '—')),
      h('td', { class: cls('num', points > 0 && 'won', points < 0 && 'lost'), testid: `deal-points-${s.seat}` }, signed(points)),
      h('td', { class: 'num col-total' }, String(total)));
  }

  scoresPanel() {
    const v = this.view;
    const seats = this.seatsInOrder();
    const results = this.dealResults();
    const deals = v.options?.deals;
    const target = v.options?.target;
    const best = Math.max(...seats.map((s) => s.score ?? 0));
    return h('section', { class: 'panel scores', testid: 'scores' },
      h('h2', null, 'Scores'),
      h('p', { class: 'muted small' },
        [deals ? plural(deals, 'deal') : null, target ? `first to ${target}` : null]
          .filter(Boolean).join(' or ') || 'Open-ended game'),
      h('div', { class: 'scores-wrap' },
        h('table', { class: 'score-table' },
          this.scoreHead('Deal', seats),
          h('tbody', null, results.length
            ? results.map((r) => h('tr', null,
              h('th', { scope: 'row' }, r.deal ?? '', r.winner !== null && r.winner !== undefined
                ? h('sup', { title: `${this.nameOf(r.winner)} closed` }, 'C') : null),
              seats.map((s) => {
                const p = bySeat(r.points, s.seat) ?? 0;
                return h('td', { class: cls('num', s.seat === r.winner && 'won', p < 0 && 'lost') }, signed(p));
              })))
            : this.noScoresRow(seats, 'No deal finished yet.')),
          this.scoreTotals(seats, (s) => (s.score ?? 0) === best && results.length))));
  }

  describe(ev) {
    const who = this.nameOf(ev.seat);
    switch (ev.kind) {
      case 'took':
        return [`${who} took ${cardLabel(ev.card)}${(ev.above || []).length ? ` (and ${plural(ev.above.length, 'card')} above it)` : ''} and melded `,
          (ev.meld?.cards || []).map(cardLabel).join(' '), '.'];
      case 'closed':
        return `${who} closed with ${cardLabel(ev.card)}: +${ev.bonus}!`;
      case 'stock_out':
        return 'The stock is empty: the deal ends.';
      case 'deal_over':
        return ev.winner !== null && ev.winner !== undefined
          ? `Deal ${ev.deal} over: ${this.nameOf(ev.winner)} closed.`
          : `Deal ${ev.deal} over: the stock ran out.`;
      default:
        return super.describe(ev);
    }
  }
}
