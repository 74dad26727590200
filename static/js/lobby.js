// The lobby: your name, a form to open a table, and the list of open and live tables.

import {
  createGuest, createRoom, fetchGames, fetchRooms, inviteUrl, loadIdentity, onIdentityChange,
} from './api.js';
import { copyText, h, mount } from './dom.js';
import { errorText, gameName, has, localError, t, tn } from './i18n.js';
import { recentGamesPanel } from './recent_games.js';

const ROOMS_REFRESH_MS = 3000;
export const NAME_MAX = 24;

/**
 * The limit of a name field, shown while typing: a live "12/24" and, when a
 * longer name (typed or pasted) is cut to the limit, a note that says so.
 */
export function nameLimit(input) {
  const counter = h('span', { class: 'name-count', testid: 'name-count', 'aria-live': 'polite' });
  const note = h('span', { class: 'name-cut', testid: 'name-cut', hidden: true });
  const update = (cut) => {
    const n = [...input.value].length;
    counter.textContent = t('name.count', { n, max: NAME_MAX });
    counter.classList.toggle('is-full', n >= NAME_MAX);
    if (cut) {
      note.textContent = t('name.cut', { max: NAME_MAX });
      note.hidden = false;
    } else if (n < NAME_MAX) {
      note.hidden = true;
    }
  };
  input.addEventListener('input', () => {
    const chars = [...input.value];
    const cut = chars.length > NAME_MAX;
    if (cut) input.value = chars.slice(0, NAME_MAX).join('');
    update(cut);
  });
  update(false);
  return h('p', { class: 'name-limit small' }, counter, note);
}

/**
 * A name form's submit: checks the name, makes the guest, then calls `onSaved()`.
 * A missing name or a refusal shows in `error`; `button` is disabled meanwhile.
 */
export function handleNameSubmit({ form, input, error, button, focusWhenEmpty = false, onSaved }) {
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const name = input.value.trim();
    if (!name) {
      error.textContent = t('name.empty', { max: NAME_MAX });
      error.hidden = false;
      if (focusWhenEmpty) input.focus();
      return;
    }
    button.disabled = true;
    try {
      await createGuest(name);
      error.hidden = true;
      onSaved();
    } catch (err) {
      error.textContent = err.status === 422 ? t('name.invalid', { max: NAME_MAX }) : errorText(err);
      error.hidden = false;
      button.disabled = false;
    }
  });
}

// How each known option is shown; unknown options get a generic field.
// Its words are `option.<key>` (and `option.<key>.hint`); times the server
// takes in milliseconds (`ms`) are asked for in seconds and sent back in ms.
const OPTION_INFO = {
  fill_bots: { hint: true },
  bot_delay_ms: { ms: true, min: 0, max: 10, step: 0.1 },
  turn_clock_s: { seconds: true, min: 0, max: 3600, step: 5, hint: true },
  deals: { min: 1, max: 100, hint: true },
  target: { min: 1, max: 10000, step: 10, hint: true },
  deal_pause_ms: { ms: true, min: 0, max: 60, step: 0.5 },
  hand_melds_count: {},
  stake: { min: 0 },
  speed: { choices: ['snail', 'lightning'] },
  timer_s: { seconds: true, min: 10, max: 600, hint: true },
  frantic: {},
  return_window_s: { seconds: true, min: 1, max: 60 },
  rounds: { min: 1, max: 20 },
  round_pause_ms: { ms: true, min: 0, max: 60, step: 0.5 },
};

function optionLabel(key) {
  return has(`option.${key}`) ? t(`option.${key}`) : key.replace(/_/g, ' ');
}
// Never offered in the form: set by tests and the daily mode.
const HIDDEN_OPTIONS = new Set(['seed', 'scenario']);
const OPTION_ORDER = ['deals', 'target', 'turn_clock_s', 'bot_delay_ms', 'fill_bots'];


function optionDefaults(game) {
  const defaults = { bot_delay_ms: 800, fill_bots: false, ...(game.options || {}) };
  for (const key of HIDDEN_OPTIONS) delete defaults[key];
  return defaults;
}

function orderedKeys(defaults) {
  const keys = Object.keys(defaults);
  const rank = (k) => (OPTION_ORDER.includes(k) ? OPTION_ORDER.indexOf(k) : -1);
  return keys.sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    if (ra === -1 && rb === -1) return a.localeCompare(b);
    if (ra === -1) return -1;
    if (rb === -1) return 1;
    return ra - rb;
  });
}

export class Lobby {
  /** `onOpenRoom(roomId, role)` opens a table ("player" or "spectator"); `onOpenDaily()` the daily deals. */
  constructor(root, { onOpenRoom, onOpenDaily = null }) {
    this.root = root;
    this.onOpenRoom = onOpenRoom;
    this.onOpenDaily = onOpenDaily;
    this.games = [];
    this.rooms = null;
    this.roomsError = null;
    this.editingName = false;
    this.creating = false;
    this.pollTimer = null;
    this.destroyed = false;
    this.unsubscribe = onIdentityChange(() => this.renderIdentity());
    this.build();
    this.loadGames();
    this.refreshRooms();
    this.pollTimer = setInterval(() => {
      if (!document.hidden) this.refreshRooms();
    }, ROOMS_REFRESH_MS);
  }

  destroy() {
    this.destroyed = true;
    clearInterval(this.pollTimer);
    this.unsubscribe();
  }

  // --- layout ----------------------------------------------------------------

  build() {
    this.identityBox = h('div', { class: 'identity-box' });
    this.createForm = h('form', { class: 'create-form', testid: 'create-form', novalidate: true });
    this.createForm.addEventListener('submit', (e) => {
      e.preventDefault();
      this.create();
    });
    this.roomList = h('div', { class: 'room-list', testid: 'room-list', 'aria-live': 'polite' });
    mount(
      this.root,
      h('div', { class: 'lobby', testid: 'lobby' },
        h('section', { class: 'hero' },
          h('h1', null, t('lobby.title')),
          h('p', null, t('lobby.intro'))),
        h('div', { class: 'lobby-grid' },
          h('div', { class: 'lobby-col' },
            h('section', { class: 'panel' },
              h('h2', null, t('lobby.your_name')),
              this.identityBox),
            recentGamesPanel(),
            this.onOpenDaily ? h('a', {
              href: '/?daily', class: 'daily-entry', testid: 'btn-daily',
              onclick: (e) => {
                e.preventDefault();
                this.onOpenDaily();
              },
            },
            h('span', { class: 'daily-entry-icon', 'aria-hidden': 'true' }, '☀'),
            h('span', { class: 'daily-entry-text' },
              h('strong', null, t('daily.title')),
              h('span', null, t('lobby.daily_pitch'))),
            h('span', { class: 'daily-entry-go', 'aria-hidden': 'true' }, '→')) : null,
            h('section', { class: 'panel' },
              h('h2', null, t('lobby.open_table')),
              this.createForm)),
          h('section', { class: 'panel rooms-panel' },
            h('div', { class: 'panel-head' },
              h('h2', null, t('lobby.tables')),
              h('span', { class: 'muted small' }, t('lobby.tables_refresh'))),
            this.roomList))),
    );
    this.renderIdentity();
    this.renderCreateForm();
    this.renderRooms();
  }

  // --- identity --------------------------------------------------------------

  renderIdentity() {
    if (this.destroyed) return;
    const identity = loadIdentity();
    if (identity && !this.editingName) {
      mount(this.identityBox,
        h('p', { class: 'identity-line' },
          tn('lobby.you_play_as', { name: h('strong', { testid: 'identity-name' }, identity.name) })),
        h('button', {
          type: 'button', class: 'btn btn-quiet', testid: 'btn-change-name',
          onclick: () => {
            this.editingName = true;
            this.renderIdentity();
          },
        }, t('lobby.change_name')));
      return;
    }
    const input = h('input', {
      type: 'text', id: 'name-input', testid: 'name-input', required: true,
      autocomplete: 'nickname', placeholder: t('name.placeholder_example'), value: identity?.name || '',
    });
    const error = h('p', { class: 'inline-error', testid: 'name-error', role: 'alert', hidden: true });
    const save = h('button', { type: 'submit', class: 'btn btn-primary', testid: 'btn-save-name' },
      t('name.save'));
    const form = h('form', { class: 'name-form', novalidate: true },
      h('label', { for: 'name-input', class: 'visually-hidden' }, t('lobby.your_name')),
      h('div', { class: 'row' }, input, save),
      nameLimit(input),
      identity ? h('p', { class: 'muted small' }, t('lobby.new_name_note')) : null,
      error);
    handleNameSubmit({
      form, input, error, button: save, focusWhenEmpty: true,
      onSaved: () => {
        this.editingName = false;
        // "Choose your name first." was about this name: it is saved now.
        if (this.createError) this.createError.hidden = true;
        this.renderIdentity();
      },
    });
    mount(this.identityBox, form);
  }

  // --- create ----------------------------------------------------------------

  async loadGames() {
    try {
      this.games = await fetchGames();
      this.gamesError = null;
    } catch (err) {
      this.gamesError = errorText(err);
    }
    if (!this.destroyed) {
      this.renderCreateForm();
      this.renderRooms();
    }
  }

  selectedGame() {
    const select = this.createForm.querySelector('[name="game"]');
    const name = select ? select.value : null;
    return this.games.find((g) => g.game === name)
      || this.games.find((g) => g.game === 'basic_rummy')
      || this.games[0];
  }

  renderCreateForm(chosen) {
    if (this.destroyed) return;
    if (!this.games.length) {
      mount(this.createForm,
        this.gamesError
          ? h('p', { class: 'inline-error', testid: 'error' }, this.gamesError)
          : h('p', { class: 'muted' }, t('lobby.loading_games')));
      return;
    }
    const game = chosen
      || this.games.find((g) => g.game === 'basic_rummy')
      || this.games[0];
    const gameSelect = h('select', { name: 'game', id: 'create-game', testid: 'create-game' },
      this.games.map((g) => h('option', { value: g.game, selected: g.game === game.game },
        gameName(g.game, g.title))));
    gameSelect.addEventListener('change', () => {
      this.renderCreateForm(this.games.find((g) => g.game === gameSelect.value));
    });
    const min = game.min_players || 2;
    const max = game.max_players || 6;
    const seatsSelect = h('select', { name: 'seats', id: 'create-seats', testid: 'create-seats' });
    for (let n = min; n <= max; n += 1) {
      seatsSelect.appendChild(h('option', { value: n, selected: n === Math.max(min, 2) }, t('lobby.n_players', { n })));
    }
    const defaults = optionDefaults(game);
    const fields = orderedKeys(defaults).map((key) => this.optionField(key, defaults[key]));
    this.createError = h('p', { class: 'inline-error', testid: 'error', role: 'alert', hidden: true });
    this.createButton = h('button', { type: 'submit', class: 'btn btn-primary btn-wide', testid: 'btn-create' },
      t('lobby.open_button'));
    mount(this.createForm,
      h('div', { class: 'field-grid create-pick' },
        h('label', { class: 'field' }, h('span', null, t('lobby.game')), gameSelect),
        h('label', { class: 'field' }, h('span', null, t('lobby.seats')), seatsSelect)),
      h('fieldset', { class: 'options' },
        h('legend', null, t('lobby.options')),
        h('div', { class: 'field-grid' }, fields)),
      this.createError,
      this.createButton);
  }

  optionField(key, value) {
    const info = OPTION_INFO[key] || {};
    const label = optionLabel(key);
    const hint = info.hint ? t(`option.${key}.hint`) : null;
    const id = `opt-${key}`;
    if (typeof value === 'boolean') {
      return h('label', { class: 'field field-check' },
        h('input', { type: 'checkbox', id, name: key, testid: id, checked: value, dataset: { kind: 'bool' } }),
        h('span', null, label, hint ? h('small', { class: 'muted' }, ` (${hint})`) : null));
    }
    let input;
    if (info.choices || typeof value === 'string') {
      const choices = info.choices || [value];
      input = h('select', { id, name: key, testid: id, dataset: { kind: 'text' } },
        choices.map((c) => h('option', { value: c, selected: c === value },
          has(`option.${key}.${c}`) ? t(`option.${key}.${c}`) : c)));
    } else {
      const shown = value === null || value === undefined ? '' : (info.ms ? value / 1000 : value);
      input = h('input', {
        type: 'number', id, name: key, testid: id, inputmode: info.ms ? 'decimal' : 'numeric',
        min: info.min, max: info.max, step: info.step || 1,
        value: shown,
        placeholder: value === null ? t('option.none') : null,
        dataset: { kind: info.ms ? 'ms' : 'number' },
      });
    }
    return h('label', { class: 'field' },
      h('span', null, label, info.ms || info.seconds ? h('small', { class: 'muted' }, ` (${t('unit.seconds')})`) : null),
      input,
      hint ? h('small', { class: 'muted hint' }, hint) : null);
  }

  readOptions(game) {
    const defaults = optionDefaults(game);
    const options = {};
    for (const input of this.createForm.querySelectorAll('[data-kind]')) {
      const key = input.name;
      let value;
      if (input.dataset.kind === 'bool') value = input.checked;
      else if (input.dataset.kind === 'text') value = input.value;
      else if (input.value.trim() === '') value = null;
      else if (input.dataset.kind === 'ms') {
        // Asked in seconds, sent in milliseconds.
        value = Math.round(Number(input.value) * 1000);
        if (!Number.isFinite(value) || value < 0) throw localError(t('lobby.option_seconds', { option: optionLabel(key) }));
      } else {
        value = Number(input.value);
        if (!Number.isInteger(value)) throw localError(t('lobby.option_whole', { option: optionLabel(key) }));
      }
      // Send what the player changed, plus the bot settings the table depends on.
      if (value !== defaults[key] || key === 'bot_delay_ms' || key === 'fill_bots') {
        options[key] = value;
      }
    }
    return options;
  }

  async create() {
    if (this.creating) return;
    const showError = (message) => {
      this.createError.textContent = message;
      this.createError.hidden = false;
    };
    this.createError.hidden = true;
    if (!loadIdentity()) {
      this.editingName = true;
      this.renderIdentity();
      showError(t('lobby.name_first'));
      this.root.querySelector('[data-testid="name-input"]')?.focus();
      return;
    }
    const game = this.selectedGame();
    const seats = Number(this.createForm.querySelector('[name="seats"]').value);
    let options;
    try {
      options = this.readOptions(game);
    } catch (err) {
      showError(errorText(err));
      return;
    }
    this.creating = true;
    this.createButton.disabled = true;
    this.createButton.textContent = t('lobby.opening');
    try {
      const room = await createRoom(game.game, seats, options);
      this.onOpenRoom(room.room_id, 'player');
    } catch (err) {
      if (!this.destroyed) {
        showError(errorText(err));
        this.renderIdentity();
      }
    } finally {
      this.creating = false;
      if (!this.destroyed) {
        this.createButton.disabled = false;
        this.createButton.textContent = t('lobby.open_button');
      }
    }
  }

  // --- rooms -----------------------------------------------------------------

  async refreshRooms() {
    if (this.loadingRooms) return;
    this.loadingRooms = true;
    try {
      this.rooms = await fetchRooms();
      this.roomsError = null;
    } catch (err) {
      this.roomsError = errorText(err);
    } finally {
      this.loadingRooms = false;
    }
    if (!this.destroyed) this.renderRooms();
  }

  gameTitle(name) {
    return gameName(name, this.games.find((g) => g.game === name)?.title);
  }

  renderRooms() {
    if (this.destroyed) return;
    if (this.rooms === null) {
      mount(this.roomList, this.roomsError
        ? h('p', { class: 'inline-error' }, this.roomsError)
        : h('p', { class: 'muted' }, t('lobby.looking')));
      return;
    }
    if (!this.rooms.length) {
      mount(this.roomList,
        h('div', { class: 'empty' },
          h('p', null, t('lobby.no_tables')),
          h('p', { class: 'muted small' }, t('lobby.no_tables_hint'))),
        this.roomsError ? h('p', { class: 'inline-error' }, this.roomsError) : null);
      return;
    }
    const me = loadIdentity();
    const rows = this.rooms.map((room) => this.roomRow(room, me));
    mount(this.roomList,
      this.roomsError ? h('p', { class: 'inline-error' }, this.roomsError) : null,
      h('ul', { class: 'rooms' }, rows));
  }

  roomRow(room, me) {
    const id = room.room_id;
    const taken = room.seats_taken ?? (room.players || []).length;
    const seats = room.seats ?? 0;
    const players = room.players || [];
    const mine = me && players.includes(me.name);
    const canJoin = mine || (room.status === 'waiting' && taken < seats);
    const pips = [];
    for (let i = 0; i < seats; i += 1) pips.push(h('span', { class: `pip ${i < taken ? 'is-taken' : ''}` }));
    const copyButton = h('button', {
      type: 'button', class: 'btn btn-quiet btn-small', testid: `btn-copy-${id}`,
      title: t('lobby.copy_title'),
    }, t('lobby.copy_link'));
    copyButton.addEventListener('click', async () => {
      const ok = await copyText(inviteUrl(id));
      copyButton.textContent = ok ? t('lobby.copied') : t('common.copy_failed');
      setTimeout(() => { copyButton.textContent = t('lobby.copy_link'); }, 1800);
    });
    return h('li', { class: 'room', testid: `room-${id}`, dataset: { status: room.status } },
      h('div', { class: 'room-main' },
        h('div', { class: 'room-title' },
          h('strong', null, this.gameTitle(room.game)),
          h('span', { class: `badge badge-${room.status}` },
            has(`lobby.status.${room.status}`) ? t(`lobby.status.${room.status}`) : room.status)),
        h('div', { class: 'room-meta muted small' },
          room.owner_name ? `${t('lobby.host', { name: room.owner_name })} · ` : '',
          players.length ? players.join(', ') : t('lobby.nobody_seated')),
        h('div', { class: 'room-seats small' },
          h('span', { class: 'pips', 'aria-hidden': 'true' }, pips),
          h('span', { class: 'muted' }, t('lobby.seated', { taken, seats })),
          room.spectators ? h('span', { class: 'muted' }, ` · ${t('common.watching', { n: room.spectators })}`) : null)),
      h('div', { class: 'room-actions' },
        canJoin ? h('button', {
          type: 'button', class: 'btn btn-primary btn-small', testid: `btn-join-${id}`,
          onclick: () => this.onOpenRoom(id, 'player'),
        }, mine ? t('lobby.rejoin') : t('lobby.join')) : null,
        h('button', {
          type: 'button', class: 'btn btn-small', testid: `btn-watch-${id}`,
          onclick: () => this.onOpenRoom(id, 'spectator'),
        }, t('lobby.watch')),
        copyButton));
  }
}
