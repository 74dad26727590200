// Playing cards drawn as inline SVG.
//
// A card id is rank + suit (+ an optional deck digit in two-deck games):
// ranks A23456789TJQK, suits S H D C, e.g. "TD" (ten of diamonds), "TD2".
// Suit shapes are SVG paths in one hidden sprite (installCardSprite), so the
// cards look the same whatever fonts the machine has.

import { esc, on } from './dom.js';
import { t } from './i18n.js';

const RANKS = 'A23456789TJQK';
// Names for screen readers are in the dictionaries: `card.suit.S`, `card.rank.Q`,
// put together by `card.name` ("queen of spades", "dama pik", "spar dame").
export const SUITS = {
  S: { symbol: '♠', red: false },
  H: { symbol: '♥', red: true },
  D: { symbol: '♦', red: true },
  C: { symbol: '♣', red: false },
};
// Suit order for sorting alternates colours so neighbouring suits stand apart.
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };

/** {id, rank, suit, deck, index (1..13), label ("10"), symbol, red, name} or null. */
export function parseCard(id) {
  if (typeof id !== 'string' || id.length < 2) return null;
  const rank = id[0];
  const suit = id[1];
  if (!RANKS.includes(rank) || !SUITS[suit]) return null;
  const deck = id.slice(2);
  const info = SUITS[suit];
  return {
    id,
    rank,
    suit,
    deck,
    index: RANKS.indexOf(rank) + 1,
    label: rank === 'T' ? '10' : rank,
    symbol: info.symbol,
    red: info.red,
    name: cardName(rank, suit, deck),
  };
}

/** The full name of a card in the player's language: "queen of spades (deck 2)", "dame de pique". */
export function cardName(rank, suit, deck = '') {
  const name = t('card.name', { rank: t(`card.rank.${rank}`), suit: t(`card.suit.${suit}`) });
  return deck ? t('card.name_deck', { name, deck }) : name;
}

/** Short text for logs and hints: "10♦". */
export function cardLabel(id) {
  const card = parseCard(id);
  return card ? `${card.label}${card.symbol}` : String(id);
}

/** Card points in Basic Rummy: A = 1, 2-10 face value, J Q K = 10. */
export function cardValue(id) {
  const card = parseCard(id);
  return card ? Math.min(card.index, 10) : 0;
}

/** A sorted copy: by suit then rank ("suit"), or by rank then suit ("rank"). */
export function sortCards(cards, mode = 'suit') {
  const key = (id) => {
    const c = parseCard(id);
    if (!c) return [99, 99, id];
    return mode === 'rank'
      ? [c.index, SUIT_ORDER[c.suit], c.deck]
      : [SUIT_ORDER[c.suit], c.index, c.deck];
  };
  return sortByKey(cards, key);
}

/** A sorted copy, ordered by `key(card)`: a list compared item by item. */
export function sortByKey(cards, key) {
  return [...cards].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i += 1) {
      if (ka[i] < kb[i]) return -1;
      if (ka[i] > kb[i]) return 1;
    }
    return 0;
  });
}

const SUIT_PATHS = {
  H: '<path d="M50 92C22 68 2 50 2 29 2 13 14 3 28 3c11 0 18 7 22 16 4-9 11-16 22-16 14 0 26 10 26 26 0 21-20 39-48 63z"/>',
  D: '<path d="M50 2 86 50 50 98 14 50z"/>',
  S: '<path d="M50 2c10 18 48 36 48 60 0 15-11 24-24 24-9 0-16-4-20-11 1 11 6 18 15 23H31c9-5 14-12 15-23-4 7-11 11-20 11C13 86 2 77 2 62 2 38 40 20 50 2z"/>',
  C: '<circle cx="50" cy="27" r="21"/><circle cx="26" cy="58" r="21"/><circle cx="74" cy="58" r="21"/>'
    + '<circle cx="50" cy="52" r="12"/><path d="M46 56c0 22-5 34-15 42h38c-10-8-15-20-15-42z"/>',
};

/** Puts the suit shapes and the card-back pattern into the page once. */
export function installCardSprite() {
  installSprite('kartu-card-sprite', `${symbolsMarkup(SUIT_PATHS, 'suit-')}
      <pattern id="card-back-weave" width="8" height="8" patternUnits="userSpaceOnUse"
        patternTransform="rotate(45)">
        <rect width="8" height="8" fill="#7d1d2b"/>
        <rect width="4" height="8" fill="#96283a"/>
      </pattern>
    `);
}

/** `<symbol>`s (100×100) named `prefix + key`, one per shape of `paths`. */
export function symbolsMarkup(paths, prefix) {
  return Object.entries(paths)
    .map(([key, shape]) => `<symbol id="${prefix}${key}" viewBox="0 0 100 100">${shape}</symbol>`)
    .join('');
}

/** Puts a hidden SVG holding `defs` into the page once, as element `id`. */
export function installSprite(id, defs) {
  if (document.getElementById(id)) return;
  const holder = document.createElement('div');
  holder.innerHTML = `<svg id="${id}" aria-hidden="true" focusable="false"
    class="svg-sprite" width="0" height="0"><defs>${defs}</defs></svg>`;
  document.body.prepend(holder.firstElementChild);
}

function cornerMarkup(card) {
  const tight = card.label.length > 1 ? ' letter-spacing="-2"' : '';
  return `<text x="14" y="27" class="card-rank" text-anchor="middle"${tight}>${esc(card.label)}</text>`
    + `<use href="#suit-${card.suit}" x="6" y="32" width="16" height="16"/>`;
}

function centreMarkup(card) {
  if ('JQK'.includes(card.rank)) {
    return '<rect x="25" y="30" width="50" height="80" rx="6" class="card-frame"/>'
      + `<text x="50" y="80" class="card-face" text-anchor="middle">${card.rank}</text>`
      + `<use href="#suit-${card.suit}" x="42" y="86" width="16" height="16"/>`;
  }
  const size = card.rank === 'A' ? 54 : 42;
  const at = (100 - size) / 2;
  return `<use href="#suit-${card.suit}" x="${at}" y="${at + 20}" width="${size}" height="${size}"/>`;
}

/** The SVG markup of a face-up card. */
export function cardFaceSvg(id) {
  const card = parseCard(id);
  if (!card) return cardBackSvg();
  const deck = card.deck
    ? `<text x="93" y="15" class="card-deck" text-anchor="end">${esc(card.deck)}</text>` : '';
  return `<svg class="card-svg" viewBox="0 0 100 140" aria-hidden="true" focusable="false">
    <rect x="1" y="1" width="98" height="138" rx="9" class="card-bg"/>
    <g class="card-ink">${cornerMarkup(card)}
      <g transform="rotate(180 50 70)">${cornerMarkup(card)}</g>${centreMarkup(card)}</g>${deck}
  </svg>`;
}

/** The SVG markup of a card back. */
export function cardBackSvg() {
  return `<svg class="card-svg" viewBox="0 0 100 140" aria-hidden="true" focusable="false">
    <rect x="1" y="1" width="98" height="138" rx="9" class="card-bg"/>
    <rect x="8" y="8" width="84" height="124" rx="5" fill="url(#card-back-weave)"/>
    <rect x="12" y="12" width="76" height="116" rx="3" class="card-back-line"/>
    <circle cx="50" cy="70" r="15" class="card-back-seal"/>
    <text x="50" y="77" text-anchor="middle" class="card-back-mark">K</text>
  </svg>`;
}

/**
 * A card element.
 * - `interactive`: a toggle button (aria-pressed = `selected`), else a span;
 * - `faceDown`: draws the back and leaves the id out of the page entirely;
 * - `testid`, `title`, `className`, `onClick` as usual.
 */
export function cardElement(id, {
  interactive = false, selected = false, faceDown = false, testid = null,
  title = null, className = '', onClick = null, disabled = false,
} = {}) {
  const card = faceDown ? null : parseCard(id);
  const el = cardShell({
    interactive, selected, disabled, testid, onClick, label: title || (card ? card.name : t('card.face_down')),
  });
  el.className = ['card', faceDown ? 'is-back' : '', card?.red ? 'is-red' : '',
    selected ? 'is-selected' : '', className].filter(Boolean).join(' ');
  if (card) el.dataset.card = card.id;
  el.title = card ? cardLabel(card.id) : '';
  el.innerHTML = card ? cardFaceSvg(card.id) : cardBackSvg();
  return el;
}

/** The element of a card of any deck: a toggle button when `interactive`, else an image. */
export function cardShell({ interactive, selected, disabled, testid, label, onClick }) {
  const el = document.createElement(interactive ? 'button' : 'span');
  if (testid) el.dataset.testid = testid;
  if (interactive) {
    el.type = 'button';
    el.setAttribute('aria-pressed', selected ? 'true' : 'false');
    if (disabled) el.disabled = true;
  } else {
    el.setAttribute('role', 'img');
  }
  el.setAttribute('aria-label', label);
  if (onClick) on(el, 'click', onClick);
  return el;
}
