// The replay of a finished game, move by move, with every hand face up.
//
// Route: /?replay=ROOM_ID. The server replays the game's record and serves
// its steps a page at a time (GET /api/rooms/ROOM_ID/replay/steps): step 0 is
// the first deal as dealt, step i the table after the i-th move, each with
// the spectator's view (`table`) and what each seat's own view adds (`own`:
// the hand). A daily deal's replay opens once its UTC day is over (403 before).

import { cardElement, cardLabel, installCardSprite, sortCards } from './cards.js';
import { h, mount } from './dom.js';
import { dealNotes } from './help.js';
import { gameName } from './i18n.js';
import { pageText } from './rules.js';
import { cls } from './ui.js';

const PAGE = 100;
const SPEEDS = [0.5, 1, 2, 4];
const STEP_MS = 1200;
// A game that just ended may not be saved yet: its replay is asked again.
const NOT_YET_RETRIES = 4;

class LoadError extends Error {
  constructor(status, code) {
    super(code || String(status));
    this.status = status;
    this.code = code;
  }
}

async function fetchSteps(roomId, start) {
  const url = `/api/rooms/${encodeURIComponent(roomId)}/replay/steps?start=${start}&limit=${PAGE}`;
  const response = await fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new LoadError(response.status, body?.code);
  return body;
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

export class ReplayPage {
  constructor(root, roomId, { onLobby = null } = {}) {
    this.root = root;
    this.roomId = String(roomId);
    this.onLobby = onLobby;
    this.pages = new Map();
    this.loading = new Map();
    this.index = 0;
    this.total = 0;
    this.meta = null;
    this.playing = null;
    this.speed = 1;
    this.closed = false;
    this.rd = null;
    this.failure = null;
    this.onKey = (e) => this.key(e);
    window.addEventListener('keydown', this.onKey);
    installCardSprite();
    mount(this.root, h('div', { class: 'loading', testid: 'replay-loading' }, pageText('replay.loading')));
    this.start();
  }

  destroy() {
    this.closed = true;
    this.stop();
    window.removeEventListener('keydown', this.onKey);
    document.title = 'Kartu';
  }

  async start() {
    let first = null;
    for (let attempt = 0; ; attempt += 1) {
      try {
        first = await fetchSteps(this.roomId, 0);
        break;
      } catch (err) {
        if (err.status === 404 && attempt < NOT_YET_RETRIES) {
          await sleep(1000);
          if (this.closed) return;
          continue;
        }
        if (!this.closed) this.fail(err);
        return;
      }
    }
    if (this.closed) return;
    this.meta = first;
    this.total = first.total;
    this.pages.set(0, first.steps);
    if (first.game === 'remmi_demmi') {
      const mod = await import('./table_remmi_demmi.js');
      mod.installRdSprite();
      this.rd = mod.rdCardElement;
    }
    this.render();
  }

  /** The language changed: the same step, still playing (or not) at the same speed, in the new words. */
  retranslate() {
    if (this.failure) this.fail(this.failure);
    else if (this.meta) this.render();
    else mount(this.root, h('div', { class: 'loading', testid: 'replay-loading' }, pageText('replay.loading')));
  }

  fail(err) {
    this.failure = err;
    const key = err.code === 'daily_private' ? 'replay.private'
      : err.code === 'no_replay' ? 'replay.missing'
        : err.code === 'replay_too_long' ? 'replay.too_long' : 'replay.error';
    mount(this.root, h('div', { class: 'panel message-panel replay-unavailable', testid: 'replay-unavailable', dataset: { code: err.code || '' } },
      h('h1', null, pageText('replay.title')),
      h('p', null, pageText(key)),
      this.lobbyButton()));
  }

  lobbyButton() {
    return h('a', {
      href: '/', class: 'btn btn-primary', testid: 'btn-lobby',
      onclick: (e) => {
        if (!this.onLobby) return;
        e.preventDefault();
        this.onLobby();
      },
    }, pageText('replay.lobby'));
  }

  // --- steps -----------------------------------------------------------------------

  step(i) {
    return this.pages.get(Math.floor(i / PAGE))?.[i % PAGE] ?? null;
  }

  async ensure(i) {
    const page = Math.floor(i / PAGE);
    if (this.pages.has(page)) return;
    if (!this.loading.has(page)) {
      this.loading.set(page, fetchSteps(this.roomId, page * PAGE)
        .then((body) => this.pages.set(page, body.steps))
        .finally(() => this.loading.delete(page)));
    }
    await this.loading.get(page);
  }

  async go(i) {
    const target = Math.max(0, Math.min(this.total - 1, Math.round(i)));
    this.index = target;
    try {
      await this.ensure(target);
      if (target > 0) await this.ensure(target - 1);
    } catch (err) {
      this.stop();
      this.fail(err);
      return;
    }
    if (this.closed || this.index !== target) return;
    this.render();
    // The next page comes before it is needed.
    if (target + PAGE / 2 < this.total) this.ensure(target + PAGE / 2).catch(() => {});
  }

  play() {
    if (this.index >= this.total - 1) this.index = 0;
    this.stop();
    this.playing = setInterval(() => {
      if (this.index >= this.total - 1) {
        this.stop();
        this.render();
        return;
      }
      this.go(this.index + 1);
    }, STEP_MS / this.speed);
    this.render();
  }

  stop() {
    clearInterval(this.playing);
    this.playing = null;
  }

  toggle() {
    if (this.playing) {
      this.stop();
      this.render();
    } else {
      this.play();
    }
  }

  setSpeed(speed) {
    this.speed = speed;
    if (this.playing) this.play();
    else this.render();
  }

  key(e) {
    if (!this.meta || e.target.closest?.('input, select, textarea')) return;
    if (e.key === 'ArrowRight') this.go(this.index + 1);
    else if (e.key === 'ArrowLeft') this.go(this.index - 1);
    else return;
    e.preventDefault();
  }

  // --- words -----------------------------------------------------------------------

  name(seat) {
    if (seat === null || seat === undefined) return '';
    const name = this.meta.seat_names?.[seat];
    return name ? String(name).replace(/\s*\(bot\)$/i, '') : pageText('replay.seat', { n: Number(seat) + 1 });
  }

  /** What happened at step `i`, in words. */
  describe(i) {
    const step = this.step(i);
    const entry = step?.entry;
    if (!entry) return pageText('act.dealt');
    if (entry.timeout) return pageText('act.timeout');
    const a = entry.action || {};
    const name = this.name(entry.seat);
    const cards = (list) => (list || []).map(cardLabel).join(' ');
    switch (a.kind) {
      case 'draw': {
        if (a.from === 'discard') {
          const drew = (step.events || []).find((e) => e.kind === 'drew');
          const prev = this.step(i - 1)?.view.table.discard || [];
          return pageText('act.draw_discard', { name, card: cardLabel(drew?.card || prev[prev.length - 1]) });
        }
        const before = this.step(i - 1)?.view.own[entry.seat]?.hand;
        const after = step.view.own[entry.seat]?.hand || [];
        const got = before ? after.filter((c) => !before.includes(c)) : [];
        return got.length === 1
          ? pageText('act.draw_stock_card', { name, card: cardLabel(got[0]) })
          : pageText('act.draw_stock', { name });
      }
      case 'take':
        return pageText('act.take', { name, card: cardLabel(a.card), cards: cards([a.card, ...(a.with || [])]) });
      case 'meld':
        return pageText('act.meld', { name, cards: cards(a.cards) });
      case 'lay_off':
        return pageText('act.lay_off', { name, card: cardLabel(a.card) });
      case 'discard':
        return pageText('act.discard', { name, card: cardLabel(a.card) });
      case 'offer':
        return (a.cards || []).length === 1
          ? pageText('act.offer_one', { name })
          : pageText('act.offer', { name, n: (a.cards || []).length });
      case 'close': case 'next_deal': case 'start_timer': case 'withdraw': case 'return':
      case 'keep': case 'claim': case 'reveal': case 'peek':
        return pageText(`act.${a.kind}`, { name });
      default:
        return pageText('act.other', { name, kind: String(a.kind || '?').replace(/_/g, ' ') });
    }
  }

  // --- drawing ---------------------------------------------------------------------

  card(id) {
    return this.rd ? this.rd(id) : cardElement(id);
  }

  sorted(cards) {
    return this.rd ? [...cards].sort() : sortCards(cards, 'suit');
  }

  render() {
    if (this.closed || !this.meta) return;
    const step = this.step(this.index);
    if (!step) return;
    document.title = `${pageText('replay.title')} · ${gameName(this.meta.game)} · Kartu`;
    const table = step.view.table;
    const own = step.view.own;
    const last = this.total - 1;
    const seats = [...(table.seats || [])].sort((a, b) => a.seat - b.seat);
    const button = (testid, label, text, onclick, disabled = false) => h('button', {
      type: 'button', class: 'btn btn-small', testid, 'aria-label': label, title: label, onclick, disabled,
    }, text);
    const slider = h('input', {
      type: 'range', min: 0, max: last, value: this.index, step: 1, testid: 'replay-slider',
      class: 'replay-slider', 'aria-label': pageText('replay.slider'),
      oninput: (e) => this.go(Number(e.target.value)),
    });
    slider.value = String(this.index);
    const speed = h('select', {
      testid: 'replay-speed', 'aria-label': pageText('replay.speed'),
      onchange: (e) => this.setSpeed(Number(e.target.value)),
    }, SPEEDS.map((s) => h('option', { value: s, selected: s === this.speed }, `${s}×`)));
    const over = table.phase === 'deal_over' || table.phase === 'game_over';
    mount(this.root, h('div', {
      class: 'replay', testid: 'replay', dataset: { step: this.index, total: this.total, phase: table.phase },
    },
    h('header', { class: 'replay-head' },
      h('div', null,
        h('h1', null, `${gameName(this.meta.game)} · ${pageText('replay.title')}`),
        h('p', { class: 'muted small' },
          table.deal ? pageText('replay.deal', { n: table.deal }) : '',
          table.phase === 'game_over' ? ` · ${pageText('replay.game_over')}` : '')),
      this.lobbyButton()),
    h('div', { class: 'replay-controls panel' },
      h('p', { class: 'replay-action', testid: 'replay-action', 'aria-live': 'polite' }, this.describe(this.index)),
      h('div', { class: 'replay-buttons' },
        button('btn-replay-first', pageText('replay.first'), '«', () => this.go(0), this.index === 0),
        button('btn-replay-prev', pageText('replay.prev'), `◀ ${pageText('replay.prev')}`, () => this.go(this.index - 1), this.index === 0),
        button('btn-replay-play', pageText(this.playing ? 'replay.pause' : 'replay.play'),
          this.playing ? `❚❚ ${pageText('replay.pause')}` : `▶ ${pageText('replay.play')}`, () => this.toggle()),
        button('btn-replay-next', pageText('replay.next'), `${pageText('replay.next')} ▶`, () => this.go(this.index + 1), this.index >= last),
        button('btn-replay-last', pageText('replay.last'), '»', () => this.go(last), this.index >= last),
        speed),
      h('div', { class: 'replay-progress' }, slider,
        h('span', { class: 'small muted', testid: 'replay-step' }, pageText('replay.step', { n: this.index, total: last })))),
    this.centre(table),
    h('div', { class: 'replay-seats' }, seats.map((s) => this.seatBox(s, table, own[s.seat] || {}))),
    over ? dealNotes(this.meta.game, table.result, {
      name: (s) => this.name(s), seats: seats.map((s) => s.seat), options: table.options,
    }) : null));
  }

  centre(table) {
    if (this.rd) {
      const men = table.point_men || [];
      return h('div', { class: 'replay-centre' },
        Array.isArray(men) && men.length
          ? h('span', { class: 'small replay-men' }, men.map((m) => `★${m}`).join(' '))
          : null);
    }
    const discard = Array.isArray(table.discard) ? table.discard : [];
    return h('div', { class: 'replay-centre' },
      h('span', { class: 'replay-stock', testid: 'replay-stock' }, pageText('replay.stock', { n: table.stock_count ?? 0 })),
      h('span', { class: 'replay-discard' },
        h('span', { class: 'small muted' }, pageText('replay.discard')),
        h('span', { class: 'result-cards', testid: 'replay-discard' }, discard.slice(-5).map((c) => this.card(c)))));
  }

  seatBox(s, table, own) {
    const hand = Array.isArray(own.hand) ? own.hand : [];
    const melds = (Array.isArray(table.melds) ? table.melds : (s.melds || []).map((m) => ({ ...m, owner: s.seat })))
      .filter((m) => m.owner === s.seat);
    const score = s.score ?? (Array.isArray(table.scores) ? table.scores[s.seat] : null) ?? 0;
    const offer = typeof s.offer === 'number' ? s.offer : s.offer?.size ?? null;
    const claimed = s.claimed !== null && s.claimed !== undefined;
    return h('section', {
      class: cls('replay-seat', table.turn === s.seat && table.phase === 'playing' && 'is-turn'),
      testid: `replay-seat-${s.seat}`,
    },
    h('div', { class: 'replay-seat-head' },
      h('strong', null, this.name(s.seat)),
      table.dealer === s.seat ? h('span', { class: 'tag tag-dealer' }, pageText('replay.dealer')) : null,
      table.turn === s.seat && table.phase === 'playing' && !this.rd
        ? h('span', { class: 'tag' }, pageText('replay.to_play')) : null,
      offer ? h('span', { class: 'tag' }, pageText('replay.offer', { n: offer })) : null,
      claimed ? h('span', { class: 'tag' }, pageText('replay.claimed')) : null,
      h('span', { class: 'replay-score', testid: `replay-score-${s.seat}` }, pageText('replay.points', { n: score }))),
    h('div', { class: 'replay-hand', testid: `replay-hand-${s.seat}`, 'aria-label': `${pageText('replay.hand')}: ${this.name(s.seat)}` },
      hand.length ? this.sorted(hand).map((c) => this.card(c)) : h('span', { class: 'muted small' }, pageText('replay.empty_hand'))),
    melds.length ? h('div', { class: 'replay-melds' }, melds.map((m) => h('span', { class: 'result-cards replay-meld' }, m.cards.map((c) => this.card(c))))) : null);
  }
}

