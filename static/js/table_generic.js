// A plain table for games that have no dedicated browser table yet: it shows
// the seats, scores and the log, and lets the host fill and start the room.

import { BasicRummyTable } from './table_basic_rummy.js';
import { h } from './dom.js';
import { gameName, t } from './i18n.js';

export class GenericTable extends BasicRummyTable {
  // Nothing can be played here, so the table never calls its player to act.
  get myTurn() {
    return false;
  }

  gameTitle() {
    return this.view?.game ? gameName(this.view.game, this.view.room?.title) : t('game.card_game');
  }

  playArea() {
    return [
      h('div', { class: 'opponents' }, this.opponentSeats().map((s) => this.seatChip(s))),
      h('section', { class: 'me is-spectator' },
        h('p', { class: 'status', testid: 'status' },
          t('generic.not_playable')),
        this.errorLine()),
    ];
  }

  scoresPanel() {
    const seats = [...(this.view.seats || [])].sort((a, b) => a.seat - b.seat);
    return h('section', { class: 'panel scores', testid: 'scores' },
      h('h2', null, t('scores.title')),
      h('ul', { class: 'standings' }, seats.map((s) => h('li', null,
        h('span', null, this.nameOf(s.seat)), h('strong', null, String(s.score ?? 0))))));
  }
}
