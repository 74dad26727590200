// Wiring and routing.
//
// Routes (query string, so the server only ever serves "/"):
//   /                      the lobby
//   /?room=ID              open a table: take a seat if one is free, else watch
//   /?room=ID&watch=1      watch a table
//   /?room=ID&daily=GAME   a daily room (a strip links to its leaderboard)
//   /?daily[&game=G&date=D] the daily deals and their leaderboards
//   /?rules=GAME           a game's rules (static/js/rules.js)
//   /?replay=ID            a finished game, move by move (static/js/replay.js)
//
// One WebSocket serves the whole page; the open screen subscribes to it.

import { inviteUrl, loadIdentity, onIdentityChange, clearIdentity, signOut } from './api.js';
import { installCardSprite } from './cards.js';
import { h, mount } from './dom.js';
import { cls } from './ui.js';
import { Lobby, handleNameSubmit, nameLimit } from './lobby.js';
import {
  LANGUAGES, applyDocumentLanguage, errorText, language, onLanguageChange, setLanguage, t,
} from './i18n.js';
import { GameSocket } from './socket.js';
import { installSound, renderSoundToggle } from './sound.js';
import { ChatPanel } from './chat.js';
import { Daily } from './daily.js';
import { ReplayPage } from './replay.js';
import { RulesPage } from './rules.js';
import { BasicRummyTable } from './table_basic_rummy.js';
import { GenericTable } from './table_generic.js';
import { IndonesianRemiTable } from './table_indonesian_remi.js';
import { RemmiDemmiTable } from './table_remmi_demmi.js';
import { TraditionalRemiTable } from './table_traditional_remi.js';

const TABLES = {
  basic_rummy: BasicRummyTable,
  traditional_remi: TraditionalRemiTable,
  indonesian_remi: IndonesianRemiTable,
  remmi_demmi: RemmiDemmiTable,
};
const CLOSE_BAD_TOKEN = 4401;

function socketUrl() {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  const identity = loadIdentity();
  const query = identity ? `?token=${encodeURIComponent(identity.token)}` : '';
  return `${scheme}//${window.location.host}/ws${query}`;
}

const socket = new GameSocket(socketUrl);
const main = document.getElementById('app');
// Handy from the browser console (and for tests): the live socket.
window.kartu = { socket };
let screen = null;

export function navigate(url, { replace = false } = {}) {
  if (replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  route();
}

function roomUrl(roomId, watch = false, daily = null) {
  const params = new URLSearchParams({ room: roomId });
  if (watch) params.set('watch', '1');
  if (daily) params.set('daily', daily);
  return `/?${params}`;
}

function dailyUrl(game = null, date = null) {
  return `/?daily${game ? `&game=${encodeURIComponent(game)}` : ''}${date ? `&date=${encodeURIComponent(date)}` : ''}`;
}

/** Whether a seat was refused because the game runs already (else: every seat is taken). */
function gameStarted(err) {
  return /start/.test(`${err.reason || ''} ${err.message || ''}`);
}

// --- the room screen -----------------------------------------------------------

class RoomScreen {
  constructor(root, roomId, role, { daily = null } = {}) {
    this.roomId = String(roomId);
    this.role = role;
    this.daily = daily;
    this.root = root;
    if (daily) {
      // A daily room: a strip above the table leads to the day's leaderboard.
      this.strip = h('div', { class: 'daily-strip', testid: 'daily-strip' });
      this.root = h('div', { class: 'daily-table' });
      mount(root, this.strip, this.root);
      this.renderStrip(null);
    }
    this.table = null;
    this.notice = null;
    this.joined = false;
    this.joining = false;
    this.closed = false;
    this.early = [];
    this.earlyLog = null;
    this.chat = new ChatPanel({
      send: (line) => socket.request({ type: 'chat', room: this.roomId, ...line }),
      // Whose lines are ours: they never count as unread.
      isMine: (line) => this.isMine(line),
    });
    this.unsubscribe = [
      socket.on('state', (msg) => this.onState(msg)),
      socket.on('event', (msg) => this.onEvent(msg)),
      socket.on('spectators', (msg) => this.onSpectators(msg)),
      socket.on('log', (msg) => this.onLog(msg)),
      socket.on('chat_history', (msg) => this.onChat(msg, msg.lines)),
      socket.on('chat', (msg) => this.onChat(msg, [msg])),
      socket.on('error', (err) => this.table?.showError(err)),
      socket.on('open', ({ reconnect }) => {
        if (reconnect || !this.joined) this.join();
      }),
    ];
    mount(this.root, h('div', { class: 'loading', testid: 'table-loading' }, t('table.taking_seat')));
    socket.start();
    if (socket.isOpen) this.join();
  }

  destroy() {
    this.closed = true;
    for (const off of this.unsubscribe) off();
    this.table?.destroy();
    // Leaving the page's table leaves the room: a spectator stops counting as
    // one; a player keeps a seat in a running game (the lobby offers "Rejoin")
    // and gives it up only before the game starts.
    if (this.joined) {
      socket.request({ type: 'leave', room: this.roomId }, { queue: false, timeout: 3000 })
        .catch(() => {});
    }
    socket.forgetRoom(this.roomId);
  }

  async join() {
    if (this.joining || this.closed) return;
    this.joining = true;
    let watchInstead = false;
    try {
      await socket.request({ type: 'join', room: this.roomId, role: this.role });
      this.joined = true;
    } catch (err) {
      if (this.closed) return;
      if (this.role === 'player' && (err.code === 'room_full' || err.code === 'forbidden')) {
        // No seat for us (full, or the game already runs without us): watch it.
        this.role = 'spectator';
        // Said once, plainly: the banner shows this instead of its own "watching" line.
        this.notice = t(gameStarted(err) ? 'watch.started' : 'watch.no_seat');
        if (this.table) this.table.ctx.notice = this.notice;
        watchInstead = true;
      } else if (err.code === 'unknown_room') {
        this.showMissing();
      } else if (err.code !== 'disconnected' && err.code !== 'timeout') {
        // Connection trouble is retried by the reconnect; anything else is shown.
        if (this.table) this.table.showError(err);
        else this.showFailure(errorText(err));
      }
    } finally {
      this.joining = false;
    }
    if (watchInstead) this.join();
  }

  leave() {
    navigate('/');
  }

  /** The language changed: the same table, in the new words. */
  retranslate() {
    if (this.strip) {
      delete this.strip.dataset.phase;
      this.renderStrip(this.table?.view?.phase ?? null);
    }
    this.chat.render();
    if (this.table) this.table.render();
    else if (!this.joined) mount(this.root, h('div', { class: 'loading', testid: 'table-loading' }, t('table.taking_seat')));
  }

  context() {
    return {
      roomId: this.roomId,
      role: this.role,
      notice: this.notice,
      inviteUrl: inviteUrl(this.roomId),
      identity: () => loadIdentity(),
      act: (action) => socket.request({ type: 'act', room: this.roomId, action }),
      command: (type, fields = {}) => socket.request({ ...fields, type, room: this.roomId }),
      chat: this.chat,
      leave: () => this.leave(),
      serverNow: () => socket.serverNow(),
    };
  }

  onState(msg) {
    if (this.closed || String(msg.room) !== this.roomId || !msg.view) return;
    this.joined = true;
    const game = msg.view.game;
    const Table = TABLES[game] || GenericTable;
    if (!this.table || this.tableGame !== game) {
      this.table?.destroy();
      this.table = new Table(this.root, this.context());
      this.tableGame = game;
      for (const { event, version } of this.early.splice(0)) this.table.onEvent(event, version);
    }
    this.table.update(msg.view, msg.version);
    // A log that came first is read once the table knows the seats (to tell a bot's seat from a stand-in).
    if (this.earlyLog) this.table.loadLog(this.earlyLog);
    this.earlyLog = null;
    if (this.daily) this.renderStrip(msg.view.phase);
  }

  /** A spectator came or went: the table shows the new count (states show it too). */
  onSpectators(msg) {
    const view = this.table?.view;
    if (this.closed || String(msg.room) !== this.roomId || !view?.room) return;
    if (typeof msg.version === 'number' && msg.version < this.table.version) return;
    this.table.update({ ...view, room: { ...view.room, spectators: msg.count } }, this.table.version);
  }

  renderStrip(phase) {
    const over = phase === 'game_over';
    if (this.strip.dataset.phase === String(phase)) return;
    this.strip.dataset.phase = String(phase);
    this.strip.classList.toggle('is-over', over);
    mount(this.strip,
      h('span', { class: 'daily-strip-tag' }, t('daily.title')),
      h('span', { class: 'daily-strip-text' }, over ? t('daily.strip_over') : t('daily.strip_playing')),
      h('a', {
        href: dailyUrl(this.daily), class: cls('btn btn-small', over ? 'btn-primary' : 'btn-ghost'),
        testid: 'daily-leaderboard-link',
        onclick: (e) => {
          e.preventDefault();
          navigate(dailyUrl(this.daily));
        },
      }, over ? `${t('daily.leaderboard')} →` : t('daily.leaderboard')));
  }

  onEvent(msg) {
    if (this.closed || String(msg.room) !== this.roomId) return;
    if (this.table) this.table.onEvent(msg.event, msg.version);
    else this.early.push({ event: msg.event, version: msg.version });
  }

  /** The current game's table log (on every join): the table's log starts over from it. */
  onLog(msg) {
    if (this.closed || String(msg.room) !== this.roomId) return;
    if (this.table) this.table.loadLog(msg);
    else this.earlyLog = msg;
  }

  onChat(msg, lines) {
    if (this.closed || String(msg.room) !== this.roomId) return;
    this.chat.add(Array.isArray(lines) ? lines : [], { history: msg.type === 'chat_history' });
  }

  /** A line we wrote: from our seat, or (watching) under our name on the spectators' channel. */
  isMine(line) {
    const you = this.table?.you ?? null;
    if (line.seat !== null && line.seat !== undefined) return you !== null && line.seat === you;
    return you === null && line.name === loadIdentity()?.name;
  }

  showMissing() {
    mount(this.root, h('div', { class: 'panel message-panel', testid: 'room-missing' },
      h('h1', null, t('room.gone_title')),
      h('p', null, t('room.gone_text')),
      h('button', { type: 'button', class: 'btn btn-primary', onclick: () => navigate('/') },
        t('common.back_to_lobby'))));
  }

  showFailure(message) {
    mount(this.root, h('div', { class: 'panel message-panel' },
      h('h1', null, t('room.failed_title')),
      h('p', { class: 'inline-error', testid: 'error' }, message),
      h('button', { type: 'button', class: 'btn btn-primary', onclick: () => navigate('/') },
        t('common.back_to_lobby'))));
  }
}

// --- the invite prompt: a name before taking a seat -------------------------------

class InvitePrompt {
  constructor(root, roomId) {
    const input = h('input', {
      type: 'text', id: 'invite-name', testid: 'name-input', autocomplete: 'nickname',
      placeholder: t('name.placeholder'), required: true,
    });
    const error = h('p', { class: 'inline-error', testid: 'error', role: 'alert', hidden: true });
    const take = h('button', { type: 'submit', class: 'btn btn-primary', testid: 'btn-take-seat' }, t('invite.take_seat'));
    const form = h('form', { class: 'name-form', novalidate: true },
      h('label', { for: 'invite-name', class: 'visually-hidden' }, t('lobby.your_name')),
      h('div', { class: 'row' }, input, take),
      nameLimit(input),
      error);
    handleNameSubmit({ form, input, error, button: take, onSaved: () => route() });
    mount(root, h('div', { class: 'panel message-panel', testid: 'join-prompt' },
      h('h1', null, t('invite.title')),
      h('p', null, t('invite.text')),
      form,
      h('p', { class: 'muted small' },
        h('a', { href: roomUrl(roomId, true), testid: 'link-watch', onclick: (e) => {
          e.preventDefault();
          navigate(roomUrl(roomId, true), { replace: true });
        } }, t('invite.just_watch')))));
    input.focus();
  }

  destroy() {}
}

// --- top bar ---------------------------------------------------------------------

function renderWho() {
  const who = document.getElementById('whoami');
  if (!who) return;
  const identity = loadIdentity();
  mount(who, identity
    ? [h('span', { class: 'who-dot', 'aria-hidden': 'true' }), h('span', { testid: 'whoami' }, identity.name),
      h('button', {
        type: 'button', class: 'btn btn-small btn-ghost signout', testid: 'sign-out',
        title: t('top.sign_out_title'),
        onclick: async () => {
          try {
            await signOut();
          } catch {
            return; // the server cannot be reached: stay signed in rather than lose the pass
          }
          navigate('/');
        },
      }, t('top.sign_out'))]
    : h('span', { class: 'muted' }, t('top.guest')));
}

/** The language switcher in the top bar: remembered, and the page re-renders in place. */
function renderLanguagePicker() {
  const bar = document.querySelector('.topbar');
  if (!bar) return;
  let box = document.getElementById('lang');
  if (!box) {
    box = h('label', { id: 'lang', class: 'lang-pick' });
    bar.insertBefore(box, document.getElementById('whoami'));
  }
  const select = h('select', { testid: 'lang-select', 'aria-label': t('top.language'), title: t('top.language') },
    LANGUAGES.map((l) => h('option', { value: l.code, lang: l.tag, selected: l.code === language() }, l.name)));
  select.addEventListener('change', () => setLanguage(select.value));
  const globe = h('span', { class: 'lang-icon', 'aria-hidden': 'true' });
  // Drawn, not an emoji: the machine may have no emoji font.
  globe.innerHTML = '<svg viewBox="0 0 24 24" width="16" height="16" fill="none" stroke="currentColor" '
    + 'stroke-width="1.8"><circle cx="12" cy="12" r="9"/><path d="M3 12h18M12 3c3 3.2 3 14.8 0 18M12 3c-3 3.2-3 14.8 0 18"/></svg>';
  // A phone's top bar has no room for "Bahasa Indonesia": it shows this, with
  // the select laid invisibly over it (style.css), whose list has the names.
  const short = h('span', { class: 'lang-short', testid: 'lang-short', 'aria-hidden': 'true' },
    LANGUAGES.find((l) => l.code === language())?.short || '');
  mount(box, globe, short, select);
}

function retranslate() {
  applyDocumentLanguage();
  renderLanguagePicker();
  renderSoundToggle();
  renderWho();
  renderConnection(socket.status);
  document.getElementById('brand')?.setAttribute('aria-label', t('top.home'));
  // A screen that can say itself again keeps its place (a table, a replay's
  // step); any other is built anew in the new language.
  if (typeof screen?.retranslate === 'function') screen.retranslate();
  else route();
}

function renderConnection(status) {
  const el = document.getElementById('conn');
  if (!el) return;
  const show = screen instanceof RoomScreen && (status === 'reconnecting' || status === 'connecting');
  el.hidden = !show;
  el.textContent = status === 'connecting' ? t('top.connecting') : t('top.reconnecting');
}

// --- routing ---------------------------------------------------------------------

let lastToken = loadIdentity()?.token ?? null;

function route() {
  screen?.destroy();
  screen = null;
  const params = new URLSearchParams(window.location.search);
  const roomId = params.get('room');
  if (roomId) {
    const watch = params.get('watch') === '1';
    if (!watch && !loadIdentity()) {
      screen = new InvitePrompt(main, roomId);
      return;
    }
    // A new guest needs a socket that carries its token.
    const token = loadIdentity()?.token ?? null;
    if (token !== lastToken) {
      lastToken = token;
      if (socket.wanted) socket.restart();
    }
    screen = new RoomScreen(main, roomId, watch ? 'spectator' : 'player', { daily: params.get('daily') });
  } else if (params.has('rules')) {
    screen = new RulesPage(main, params.get('rules'), { onNavigate: (url) => navigate(url) });
  } else if (params.has('replay')) {
    screen = new ReplayPage(main, params.get('replay'), { onLobby: () => navigate('/') });
  } else if (params.has('daily')) {
    screen = new Daily(main, {
      game: params.get('game'),
      date: params.get('date'),
      limit: params.get('limit'),
      onOpenRoom: (id, game) => navigate(roomUrl(id, false, game)),
      onNavigate: (url, { route: go = false } = {}) => {
        if (go) navigate(url);
        else window.history.replaceState(null, '', url);
      },
    });
  } else {
    screen = new Lobby(main, {
      onOpenRoom: (id, role) => navigate(roomUrl(id, role === 'spectator')),
      onOpenDaily: () => navigate(dailyUrl()),
    });
  }
  renderConnection(socket.status);
}

function boot() {
  installCardSprite();
  applyDocumentLanguage();
  renderLanguagePicker();
  installSound();
  renderSoundToggle();
  document.getElementById('brand')?.setAttribute('aria-label', t('top.home'));
  onLanguageChange(retranslate);
  renderWho();
  onIdentityChange(() => renderWho());
  socket.on('status', renderConnection);
  socket.on('close', ({ code }) => {
    if (code === CLOSE_BAD_TOKEN && loadIdentity()) {
      // The server no longer knows this guest: start over with a new name.
      clearIdentity();
      lastToken = null;
      socket.stop();
      route();
    }
  });
  document.getElementById('brand')?.addEventListener('click', (e) => {
    e.preventDefault();
    navigate('/');
  });
  window.addEventListener('popstate', route);
  route();
}

boot();
