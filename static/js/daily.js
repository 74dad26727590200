// The daily deal: today's games and their leaderboards.
//
// Terms: every game has a *daily deal*, a solo game against bots whose cards
// are the same for everyone that UTC day. A player's first daily game of a
// game and day is *ranked* (it goes on the day's *leaderboard*); later ones
// are *practice*. Each day's *seed* is published as a *seed hash* at once and
// revealed once the day is over, so anyone can check the deals were fixed in
// advance: the page checks sha256("kartu-daily:{game}:{date}:{seed}") itself.
//
// Route: /?daily[&game=G][&date=YYYY-MM-DD][&limit=N] (the leaderboard shown,
// and how many of its lines).

import {
  createGuest, fetchDaily, fetchGames, fetchLeaderboard, fetchPlayerStats, loadIdentity, onIdentityChange, playDaily,
} from './api.js';
import { h, mount } from './dom.js';
import { replayLink } from './help.js';
import { cls } from './ui.js';
import { errorText, gameName, has, locale, t, tn } from './i18n.js';
import { nameLimit, NAME_MAX } from './lobby.js';

const BOARD_LIMIT = 20;

/** A daily game's status in words: `daily.status.<playing|finished|abandoned>`. */
function statusText(status) {
  return has(`daily.status.${status}`) ? t(`daily.status.${status}`) : t('daily.status.other');
}

function shortHash(hash) {
  return hash ? `${hash.slice(0, 10)}…${hash.slice(-6)}` : '';
}

function longDate(iso) {
  const [y, m, d] = iso.split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.toLocaleDateString(locale(), {
    weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC',
  });
}

function shiftDate(iso, days) {
  const [y, m, d] = iso.split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d + days));
  return date.toISOString().slice(0, 10);
}

function optionsSummary(info) {
  const bits = [];
  if (info.seats) bits.push(t('lobby.n_players', { n: info.seats }));
  const o = info.options || {};
  if (o.deals) bits.push(t('table.n_deals', { n: o.deals }));
  if (o.rounds) bits.push(t('daily.n_rounds', { n: o.rounds }));
  if (o.target) bits.push(t('daily.to_target', { n: o.target }));
  return bits.join(' · ');
}

/** sha256 hex of `text`, or null where the browser offers no crypto (plain http off localhost). */
async function sha256Hex(text) {
  if (!window.crypto?.subtle) return null;
  const digest = await window.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export class Daily {
  /** `onOpenRoom(roomId, game)` opens a daily room; `onNavigate(url)` changes the route quietly. */
  constructor(root, { onOpenRoom, onNavigate, game = null, date = null, limit = null }) {
    this.root = root;
    this.onOpenRoom = onOpenRoom;
    this.onNavigate = onNavigate;
    this.games = [];
    this.infos = new Map(); // game -> today's GET /api/daily answer
    this.today = null;
    this.boardGame = game;
    this.boardDate = date;
    this.limit = Number(limit) >= 1 && Number(limit) <= 500 ? Number(limit) : BOARD_LIMIT;
    this.board = null;
    this.boardInfo = null;
    this.boardError = null;
    this.stats = null;
    this.statsFor = null;
    this.opening = null;
    this.error = null;
    this.destroyed = false;
    this.unsubscribe = onIdentityChange(() => {
      // "Choose a name first" was about the name: once saved, it no longer holds.
      if (this.error === t('daily.name_first')) this.error = null;
      this.reload();
    });
    mount(root, h('div', { class: 'loading', testid: 'daily-loading' }, t('daily.loading')));
    this.load();
  }

  destroy() {
    this.destroyed = true;
    this.unsubscribe();
  }

  // --- data --------------------------------------------------------------------------

  async load() {
    try {
      this.games = await fetchGames();
      await this.loadInfos();
    } catch (err) {
      this.error = errorText(err);
    }
    if (this.destroyed) return;
    if (!this.boardGame || !this.games.some((g) => g.game === this.boardGame)) {
      this.boardGame = this.games[0]?.game ?? null;
    }
    this.today = this.infos.get(this.boardGame)?.date || [...this.infos.values()][0]?.date || null;
    if (!this.boardDate || (this.today && this.boardDate > this.today)) this.boardDate = this.today;
    this.render();
    this.loadBoard();
    this.loadStats(loadIdentity()?.player_id ?? null);
  }

  async loadInfos() {
    const answers = await Promise.all(this.games.map((g) => fetchDaily(g.game).catch(() => null)));
    this.games.forEach((g, i) => {
      if (answers[i]) this.infos.set(g.game, answers[i]);
    });
  }

  async reload() {
    if (this.destroyed) return;
    try {
      await this.loadInfos();
    } catch {
      // The cards keep what they showed.
    }
    this.render();
    this.loadBoard();
    this.loadStats(loadIdentity()?.player_id ?? null);
  }

  async loadBoard() {
    const game = this.boardGame;
    const date = this.boardDate;
    if (!game) return;
    const limit = this.limit === BOARD_LIMIT ? '' : `&limit=${this.limit}`;
    this.onNavigate?.(`/?daily&game=${encodeURIComponent(game)}${date ? `&date=${date}` : ''}${limit}`);
    try {
      const [board, info] = await Promise.all([fetchLeaderboard(game, date, this.limit), fetchDaily(game, date)]);
      if (this.destroyed || game !== this.boardGame || date !== this.boardDate) return;
      this.board = board;
      this.boardInfo = info;
      this.boardError = null;
      this.verified = null;
      if (info.seed !== null && info.seed !== undefined) {
        const hash = await sha256Hex(`kartu-daily:${game}:${info.date}:${info.seed}`);
        if (hash !== null) this.verified = hash === info.seed_hash;
      }
    } catch (err) {
      this.boardError = errorText(err);
    }
    if (!this.destroyed) this.renderBoard();
  }

  async loadStats(playerId) {
    this.statsFor = playerId;
    if (!playerId) {
      this.stats = null;
      this.renderStats();
      return;
    }
    try {
      const stats = await fetchPlayerStats(playerId);
      if (this.statsFor !== playerId) return;
      this.stats = stats;
    } catch (err) {
      this.stats = { error: errorText(err) };
    }
    if (!this.destroyed) this.renderStats();
  }

  async play(game) {
    if (this.opening) return;
    if (!loadIdentity()) {
      this.error = t('daily.name_first');
      this.render();
      this.root.querySelector('[data-testid="name-input"]')?.focus();
      return;
    }
    this.opening = game;
    this.error = null;
    this.render();
    try {
      const room = await playDaily(game);
      if (!this.destroyed) this.onOpenRoom(room.room_id, game);
    } catch (err) {
      this.error = errorText(err);
      this.opening = null;
      if (!this.destroyed) this.render();
    }
  }

  // --- layout ------------------------------------------------------------------------

  title(game) {
    return gameName(game, this.games.find((g) => g.game === game)?.title);
  }

  render() {
    if (this.destroyed) return;
    this.boardBox = h('section', { class: 'panel board', testid: 'leaderboard', 'aria-live': 'polite' });
    this.statsBox = h('section', { class: 'panel daily-stats', testid: 'player-stats' });
    mount(this.root,
      h('div', { class: 'daily', testid: 'daily' },
        h('section', { class: 'hero daily-hero' },
          h('p', { class: 'daily-kicker' }, t('daily.title')),
          h('h1', null, this.today ? longDate(this.today) : t('daily.today')),
          h('p', null, t('daily.intro'))),
        this.identityLine(),
        this.error ? h('p', { class: 'inline-error', testid: 'error', role: 'alert' }, this.error) : null,
        h('div', { class: 'daily-games', testid: 'daily-games' }, this.games.map((g) => this.gameCard(g))),
        h('div', { class: 'daily-grid' }, this.boardBox, this.statsBox),
        h('p', { class: 'daily-back' },
          h('a', {
            href: '/', testid: 'link-lobby', onclick: (e) => {
              e.preventDefault();
              this.onNavigate?.('/', { route: true });
            },
          }, `← ${t('common.back_to_lobby')}`))));
    this.renderBoard();
    this.renderStats();
  }

  identityLine() {
    const identity = loadIdentity();
    if (identity) return null;
    const input = h('input', {
      type: 'text', testid: 'name-input', placeholder: t('name.placeholder'), autocomplete: 'nickname',
      'aria-label': t('lobby.your_name'),
    });
    const form = h('form', { class: 'panel daily-name', novalidate: true },
      h('p', null, t('daily.pick_name')),
      h('div', { class: 'row' }, input,
        h('button', { type: 'submit', class: 'btn btn-primary', testid: 'btn-save-name' }, t('name.save'))),
      nameLimit(input));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (!name) {
        this.error = t('name.empty', { max: NAME_MAX });
        this.render();
        return;
      }
      try {
        await createGuest(name);
        this.error = null;
      } catch (err) {
        this.error = err.status === 422 ? t('name.invalid', { max: NAME_MAX }) : errorText(err);
        this.render();
      }
    });
    return form;
  }

  gameCard(g) {
    const info = this.infos.get(g.game);
    const you = info?.you;
    const busy = this.opening === g.game;
    let status = t('daily.not_played');
    if (you) {
      status = statusText(you.status);
      if (you.status === 'finished' && you.score !== null && you.score !== undefined) {
        status = you.rank ? t('daily.ranked_score_rank', { score: you.score, rank: you.rank }) : t('daily.ranked_score', { score: you.score });
      }
    }
    const action = you?.status === 'playing' ? 'resume' : (you ? 'practice' : 'play');
    const label = t(`daily.${action}`);
    return h('article', {
      class: cls('daily-game', this.boardGame === g.game && 'is-shown'), testid: `daily-game-${g.game}`,
    },
    h('div', { class: 'daily-game-head' },
      h('h2', null, gameName(g.game, g.title)),
      info?.ranking === 'lowest' ? h('span', { class: 'badge', title: t('daily.low_wins_title') }, t('daily.low_wins')) : null),
    h('p', { class: 'muted small' }, info ? optionsSummary(info) : ''),
    h('p', { class: cls('daily-status', you && `is-${you.status}`), testid: `daily-status-${g.game}` }, status),
    h('div', { class: 'daily-actions' },
      h('button', {
        type: 'button', class: cls('btn', action === 'practice' ? '' : 'btn-primary'), testid: `daily-play-${g.game}`,
        disabled: !!this.opening, onclick: () => this.play(g.game),
      }, busy ? t('clock.dealing') : label),
      h('button', {
        type: 'button', class: 'btn btn-quiet', testid: `daily-board-${g.game}`,
        onclick: () => this.showBoard(g.game, this.boardDate),
      }, t('daily.leaderboard'))),
    info ? h('p', { class: 'daily-hash small muted', title: info.seed_hash },
      `${t('daily.seed_hash')} `, h('code', { testid: `daily-hash-${g.game}` }, shortHash(info.seed_hash))) : null);
  }

  showBoard(game, date) {
    this.boardGame = game;
    this.boardDate = date || this.today;
    this.board = null;
    for (const card of this.root.querySelectorAll('.daily-game')) {
      card.classList.toggle('is-shown', card.dataset.testid === `daily-game-${game}`);
    }
    this.renderBoard();
    this.loadBoard();
    this.boardBox?.scrollIntoView({ behavior: 'smooth', block: 'nearest' });
  }

  renderBoard() {
    const box = this.boardBox;
    if (!box || this.destroyed) return;
    const today = this.today;
    const date = this.boardDate;
    const gameSelect = h('select', { testid: 'board-game', 'aria-label': t('lobby.game') },
      this.games.map((g) => h('option', { value: g.game, selected: g.game === this.boardGame }, gameName(g.game, g.title))));
    gameSelect.addEventListener('change', () => this.showBoard(gameSelect.value, this.boardDate));
    const dateInput = h('input', {
      type: 'date', testid: 'board-date', value: date || '', max: today || null, 'aria-label': t('daily.day_utc'),
    });
    dateInput.addEventListener('change', () => {
      if (/^\d{4}-\d{2}-\d{2}$/.test(dateInput.value)) this.showBoard(this.boardGame, dateInput.value);
    });
    const step = (days) => {
      const next = shiftDate(date, days);
      if (!today || next <= today) this.showBoard(this.boardGame, next);
    };
    const isToday = date === today;
    mount(box,
      h('div', { class: 'board-head' },
        h('h2', null, t('daily.leaderboard')),
        h('div', { class: 'board-pick' },
          gameSelect,
          h('div', { class: 'board-days' },
            h('button', {
              type: 'button', class: 'btn btn-small', testid: 'board-prev', 'aria-label': t('daily.day_before'),
              onclick: () => step(-1),
            }, '‹'),
            dateInput,
            h('button', {
              type: 'button', class: 'btn btn-small', testid: 'board-next', 'aria-label': t('daily.day_after'),
              disabled: isToday, onclick: () => step(1),
            }, '›')))),
      this.boardBody());
  }

  boardBody() {
    if (this.boardError) return h('p', { class: 'inline-error', role: 'alert' }, this.boardError);
    const board = this.board;
    if (!board) return h('p', { class: 'muted' }, t('daily.loading_board'));
    const me = loadIdentity();
    const entries = board.entries || [];
    const you = board.you;
    const mineListed = me && entries.some((e) => String(e.player_id) === String(me.player_id));
    const isToday = board.date === this.today;
    const row = (e, extra = '') => h('tr', {
      class: cls(me && String(e.player_id) === String(me.player_id) && 'is-you', extra),
      testid: `board-row-${e.rank}`, dataset: { player: e.player_id },
    },
    h('td', { class: 'num rank' }, e.rank <= 3 ? h('span', { class: `medal medal-${e.rank}` }, String(e.rank)) : String(e.rank)),
    h('td', null, h('button', {
      type: 'button', class: 'btn btn-quiet board-name', onclick: () => this.loadStats(e.player_id),
      title: t('daily.show_stats_title'),
    }, e.name), me && String(e.player_id) === String(me.player_id) ? h('span', { class: 'tag tag-you' }, t('tag.you')) : null),
    h('td', { class: 'num' }, String(e.score), e.room_id ? [' ', replayLink(e.room_id, { small: true, label: '▶' })] : null));
    const rows = entries.map((e) => row(e));
    if (you && !mineListed && you.rank) {
      rows.push(h('tr', { class: 'board-gap', 'aria-hidden': 'true' }, h('td', { colspan: 3 }, '⋯')));
      rows.push(row({ rank: you.rank, player_id: you.player_id, name: you.name, score: you.score }, 'is-outside'));
    }
    const info = this.boardInfo;
    return [
      h('p', { class: 'muted small board-note' },
        `${t('daily.n_ranked', { n: board.total ?? entries.length })} · `,
        board.ranking === 'lowest' ? t('daily.lowest_wins') : t('daily.highest_wins'),
        isToday ? ` · ${t('daily.still_open')}` : ''),
      entries.length
        ? h('div', { class: 'board-wrap' }, h('table', { class: 'board-table', testid: 'board-rows' },
          h('thead', null, h('tr', null, h('th', { class: 'num' }, '#'), h('th', null, t('col.player')), h('th', { class: 'num' }, t('col.score')))),
          h('tbody', null, rows)))
        : h('p', { class: 'empty-board', testid: 'board-empty' }, isToday
          ? t('daily.nobody_today')
          : t('daily.nobody_that_day')),
      you ? h('p', { class: 'board-you', testid: 'board-you' }, you.rank
        ? tn('daily.you_rank', { rank: h('strong', null, `#${you.rank}`), total: board.total, score: you.score })
        : statusText(you.status)) : null,
      info ? this.seedLine(info) : null,
    ];
  }

  seedLine(info) {
    const revealed = info.seed !== null && info.seed !== undefined;
    return h('div', { class: 'seed-line small', testid: 'board-seed' },
      revealed
        ? [h('span', null, `${t('daily.seed')} `, h('code', { testid: 'board-seed-value' }, String(info.seed))),
          h('span', { class: 'muted' }, ` · ${t('daily.hash')} `, h('code', { title: info.seed_hash }, shortHash(info.seed_hash))),
          this.verified === true ? h('span', { class: 'seed-ok', testid: 'seed-verified' }, ` ✓ ${t('daily.seed_ok')}`)
            : this.verified === false ? h('span', { class: 'seed-bad' }, ` ✗ ${t('daily.seed_bad')}`) : null]
        : [h('span', null, `${t('daily.seed_hash')} `), h('code', { class: 'seed-hash', testid: 'board-seed-hash', title: info.seed_hash }, info.seed_hash),
          h('span', { class: 'muted' }, ` · ${t('daily.seed_later')}`)]);
  }

  renderStats() {
    const box = this.statsBox;
    if (!box || this.destroyed) return;
    const me = loadIdentity();
    const stats = this.stats;
    if (!this.statsFor) {
      mount(box, h('h2', null, t('daily.your_stats')),
        h('p', { class: 'muted' }, t('daily.start_record')));
      return;
    }
    if (!stats) {
      mount(box, h('h2', null, t('daily.stats')), h('p', { class: 'muted' }, t('app.loading')));
      return;
    }
    if (stats.error) {
      mount(box, h('h2', null, t('daily.stats')), h('p', { class: 'inline-error' }, stats.error));
      return;
    }
    const mine = me && String(stats.player_id) === String(me.player_id);
    const lines = (stats.games || []).filter((g) => g.played > 0);
    mount(box,
      h('h2', null, mine ? t('daily.your_stats') : t('daily.their_stats', { name: stats.name })),
      lines.length
        // Each game's name on a line of its own above its figures: beside them,
        // a long name ("Tradicionalni remi") pushed the last column off a phone.
        // Like the leaderboard, the table sits in a box that scrolls, not the page.
        ? h('div', { class: 'board-wrap' }, h('table', { class: 'stats-table' },
          h('thead', null, h('tr', null, h('th', { class: 'num' }, t('col.games')),
            h('th', { class: 'num' }, t('col.best')), h('th', { class: 'num' }, t('col.average')))),
          lines.map((g) => h('tbody', { testid: `stats-${g.game}` },
            h('tr', null, h('td', { colspan: 3 }, h('strong', null, this.title(g.game)))),
            h('tr', null,
              h('td', { class: 'num' }, String(g.played)),
              h('td', { class: 'num' }, g.best ?? '—'),
              h('td', { class: 'num' }, g.average === null || g.average === undefined ? '—' : String(g.average)))))))
        : h('p', { class: 'muted' }, mine ? t('daily.none_mine') : t('daily.none_theirs')),
      !mine && me ? h('button', {
        type: 'button', class: 'btn btn-quiet', onclick: () => this.loadStats(me.player_id),
      }, t('daily.show_mine')) : null);
  }
}
