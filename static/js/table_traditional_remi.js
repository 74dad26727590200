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
import { CardDrag, bySeat, cls, plural, renderTable } from './ui.js';
import { tableDealNotes } from './help.js';

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

  gameTitle() {
    return 'Traditional Remi';
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
    const title = `${this.myTurn ? '● Your turn · ' : ''}${this.gameTitle()} · Kartu`;
    if (!renderTable(this, { title })) super.render();
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
        this.stake ? `stake ${this.stake}` : null,
        v.room?.spectators ? `${v.room.spectators} watching` : null,
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
    return this.view.step === 'draw'
      ? 'Your turn: draw from the stock or take the top discard.'
      : 'Your turn: meld and lay off as much as you like, then discard.';
  }

  gameOverText() {
    return `Match over. ${this.winnersText()}`;
  }

  dealOverText(r) {
    if (r.void) return `Deal ${r.deal} ended without a winner: no penalties.`;
    return `${this.nameOf(r.winner)} went out${r.hunt ? ' in one go: a hunt!' : '.'}`;
  }

  hintText() {
    const v = this.view;
    if (this.myTurn && v.step === 'play' && this.selected.size === 1) {
      const [id] = [...this.selected];
      return this.allMelds().length
        ? `Discard ${cardLabel(id)}, or drag it (or click a meld) to lay it off.`
        : `Discard ${cardLabel(id)}?`;
    }
    if (this.myTurn && v.step === 'play' && this.selected.size === 0) {
      return 'Select cards to meld. Drag a card onto any meld to lay it off, or onto the pile to discard.';
    }
    if (this.myTurn && v.step === 'play' && this.selected.size >= 3) {
      return `Meld these ${this.selected.size} cards? You may lay down as many melds as you like.`;
    }
    return super.hintText();
  }

  winnersText() {
    return this.winnersSentence({ you: 'You win the match!', wins: 'wins the match' });
  }

  resultPanel() {
    const v = this.view;
    const r = v.result;
    const seats = this.seatsInOrder();
    const over = v.phase === 'game_over';
    return h('section', { class: cls('result', over && 'is-final'), testid: 'result', role: 'status' },
      r ? [this.dealSummary(r, seats), tableDealNotes(this)] : null,
      over ? this.matchSummary(seats) : this.nextDealBox('Next deal'));
  }

  dealSummary(r, seats) {
    const title = r.void
      ? `Deal ${r.deal}: no winner`
      : `Deal ${r.deal}: ${this.nameOf(r.winner)} went out`;
    return [
      h('h2', null, title, r.hunt ? h('span', { class: 'badge badge-hunt', testid: 'hunt' }, 'Hunt') : null),
      r.void
        ? h('p', { class: 'muted' }, 'The stock could not be rebuilt: nobody takes penalty points.')
        : h('p', { class: 'muted small', testid: 'hunt-note' }, r.hunt
          ? `${this.nameOf(r.winner)} laid every card down in a single turn: everyone else takes their hand's value plus ${HUNT_BONUS}.`
          : 'Everyone else takes the value of the cards left in their hand.'),
      h('div', { class: 'result-table-wrap' },
        h('table', { class: 'result-hands fan-cards' },
          h('thead', null, h('tr', null, h('th', null, 'Player'), h('th', null, 'Cards left'),
            h('th', { class: 'num' }, 'Value'), h('th', { class: 'num' }, 'Penalty'))),
          h('tbody', null, seats.map((s) => {
            const cards = bySeat(r.hands, s.seat) || [];
            const value = bySeat(r.hand_values, s.seat);
            const penalty = bySeat(r.penalties, s.seat) ?? 0;
            const won = s.seat === r.winner;
            return h('tr', { class: cls(won && 'is-winner'), testid: `result-row-${s.seat}` },
              h('td', null, this.nameOf(s.seat)),
              h('td', null, cards.length
                ? h('span', { class: 'result-cards' }, sortCards(cards, 'suit').map((c) => cardElement(c)))
                : h('span', { class: 'muted small' }, won ? 'out!' : '—')),
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
      h('h3', null, this.winnersText() || 'Match over'),
      h('p', { class: 'muted small' }, 'Lowest penalty total wins.'),
      h('div', { class: 'result-table-wrap' },
        h('table', { class: 'result-hands match-table', testid: 'standings' },
          h('thead', null, h('tr', null, h('th', null, '#'), h('th', null, 'Player'),
            h('th', { class: 'num' }, 'Penalties'), h('th', { class: 'num col-behind' }, 'Behind'),
            payouts ? h('th', { class: 'num' }, 'Chips') : null)),
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
        h('strong', null, 'Prize pool: '),
        h('span', { testid: 'pot' }, `${pot} chips`),
        h('span', { class: 'muted small' }, ` (${seats.length} × ${this.stake} stake)`)),
      h('div', { class: 'pot-bar', role: 'img', 'aria-label': 'How the pot is shared' },
        seats.filter((s) => payouts[s.seat] > 0).map((s) => h('span', {
          class: 'pot-slice',
          style: `flex-grow: ${payouts[s.seat]}; background: ${colours[s.seat % colours.length]}`,
          title: `${this.nameOf(s.seat)}: ${payouts[s.seat]}`,
        }, payouts[s.seat] / total >= 0.12 ? `${this.nameOf(s.seat)} ${payouts[s.seat]}` : ''))),
      h('p', { class: 'muted small' },
        'The winner takes at least 75%; the rest goes to players less than 80 points behind, the closer the more.'));
  }

  scoresPanel() {
    const v = this.view;
    const seats = this.seatsInOrder();
    const results = this.dealResults();
    const deals = v.options?.deals;
    const leaders = this.leaders();
    return h('section', { class: 'panel scores', testid: 'scores' },
      h('h2', null, 'Penalties'),
      h('p', { class: 'muted small' },
        [deals ? `${plural(deals, 'deal')}, lowest total wins` : 'Lowest total wins',
          this.stake ? `pot ${Number(v.pot) || this.stake * seats.length} chips` : null]
          .filter(Boolean).join(' · ')),
      h('div', { class: 'scores-wrap' },
        h('table', { class: 'score-table' },
          this.scoreHead('Deal', seats),
          h('tbody', null, results.length
            ? results.map((r) => h('tr', { class: cls(r.void && 'is-void') },
              h('th', { scope: 'row' }, r.deal ?? '', r.hunt ? h('sup', { title: 'Hunt: +25 each' }, 'H') : null),
              seats.map((s) => h('td', { class: 'num' },
                r.void ? '·' : s.seat === r.winner
                  ? h('span', { class: 'won', title: 'Went out' }, '✓')
                  : `+${bySeat(r.penalties, s.seat) ?? 0}`))))
            : this.noScoresRow(seats, 'No deal finished yet.')),
          this.scoreTotals(seats, (s) => leaders.has(s.seat)))));
  }

  describe(ev) {
    switch (ev.kind) {
      case 'deal_over':
        if (ev.void) return `Deal ${ev.deal} ended without a winner.`;
        return `${this.nameOf(ev.winner)} went out${ev.hunt ? ': a hunt, +25 to everyone else' : ''}.`;
      case 'stock_shuffled':
        return 'The discard pile was shuffled into a new stock.';
      case 'game_over':
        return 'The match is over.';
      default:
        return super.describe(ev);
    }
  }
}
