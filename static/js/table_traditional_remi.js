// The Traditional Remi table: the Basic Rummy table with two decks, penalty
// points and a prize pool.
//
// Terms (rules TR-n): two 52-card decks, so every card id carries its deck
// number (`AH1`, `AH2`), shown small in the card's corner. A turn is: draw,
// then any number of melds and *lay-offs* (a hand card added to any meld on
// the table: drag it onto the meld, or select it and click the meld), then
// discard. The player who gets rid of every card wins the deal; the others
// take *penalty points*, the value of their hand, plus 25 each on a *hunt*
// (the winner laid everything down in one turn). The lowest match total
// wins; with a *stake* each player pays into the *pot*, shared out at the end
// (`payouts`).

import { BasicRummyTable } from './table_basic_rummy.js';
import { cardElement, cardLabel, sortCards } from './cards.js';
import { h } from './dom.js';
import { CardDrag, bySeat, cls } from './ui.js';
import { tableDealNotes } from './help.js';
import { t } from './i18n.js';

const HUNT_BONUS = 25;

export class TraditionalRemiTable extends BasicRummyTable {
  constructor(root, ctx) {
    super(root, ctx);
    this.dragger = new CardDrag({
      root,
      cardSelector: '[data-testid="hand"] .card[data-card]',
      zoneSelector: '[data-meld], [data-drop="discard"]',
      canDrag: () => this.myTurn && this.view?.step === 'play' && !this.busy,
      onDrop: (card, zone) => this.dropCard(card, zone),
    });
  }

  destroy() {
    this.dragger.destroy();
    super.destroy();
  }


  layout() {
    const tree = super.layout();
    // The discard pile takes a dragged card as a discard.
    tree.querySelector('.pile-discard')?.setAttribute('data-drop', 'discard');
    const draggable = this.myTurn && this.view.step === 'play';
    for (const el of tree.querySelectorAll('[data-testid="hand"] .card[data-card]')) {
      el.classList.toggle('is-draggable', draggable);
    }
    return tree;
  }

  render() {
    super.render();
    this.dragger.markZones();
  }

  dropCard(card, zone) {
    if (!this.myTurn || this.view.step !== 'play') return;
    if (zone.dataset.drop === 'discard') {
      this.act({ kind: 'discard', card }, { clearSelection: true });
      return;
    }
    const meld = zone.dataset.meld;
    if (meld !== undefined) this.act({ kind: 'lay_off', card, meld }, { clearSelection: true });
  }

  // --- the match ---------------------------------------------------------------------

  get stake() {
    return Number(this.view?.options?.stake) || 0;
  }

  header() {
    const head = super.header();
    const v = this.view;
    const line = head.querySelector('.table-title p');
    if (line) {
      line.textContent = [
        this.dealProgress(),
        this.stake ? t('tr.stake', { n: this.stake }) : null,
        v.room?.spectators ? t('common.watching', { n: v.room.spectators }) : null,
      ].filter(Boolean).join(' · ');
    }
    return head;
  }

  leaders() {
    const seats = this.view.seats || [];
    if (!(this.view.results || []).length) return new Set();
    const low = Math.min(...seats.map((s) => s.score ?? 0));
    return new Set(seats.filter((s) => (s.score ?? 0) === low).map((s) => s.seat));
  }

  myTurnText() {
    return this.view.step === 'draw' ? t('br.turn_draw') : t('tr.turn_play');
  }

  gameOverText() {
    return `${t('tr.match_over')} ${this.winnersText()}`;
  }

  dealOverText(r) {
    if (r.void) return t('tr.deal_void', { n: r.deal });
    return t(this.about(r.winner, r.hunt ? 'tr.went_out_hunt' : 'tr.went_out'), { name: this.nameOf(r.winner) });
  }

  drawHint() {
    return t('tr.hint_draw'); // a taken discard may go straight back (TR-8)
  }

  hintText() {
    const v = this.view;
    if (this.myTurn && v.step === 'play' && this.selected.size === 1) {
      const [id] = [...this.selected];
      if (id === v.must_not_discard) return t('why.discard_just_taken', { card: cardLabel(id) });
      return this.allMelds().length
        ? t('tr.hint_discard_or_lay_off', { card: cardLabel(id) })
        : t('hint.discard_q', { card: cardLabel(id) });
    }
    if (this.myTurn && v.step === 'play' && this.selected.size === 0) return t('tr.hint_select');
    if (this.myTurn && v.step === 'play' && this.selected.size >= 3) return t('tr.hint_meld_n', { n: this.selected.size });
    return super.hintText();
  }

  winnersText() {
    return this.winnersSentence({ you: t('tr.win_you'), wins: 'tr.win_one' });
  }

  resultPanel() {
    const v = this.view;
    const r = v.result;
    const seats = this.seatsInOrder();
    const over = v.phase === 'game_over';
    return h('section', { class: cls('result', over && 'is-final'), testid: 'result', role: 'status' },
      r ? [this.dealSummary(r, seats), tableDealNotes(this)] : null,
      over ? this.matchSummary(seats) : this.nextDealBox(t('btn.next_deal')));
  }

  dealSummary(r, seats) {
    const title = r.void
      ? t('tr.result_void_title', { n: r.deal })
      : t(this.about(r.winner, 'result.went_out_title'), { n: r.deal, name: this.nameOf(r.winner) });
    return [
      h('h2', null, title, r.hunt ? h('span', { class: 'badge badge-hunt', testid: 'hunt' }, t('tr.hunt')) : null),
      h('div', { class: 'result-table-wrap' },
        h('table', { class: 'result-hands fan-cards' },
          h('thead', null, h('tr', null, h('th', null, t('col.player')), h('th', null, t('col.cards_left')),
            h('th', { class: 'num' }, t('col.value')), h('th', { class: 'num' }, t('col.penalty')))),
          h('tbody', null, seats.map((s) => {
            const cards = bySeat(r.hands, s.seat) || [];
            const value = bySeat(r.hand_values, s.seat);
            const penalty = bySeat(r.penalties, s.seat) ?? 0;
            const won = s.seat === r.winner;
            return h('tr', { class: cls(won && 'is-winner'), testid: `result-row-${s.seat}` },
              h('td', null, this.nameOf(s.seat)),
              h('td', null, cards.length
                ? h('span', { class: 'result-cards' }, sortCards(cards, 'suit').map((c) => cardElement(c)))
                : h('span', { class: 'muted small' }, won ? t('result.out') : '—')),
              h('td', { class: 'num' }, value ?? '—'),
              h('td', { class: 'num penalty', testid: `penalty-${s.seat}` },
                won ? '0' : `+${penalty}`,
                r.hunt && !won ? h('small', { class: 'hunt-extra' }, ` (${value ?? 0}+${HUNT_BONUS})`) : null));
          })))),
    ];
  }

  matchSummary(seats) {
    const v = this.view;
    const ranking = [...seats].sort((a, b) => (a.score ?? 0) - (b.score ?? 0));
    const payouts = Array.isArray(v.payouts) ? v.payouts : null;
    const winners = new Set(v.winners || []);
    const best = ranking.length ? ranking[0].score ?? 0 : 0;
    return h('div', { class: 'game-over', testid: 'game-over' },
      h('h3', null, this.winnersText() || t('tr.match_over')),
      h('p', { class: 'muted small' }, t('tr.lowest_wins')),
      h('div', { class: 'result-table-wrap' },
        h('table', { class: 'result-hands match-table', testid: 'standings' },
          h('thead', null, h('tr', null, h('th', null, '#'), h('th', null, t('col.player')),
            h('th', { class: 'num' }, t('col.penalties')), h('th', { class: 'num col-behind' }, t('col.behind')),
            payouts ? h('th', { class: 'num' }, t('col.chips')) : null)),
          h('tbody', null, ranking.map((s, i) => h('tr', {
            class: cls(winners.has(s.seat) && 'is-winner', s.seat === this.you && 'is-you'),
            testid: `standing-${s.seat}`,
          },
          h('td', null, String(i + 1)),
          h('td', null, this.nameOf(s.seat)),
          h('td', { class: 'num' }, String(s.score ?? 0)),
          h('td', { class: 'num muted col-behind' }, winners.has(s.seat) ? '—' : String((s.score ?? 0) - best)),
          payouts ? h('td', { class: 'num chips', testid: `payout-${s.seat}` }, String(payouts[s.seat] ?? 0)) : null))))),
      payouts ? this.potSplit(payouts, seats) : null,
      this.lobbyButton());
  }

  potSplit(payouts, seats) {
    const v = this.view;
    const pot = Number(v.pot) || this.stake * seats.length;
    const total = payouts.reduce((a, b) => a + (Number(b) || 0), 0) || 1;
    const colours = ['#e8b935', '#4ade80', '#7dd3fc', '#f0a3c1'];
    return h('div', { class: 'pot-split', testid: 'pot-split' },
      h('p', { class: 'pot-line' },
        h('strong', null, `${t('tr.prize_pool')} `),
        h('span', { testid: 'pot' }, t('tr.n_chips', { n: pot })),
        h('span', { class: 'muted small' }, ` (${t('tr.pot_from', { players: seats.length, stake: this.stake })})`)),
      h('div', { class: 'pot-bar', role: 'img', 'aria-label': t('tr.pot_bar') },
        seats.filter((s) => payouts[s.seat] > 0).map((s) => h('span', {
          class: 'pot-slice',
          style: `flex-grow: ${payouts[s.seat]}; background: ${colours[s.seat % colours.length]}`,
          title: `${this.nameOf(s.seat)}: ${payouts[s.seat]}`,
        }, payouts[s.seat] / total >= 0.12 ? `${this.nameOf(s.seat)} ${payouts[s.seat]}` : ''))),
      h('p', { class: 'muted small' },
        t('tr.pot_rule')));
  }

  scoresPanel() {
    const v = this.view;
    const seats = this.seatsInOrder();
    const results = this.dealResults();
    const deals = v.options?.deals;
    const leaders = this.leaders();
    return h('section', { class: 'panel scores', testid: 'scores' },
      h('h2', null, t('col.penalties')),
      h('p', { class: 'muted small' },
        [deals ? t('tr.deals_lowest', { n: deals }) : t('tr.lowest_total'),
          this.stake ? t('tr.pot_n', { n: Number(v.pot) || this.stake * seats.length }) : null]
          .filter(Boolean).join(' · ')),
      h('div', { class: 'scores-wrap' },
        h('table', { class: 'score-table' },
          this.scoreHead(t('col.deal'), seats),
          h('tbody', null, results.length
            ? results.map((r) => h('tr', { class: cls(r.void && 'is-void') },
              h('th', { scope: 'row' }, r.deal ?? '', r.hunt ? h('sup', { title: t('tr.hunt_title', { bonus: HUNT_BONUS }) }, t('tr.hunt_mark')) : null),
              seats.map((s) => h('td', { class: 'num' },
                r.void ? '·' : s.seat === r.winner
                  ? h('span', { class: 'won', title: t('tr.went_out_title') }, '✓')
                  : `+${bySeat(r.penalties, s.seat) ?? 0}`))))
            : this.noScoresRow(seats, t('scores.none_yet'))),
          this.scoreTotals(seats, (s) => leaders.has(s.seat)))));
  }

  describe(ev) {
    switch (ev.kind) {
      case 'deal_over':
        if (ev.void) return t('tr.log_void', { n: ev.deal });
        return t(this.about(ev.winner, ev.hunt ? 'tr.log_went_out_hunt' : 'tr.log_went_out'), { name: this.nameOf(ev.winner), bonus: HUNT_BONUS });
      case 'stock_shuffled':
        return t('tr.log_shuffled');
      case 'game_over':
        return t('tr.log_match_over');
      default:
        return super.describe(ev);
    }
  }
}
