// The table's feel: sounds, cards in flight and keyboard shortcuts, driven by
// what the table receives from the server (its events and states), not by
// the buttons pressed here.
//
// A table calls, besides making one `new TableFeel(table)`:
// - `onEvent(event)` for every live event (before the state it led to);
// - `onUpdate(previous, view)` once the new state is rendered;
// - `destroy()`.
//
// The server sends a change's events first, then the new state: an event
// finds the page as it was (the card still in the hand, the top of the pile
// still there), so the start of a flight is measured then; its end (a new
// meld, say) is looked up once the state is rendered.

import { flyCard } from './motion.js';
import { cueForEvent, playSound } from './sound.js';
import { TableKeys } from './keys.js';

// How long a flight waits for the state after its event before it goes anyway.
const STATE_WAIT_MS = 250;
// At most this many cards of one meld fly (a long run need not fly whole).
const MELD_FLIGHTS = 3;
const DISCARD_ENDS = ['discard-top', 'discard', 'discard-empty'];

export class TableFeel {
  constructor(table) {
    this.table = table;
    this.pending = [];
    this.timer = null;
    this.keys = new TableKeys(table.root, { busy: () => !!table.dragger?.active });
  }

  destroy() {
    clearTimeout(this.timer);
    this.pending = [];
    this.keys.destroy();
  }

  get you() {
    return this.table.you;
  }

  /** The element a seat's cards come from: your hand card, else the seat. */
  seatEnd(seat, card = null) {
    if (seat === this.you && seat !== null) return card ? [`card-${card}`, 'hand'] : ['hand'];
    return [`seat-${seat}`];
  }

  onEvent(event) {
    if (!event || typeof event !== 'object') return;
    const cue = cueForEvent(event);
    if (cue) playSound(cue);
    for (const flight of this.flightsFor(event)) this.later(flight);
  }

  onUpdate(previous, view) {
    const you = this.you;
    if (previous && view.phase === 'playing' && you !== null && view.turn === you
      && (previous.turn !== you || previous.phase !== 'playing')) {
      playSound('turn');
    }
    this.flush();
  }

  /** The flights an event asks for: {from, to, card}, `from` measured now. */
  flightsFor(ev) {
    const seat = typeof ev.seat === 'number' ? ev.seat : null;
    if (seat === null) return [];
    const root = this.table.root;
    const measure = (ends) => {
      for (const id of ends) {
        const el = root.querySelector(`[data-testid="${CSS.escape(id)}"]`);
        if (el) return el.getBoundingClientRect();
      }
      return null;
    };
    const mine = seat === this.you;
    switch (ev.kind) {
      case 'drew':
        // From the pile to the seat (a card from the stock stays face down).
        return [{
          from: measure(ev.from === 'discard' ? DISCARD_ENDS : ['stock']),
          to: this.seatEnd(seat, mine ? ev.card : null),
          card: ev.from === 'discard' ? ev.card : null,
          label: 'draw',
        }];
      case 'discarded':
        return [{ from: measure(this.seatEnd(seat, ev.card)), to: DISCARD_ENDS, card: ev.card, label: 'discard' }];
      case 'melded':
      case 'took': {
        const meld = ev.meld || {};
        const cards = (meld.cards || []).slice(0, MELD_FLIGHTS);
        return cards.map((card, i) => ({
          from: measure(ev.kind === 'took' && card === ev.card ? [`take-${card}`, 'discard'] : this.seatEnd(seat, card)),
          to: [`meld-${meld.id}`, 'melds'],
          card,
          delay: i * 60,
          label: 'meld',
        }));
      }
      case 'laid_off':
        return [{ from: measure(this.seatEnd(seat, ev.card)), to: [`meld-${ev.meld}`, 'melds'], card: ev.card, label: 'meld' }];
      default:
        return [];
    }
  }

  later(flight) {
    if (!flight.from) return;
    this.pending.push(flight);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), STATE_WAIT_MS);
  }

  flush() {
    clearTimeout(this.timer);
    const flights = this.pending.splice(0);
    for (const f of flights) {
      flyCard({ ...f, root: this.table.root, make: this.table.flightCard?.bind(this.table) });
    }
  }
}
