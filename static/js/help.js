// Help at the table: the Rules button, the link to a finished game's replay,
// and a deal's result explained line by line, in the words of
// static/js/lang/pages.*.js. Each table calls these from its own rendering.

import { cardLabel } from './cards.js';
import { h } from './dom.js';
import { has, listText, t } from './i18n.js';
import { openRules, pageText } from './rules.js';
import { bySeat, signed } from './ui.js';

/** The Rules button of a table of `game`: the rules open in a dialog over the table. */
export function rulesButton(game) {
  return h('button', {
    type: 'button', class: 'btn btn-small btn-ghost', testid: 'btn-rules',
    title: pageText('rules.button_title'), onclick: () => openRules(game),
  }, pageText('rules.button'));
}

/** The page that steps through a finished game. */
export function replayUrl(roomId) {
  return `/?replay=${encodeURIComponent(roomId)}`;
}

/** "Watch the replay", a link to the replay of the game played in `roomId`. */
export function replayLink(roomId, { small = false, label = null } = {}) {
  return h('a', {
    href: replayUrl(roomId), class: small ? 'btn btn-small btn-quiet replay-link' : 'btn replay-link',
    testid: small ? `replay-link-${roomId}` : 'btn-replay',
    title: pageText('replay.watch'), 'aria-label': pageText('replay.watch'),
  }, label || pageText('replay.watch'));
}

function brLines(r, name, seats) {
  if (r.void) return [pageText('why.br_void')];
  const lines = [pageText('why.br_out', { name: name(r.winner) })];
  const values = [];
  for (const s of seats) {
    if (s === r.winner) continue;
    const value = bySeat(r.hand_values, s) ?? 0;
    values.push(value);
    lines.push(pageText('why.br_hand', { name: name(s), value }));
  }
  lines.push(r.rummy
    ? pageText('why.br_rummy', { name: name(r.winner), sum: values.length > 1 ? `(${values.join(' + ')})` : String(values[0] ?? 0), points: r.points })
    : pageText('why.br_total', { name: name(r.winner), points: r.points }));
  return lines;
}

function trLines(r, name, seats) {
  if (r.void) return [pageText('why.tr_void')];
  const loser = seats.find((s) => s !== r.winner);
  const bonus = r.hunt && loser !== undefined
    ? (bySeat(r.penalties, loser) ?? 0) - (bySeat(r.hand_values, loser) ?? 0) : 0;
  const lines = r.hunt ? [pageText('why.tr_hunt_intro', { name: name(r.winner), bonus })] : [];
  for (const s of seats) {
    if (s === r.winner) {
      lines.push(pageText('why.tr_out', { name: name(s) }));
      continue;
    }
    const penalty = bySeat(r.penalties, s) ?? 0;
    const value = bySeat(r.hand_values, s) ?? 0;
    lines.push(pageText(r.hunt ? 'why.tr_hunt' : 'why.tr_penalty', { name: name(s), penalty, value, bonus }));
  }
  return lines;
}

/** The sets among `cards` (three or four of one rank), each as its card symbols. */
function setsAmong(cards) {
  const byRank = new Map();
  for (const c of cards || []) byRank.set(c[0], [...(byRank.get(c[0]) || []), c]);
  return [...byRank.values()].filter((group) => group.length >= 3)
    .map((group) => group.map(cardLabel).join(' '));
}

function irLines(r, name, options) {
  const closed = r.winner !== null && r.winner !== undefined;
  const handCounts = options?.hand_melds_count !== false;
  const lines = [
    closed
      ? pageText('why.ir_closed', { name: name(r.winner), card: cardLabel(r.closing_card), bonus: r.bonus })
      : pageText('why.ir_stock_out'),
    pageText(handCounts ? 'why.ir_rule' : 'why.ir_table_only'),
  ];
  for (const b of r.seats || []) {
    const parts = [];
    if (b.table_points) parts.push(pageText('why.ir_table', { n: b.table_points }));
    if (b.hand_points) parts.push(pageText('why.ir_hand', { n: b.hand_points }));
    if (b.minus_points) parts.push(pageText('why.ir_minus', { n: b.minus_points }));
    if (b.bonus) parts.push(pageText('why.ir_bonus', { n: b.bonus }));
    if (!parts.length) parts.push(pageText('why.ir_nothing'));
    lines.push(pageText('why.ir_line', { name: name(b.seat), parts: parts.join(', '), points: signed(b.points) }));
    // IR-16: sets count only with a sequence, on the table or among the hand's melds.
    if (!handCounts) continue;
    const sequence = [...(b.table_melds || []), ...(b.hand_melds || [])].some((m) => m.kind === 'run');
    const sets = sequence ? [] : setsAmong(b.minus_cards);
    if (sets.length) {
      lines.push(pageText(sets.length > 1 ? 'why.ir_no_sequence_sets' : 'why.ir_no_sequence',
        { name: name(b.seat), cards: listText(sets) }));
    }
  }
  return lines;
}

// The server's reasons for a Remmi Demmi penalty or a withdrawn offer, in words.
const RD_REASONS = {
  'looked at the cards before the sign': 'rd.reason.peeked',
  'tried to trade before the timer started': 'rd.reason.early_trade',
  'target claimed': 'rd.reason.target_claimed',
};

/** A Remmi Demmi reason in the player's words ('' for one we have no words for). */
export function rdReasonText(reason) {
  const key = RD_REASONS[reason] || `rd.reason.${reason}`;
  return has(key) ? t(key) : '';
}

function rdLines(r, name) {
  const claims = r.claims || [];
  const lines = claims.length
    ? claims.map((c) => pageText(c.valid ? 'why.rd_valid' : 'why.rd_invalid', {
      name: name(c.seat), awarded: c.awarded, points: signed(c.points),
    }))
    : [pageText('why.rd_none')];
  for (const p of r.penalties || []) {
    const reason = rdReasonText(p.reason);
    lines.push(reason
      ? pageText('why.rd_penalty', { name: name(p.seat), points: signed(p.points), reason })
      : pageText('why.rd_penalty_plain', { name: name(p.seat), points: signed(p.points) }));
  }
  return lines;
}

/**
 * The result `r` of the last deal of `game` explained, one line per part of
 * the score; `name(seat)` names a seat, `seats` lists them, `options` are the
 * table's. Null when there is nothing to explain.
 */
export function dealNotes(game, r, { name, seats, options = null }) {
  if (!r) return null;
  let lines;
  if (game === 'basic_rummy') lines = brLines(r, name, seats);
  else if (game === 'traditional_remi') lines = trLines(r, name, seats);
  else if (game === 'indonesian_remi') lines = irLines(r, name, options);
  else if (game === 'remmi_demmi') lines = rdLines(r, name);
  else return null;
  return h('details', { class: 'deal-notes', testid: 'deal-notes', open: true },
    h('summary', null, pageText('why.title')),
    h('ul', null, lines.map((line) => h('li', null, line))));
}

/** The notes of a table's current result (`table` is a BasicRummyTable or one built on it). */
export function tableDealNotes(table) {
  const v = table.view;
  return dealNotes(v?.game, v?.result, {
    name: (s) => table.nameOf(s, { you: null }),
    seats: (v?.seats || []).map((s) => s.seat).sort((a, b) => a - b),
    options: v?.options,
  });
}
