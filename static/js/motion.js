// Cards that visibly move: a copy of a card flies from one element of the
// table to another (a seat to the discard pile, a hand card to a meld...).
//
// The ends are named by their `data-testid` (or given as elements or
// rectangles), so the flight does not depend on the table's layout. The
// flight is a FLIP: the copy is placed at the end, transformed back to the
// start, then let go with a transform transition. With
// prefers-reduced-motion there is no flight at all: the table simply shows
// the new state.

import { cardElement } from './cards.js';

export const FLIGHT_MS = 360;

export function reducedMotion() {
  return !!window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
}

/** The first element of `root` with one of `testids` (a list, first match wins). */
export function byTestid(testids, root = document) {
  for (const id of [].concat(testids || [])) {
    if (!id) continue;
    const el = root.querySelector(`[data-testid="${CSS.escape(id)}"]`);
    if (el && el.isConnected) return el;
  }
  return null;
}

/** A rectangle worth flying from or to: on screen and not empty. */
function usable(rect) {
  return rect && rect.width > 0 && rect.height > 0;
}

function rectOf(end, root) {
  if (!end) return null;
  if (end instanceof Element) return end.getBoundingClientRect();
  if (typeof end.width === 'number' && typeof end.left === 'number') return end;
  const el = byTestid(end, root);
  return el ? el.getBoundingClientRect() : null;
}

/**
 * Flies a card from `from` to `to` (each: a testid, a list of testids, an
 * element or a DOMRect). `card`: its id, or null for a card back; `make(card)`
 * may draw it (another deck). Returns the flying element, or null (reduced
 * motion, or an end not on the page).
 */
export function flyCard({ from, to, card = null, make = null, root = document, delay = 0, label = '' }) {
  if (reducedMotion()) return null;
  const start = rectOf(from, root);
  const end = rectOf(to, root);
  if (!usable(start) || !usable(end)) return null;
  const face = make ? make(card) : cardElement(card, { faceDown: !card });
  // A copy to look at, never a card of the page: no id, no test id, no label.
  face.removeAttribute('data-card');
  face.removeAttribute('data-testid');
  face.removeAttribute('role');
  face.removeAttribute('aria-label');
  face.removeAttribute('title');
  const flight = document.createElement('div');
  flight.className = 'card-flight';
  flight.dataset.testid = 'card-flight';
  flight.setAttribute('aria-hidden', 'true');
  if (label) flight.dataset.flight = label;
  flight.append(face);
  // Sized like a card at the end (a hand card, a pile card, a meld card).
  const width = Math.min(end.width, end.height / 1.4, 90) || 60;
  const left = end.left + (end.width - width) / 2;
  const top = end.top + (end.height - width * 1.4) / 2;
  flight.style.width = `${width}px`;
  flight.style.left = `${left}px`;
  flight.style.top = `${top}px`;
  const scale = Math.max(0.4, Math.min(1.6, Math.min(start.width, start.height / 1.4) / width));
  const dx = start.left + start.width / 2 - (left + width / 2);
  const dy = start.top + start.height / 2 - (top + (width * 1.4) / 2);
  flight.style.transform = `translate(${dx}px, ${dy}px) scale(${scale})`;
  flight.style.opacity = '0.9';
  document.body.append(flight);
  // First: at the start. Last: at the end. Play: the transition in between.
  flight.getBoundingClientRect();
  const go = () => {
    flight.style.transition = `transform ${FLIGHT_MS}ms cubic-bezier(.2,.7,.3,1), opacity ${FLIGHT_MS}ms ease-out`;
    flight.style.transform = 'translate(0, 0) scale(1)';
    flight.style.opacity = '1';
  };
  if (delay) setTimeout(go, delay);
  else requestAnimationFrame(go);
  const done = () => flight.remove();
  flight.addEventListener('transitionend', (e) => {
    if (e.propertyName === 'transform') done();
  });
  setTimeout(done, FLIGHT_MS + delay + 250);
  return flight;
}
