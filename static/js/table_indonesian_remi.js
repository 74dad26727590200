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
import { bySeat, cls, signed } from './ui.js';
import { tableDealNotes } from './help.js';
import { t, tn } from './i18n.js';
import { whyButton } from './table_basic_rummy.js';

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
        target ? t('table.to_points', { n: target }) : null,
        v.room?.spectators ? t('common.watching', { n: v.room.spectators }) : null,
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
      this.showError(() => t('ir.not_closing_card', { card: cardLabel(card) }));
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
      if (ok) el.setAttribute('aria-label', t('ir.close_with_label', { card: el.getAttribute('aria-label') }));
    }
    return tree;
  }

  centre() {
    const v = this.view;
    const canDraw = this.myTurn && v.step === 'draw' && !this.busy;
    const discard = Array.isArray(v.discard) ? v.discard : [];
    const takeable = new Set(v.takeable || discard.slice(-TAKE_DEPTH));
    const top = discard.slice(-TAKE_DEPTH);
    const hidden = discard.length - top.length;
    const stockCount = v.stock_count ?? 0;
    const turnName = this.turnName();
    return h('div', { class: 'centre' },
      h('div', { class: 'pile' },
        h('button', {
          type: 'button', class: cls('pile-button stock', canDraw && !this.taking && 'is-live'), testid: 'stock',
          disabled: !canDraw, onclick: () => this.draw(),
          'aria-label': canDraw ? t('pile.stock_draw', { n: stockCount }) : t('pile.stock_label', { n: stockCount }),
        },
        stockCount ? cardElement(null, { faceDown: true }) : h('span', { class: 'card-slot' }, t('pile.empty')),
        h('span', { class: 'count', testid: 'stock-count' }, String(stockCount))),
        h('span', { class: 'pile-label' }, t('pile.stock'))),
      h('div', { class: 'pile pile-discard ir-pile' },
        h('div', { class: 'ir-discard', testid: 'discard' },
          hidden > 0 ? h('span', { class: 'ir-buried', title: t('ir.more_below', { n: hidden }) }, `+${hidden}`) : null,
          top.length ? top.map((id, i) => {
            const live = canDraw && takeable.has(id);
            const isTop = i === top.length - 1;
            return h('button', {
              type: 'button',
              class: cls('pile-button ir-take', live && 'is-live', this.taking === id && 'is-taking'),
              testid: `take-${id}`, disabled: !live, dataset: { card: id, top: isTop ? 'true' : null },
              'aria-pressed': this.taking === id ? 'true' : 'false',
              'aria-label': live ? t('ir.take_label', { card: parseCard(id)?.name || id }) : parseCard(id)?.name || id,
              onclick: () => this.chooseTake(id),
            }, cardElement(id));
          }) : h('span', { class: 'card-slot', testid: 'discard-empty' }, t('pile.empty'))),
        h('span', { class: 'pile-label' }, `${t('pile.discard')}${discard.length ? `\u00a0· ${discard.length}` : ''}\u00a0· ${t('ir.top_takeable', { n: TAKE_DEPTH })}`)),
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
            this.seat(owner)?.has_sequence ? h('span', { class: 'tag tag-seq', title: t('ir.seq_title') }, t('ir.seq_tag')) : null),
          h('div', { class: 'meld-row' }, melds.filter((m) => m.owner === owner).map((m) => h('div', {
            class: cls('meld', this.freshMelds.has(String(m.id)) && 'is-fresh'),
            testid: `meld-${m.id}`, dataset: { meld: m.id, kind: m.kind },
            'aria-label': t(m.kind === 'set' ? 'meld.set_label' : 'ir.sequence_label', { cards: m.cards.map(cardLabel).join(' ') }),
          }, m.cards.map((c) => cardElement(c)))))))
        : h('p', { class: 'melds-empty' }, v.phase === 'playing' ? t('ir.no_melds') : ''));
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
      meldButton.textContent = taking
        ? (count ? t('ir.meld_taking_n', { card: cardLabel(this.taking), n: count }) : t('ir.meld_taking', { card: cardLabel(this.taking) }))
        : (count >= 3 ? t('btn.meld_n', { n: count }) : t('btn.meld'));
      const why = this.irMeldWhy(taking, count);
      const slot = meldButton.closest('.why-wrap') || meldButton;
      meldButton.disabled = false;
      meldButton.removeAttribute('title');
      meldButton.removeAttribute('aria-description');
      slot.replaceWith(whyButton(this, meldButton, why));
    }
    if (v.can_close) {
      actions.append(h('button', {
        type: 'button', class: cls('btn btn-close', this.closing && 'is-armed'), testid: 'btn-close',
        disabled: this.busy, 'aria-pressed': this.closing ? 'true' : 'false',
        onclick: () => this.startClose(),
      }, this.closing ? t('ir.cancel_close') : t('ir.close')));
    }
    return area;
  }

  /** Why Meld can't be pressed (null: it can): taking a discard needs two hand cards, a meld three. */
  irMeldWhy(taking, count) {
    const v = this.view;
    if (this.busy) return t('why.busy');
    if (!this.myTurn) return t('why.not_your_turn');
    if (this.closing) return t('ir.why_closing');
    if (taking) return count >= 2 ? null : t('ir.why_take_two', { card: cardLabel(this.taking) });
    if (v.step === 'draw') return t('ir.why_meld_draw_first');
    return count >= 3 ? null : t('why.meld_three');
  }

  discardWhy() {
    if (this.closing) return t('ir.why_closing');
    return super.discardWhy();
  }

  myTurnText() {
    if (this.closing) return t('ir.turn_closing');
    return this.view.step === 'draw' ? t('ir.turn_draw') : t('ir.turn_play');
  }

  dealOverText(r) {
    return r.ended === 'closed' || (r.winner !== null && r.winner !== undefined)
      ? t(this.about(r.winner, 'ir.closed_with'), { name: this.nameOf(r.winner), card: cardLabel(r.closing_card), bonus: r.bonus })
      : t('ir.stock_ran_out');
  }

  hintIsIdle() {
    return super.hintIsIdle() && !this.taking && !this.closing && !this.view.can_close;
  }

  hintText() {
    const v = this.view;
    if (!this.myTurn) return this.selected.size ? t('hint.n_selected', { n: this.selected.size }) : '';
    const n = this.selected.size;
    if (this.closing) {
      const options = [...this.closers().keys()];
      return options.length
        ? t('ir.hint_closing_cards', { cards: options.map(cardLabel).join(' ') })
        : t('ir.hint_no_closer');
    }
    if (v.step === 'draw') {
      if (this.taking) {
        return n >= 2
          ? t('ir.hint_take_meld_q', { card: cardLabel(this.taking), n })
          : t('ir.hint_take_pick', { card: cardLabel(this.taking) });
      }
      return t('ir.hint_draw');
    }
    if (v.can_close && n === 0) return t('ir.hint_can_close');
    if (n === 0) return t('ir.hint_select');
    if (n === 1) return t('hint.discard_q', { card: cardLabel([...this.selected][0]) });
    if (n === 2) return t('why.meld_three');
    const chosen = (v.hand || []).filter((c) => this.selected.has(c));
    const kind = meldKind(chosen);
    if (!kind) return t('ir.hint_not_meld');
    if (kind === 'set' && !this.hasSequence) return t('ir.hint_set_needs_sequence');
    return t(kind === 'run' ? 'ir.hint_meld_sequence_q' : 'ir.hint_meld_set_q');
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
          ? t(this.about(r.winner, 'ir.result_closed_title'), { n: r.deal, name: this.nameOf(r.winner) })
          : t('ir.result_stock_title', { n: r.deal })),
        closed ? h('p', { class: 'result-points' }, `${t('ir.closing_card')} `, h('span', { class: 'ir-closer' }, cardElement(r.closing_card)),
          h('span', { testid: 'close-bonus' }, ` +${r.bonus}`)) : null,
        h('div', { class: 'result-table-wrap' },
          h('table', { class: 'result-hands ir-breakdown fan-cards' },
            h('thead', null, h('tr', null, h('th', null, t('col.player')), h('th', null, t('col.melds')),
              h('th', null, t('col.minus')), h('th', { class: 'num' }, t('col.deal')), h('th', { class: 'num col-total' }, t('col.total')))),
            h('tbody', null, seats.map((s) => this.breakdownRow(s, r))))), tableDealNotes(this)] : null,
      over ? this.gameOverBox(ranking, { markYou: true }) : this.nextDealBox(t('btn.next_deal')));
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
      h('td', null, this.nameOf(s.seat), closer ? h('span', { class: 'badge badge-closed' }, t('ir.closed_badge')) : null),
      h('td', null,
        h('div', { class: 'ir-melds' }, meldCards(b.table_melds || [], 'on-table'), meldCards(b.hand_melds || [], 'in-hand')),
        h('span', { class: 'small muted' },
          (b.table_melds || []).length ? t('ir.on_table_points', { n: b.table_points }) : t('ir.nothing_laid'),
          b.hand_points ? ` · ${t('ir.in_hand_points', { n: b.hand_points })}` : '',
          b.bonus ? ` · ${t('ir.close_points', { n: b.bonus })}` : '')),
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
      h('h2', null, t('scores.title')),
      h('p', { class: 'muted small' }, this.matchLength(deals, target, 'scores.open_game')),
      h('div', { class: 'scores-wrap' },
        h('table', { class: 'score-table' },
          this.scoreHead(t('col.deal'), seats),
          h('tbody', null, results.length
            ? results.map((r) => h('tr', null,
              h('th', { scope: 'row' }, r.deal ?? '', r.winner !== null && r.winner !== undefined
                ? h('sup', { title: t(this.about(r.winner, 'ir.closed_title'), { name: this.nameOf(r.winner) }) }, t('ir.closed_mark')) : null),
              seats.map((s) => {
                const p = bySeat(r.points, s.seat) ?? 0;
                return h('td', { class: cls('num', s.seat === r.winner && 'won', p < 0 && 'lost') }, signed(p));
              })))
            : this.noScoresRow(seats, t('scores.none_yet'))),
          this.scoreTotals(seats, (s) => (s.score ?? 0) === best && results.length))));
  }

  describe(ev) {
    const who = this.nameOf(ev.seat);
    switch (ev.kind) {
      case 'took':
        return tn(this.about(ev.seat, (ev.above || []).length ? 'ir.log_took_above' : 'ir.log_took'), {
          name: who, card: cardLabel(ev.card), n: (ev.above || []).length,
          cards: (ev.meld?.cards || []).map(cardLabel).join(' '),
        });
      case 'closed':
        return t(this.about(ev.seat, 'ir.log_closed'), { name: who, card: cardLabel(ev.card), bonus: ev.bonus });
      case 'stock_out':
        return t('ir.log_stock_out');
      case 'deal_over':
        return ev.winner !== null && ev.winner !== undefined
          ? t(this.about(ev.winner, 'ir.log_deal_closed'), { n: ev.deal, name: this.nameOf(ev.winner) })
          : t('ir.log_deal_stock', { n: ev.deal });
      default:
        return super.describe(ev);
    }
  }
}
