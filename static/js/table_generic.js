// A plain table for games that have no dedicated browser table yet: it shows
// the seats, scores and the log, and lets the host fill and start the room.

import { BasicRummyTable } from './table_basic_rummy.js';
import { h } from './dom.js';

const TITLES = { remmi_demmi: 'Remmi Demmi', indonesian_remi: 'Indonesian Remi' };

export class GenericTable extends BasicRummyTable {
  gameTitle() {
    return TITLES[this.view?.game] || String(this.view?.game || 'Card game').replace(/_/g, ' ');
  }

  playArea() {
    return [
      h('div', { class: 'opponents' }, this.opponentSeats().map((s) => this.seatChip(s))),
      h('section', { class: 'me is-spectator' },
        h('p', { class: 'status', testid: 'status' },
          'This game cannot be played in the browser yet: you can follow the seats, scores and moves.'),
        this.errorLine()),
    ];
  }

  scoresPanel() {
    const seats = [...(this.view.seats || [])].sort((a, b) => a.seat - b.seat);
    return h('section', { class: 'panel scores', testid: 'scores' },
      h('h2', null, 'Scores'),
      h('ul', { class: 'standings' }, seats.map((s) => h('li', null,
        h('span', null, this.nameOf(s.seat)), h('strong', null, String(s.score ?? 0))))));
  }
}
