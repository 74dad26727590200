// The lobby: your name, a form to open a table, and the list of open and live tables.

import {
  createGuest, createRoom, fetchGames, fetchRooms, inviteUrl, loadIdentity, onIdentityChange,
} from './api.js';
import { copyText, h, mount } from './dom.js';
import { recentGamesPanel } from './recent_games.js';

const ROOMS_REFRESH_MS = 3000;

/**
 * A name form's submit: checks the name, makes the guest, then calls `onSaved()`.
 * A missing name or a refusal shows in `error`; `button` is disabled meanwhile.
 */
export function handleNameSubmit({ form, input, error, button, focusWhenEmpty = false, onSaved }) {
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const name = input.value.trim();
    if (!name) {
      error.textContent = 'Type a name first (1 to 24 characters).';
      error.hidden = false;
      if (focusWhenEmpty) input.focus();
      return;
    }
    button.disabled = true;
    try {
      await createGuest(name);
      onSaved();
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
      button.disabled = false;
    }
  });
}

// How each known option is shown; unknown options get a generic field.
const OPTION_INFO = {
  fill_bots: { label: 'Fill empty seats with bots', hint: 'when the game starts' },
  bot_delay_ms: { label: 'Bot think time', unit: 'ms', min: 0, max: 10000, step: 100 },
  turn_clock_s: { label: 'Turn clock', unit: 's', min: 0, max: 3600, step: 5, hint: '0 = no clock' },
  deals: { label: 'Deals', min: 1, max: 100, hint: 'empty = no limit' },
  target: { label: 'Target score', min: 1, max: 10000, step: 10, hint: 'empty = none' },
  deal_pause_ms: { label: 'Pause between deals', unit: 'ms', min: 0, max: 60000, step: 500 },
  hand_melds_count: { label: 'Melds in hand count at the end' },
  stake: { label: 'Stake', min: 0 },
  speed: { label: 'Speed', choices: ['snail', 'lightning'] },
  timer_s: { label: 'Timer', unit: 's', min: 10, max: 600, hint: 'empty = by speed' },
  frantic: { label: 'Frantic mode' },
  return_window_s: { label: 'Return window', unit: 's', min: 1, max: 60 },
  rounds: { label: 'Rounds', min: 1, max: 20 },
  round_pause_ms: { label: 'Pause between rounds', unit: 'ms', min: 0, max: 60000, step: 500 },
};
// Never offered in the form: set by tests and the daily mode.
const HIDDEN_OPTIONS = new Set(['seed', 'scenario']);
const OPTION_ORDER = ['deals', 'target', 'turn_clock_s', 'bot_delay_ms', 'fill_bots'];

const STATUS_LABELS = { waiting: 'Waiting', playing: 'Playing', finished: 'Finished' };

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
          h('h1', null, 'Pull up a chair.'),
          h('p', null, 'Rummy tables in your browser. No sign-up: pick a name, open a table, '
            + 'invite friends or fill the seats with bots.')),
        h('div', { class: 'lobby-grid' },
          h('div', { class: 'lobby-col' },
            h('section', { class: 'panel' },
              h('h2', null, 'Your name'),
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
              h('strong', null, 'Daily deal'),
              h('span', null, 'Today’s cards, the same for everyone. Play and climb the leaderboards.')),
            h('span', { class: 'daily-entry-go', 'aria-hidden': 'true' }, '→')) : null,
            h('section', { class: 'panel' },
              h('h2', null, 'Open a table'),
              this.createForm)),
          h('section', { class: 'panel rooms-panel' },
            h('div', { class: 'panel-head' },
              h('h2', null, 'Tables'),
              h('span', { class: 'muted small' }, 'updated every few seconds')),
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
          'You play as ',
          h('strong', { testid: 'identity-name' }, identity.name),
          '.'),
        h('button', {
          type: 'button', class: 'btn btn-quiet', testid: 'btn-change-name',
          onclick: () => {
            this.editingName = true;
            this.renderIdentity();
          },
        }, 'Change name'));
      return;
    }
    const input = h('input', {
      type: 'text', id: 'name-input', testid: 'name-input', maxlength: 24, required: true,
      autocomplete: 'nickname', placeholder: 'e.g. Ana', value: identity?.name || '',
    });
    const error = h('p', { class: 'inline-error', testid: 'name-error', role: 'alert', hidden: true });
    const save = h('button', { type: 'submit', class: 'btn btn-primary', testid: 'btn-save-name' },
      'Save');
    const form = h('form', { class: 'name-form', novalidate: true },
      h('label', { for: 'name-input', class: 'visually-hidden' }, 'Your name'),
      h('div', { class: 'row' }, input, save),
      identity ? h('p', { class: 'muted small' },
        'A new name is a new guest: seats held by the old one stay with it.') : null,
      error);
    handleNameSubmit({
      form, input, error, button: save, focusWhenEmpty: true,
      onSaved: () => {
        this.editingName = false;
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
      this.gamesError = err.message;
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
          : h('p', { class: 'muted' }, 'Loading games…'));
      return;
    }
    const game = chosen
      || this.games.find((g) => g.game === 'basic_rummy')
      || this.games[0];
    const gameSelect = h('select', { name: 'game', id: 'create-game', testid: 'create-game' },
      this.games.map((g) => h('option', { value: g.game, selected: g.game === game.game },
        g.title || g.game)));
    gameSelect.addEventListener('change', () => {
      this.renderCreateForm(this.games.find((g) => g.game === gameSelect.value));
    });
    const min = game.min_players || 2;
    const max = game.max_players || 6;
    const seatsSelect = h('select', { name: 'seats', id: 'create-seats', testid: 'create-seats' });
    for (let n = min; n <= max; n += 1) {
      seatsSelect.appendChild(h('option', { value: n, selected: n === Math.max(min, 2) }, `${n} players`));
    }
    const defaults = optionDefaults(game);
    const fields = orderedKeys(defaults).map((key) => this.optionField(key, defaults[key]));
    this.createError = h('p', { class: 'inline-error', testid: 'error', role: 'alert', hidden: true });
    this.createButton = h('button', { type: 'submit', class: 'btn btn-primary btn-wide', testid: 'btn-create' },
      'Open the table');
    mount(this.createForm,
      h('div', { class: 'field-grid' },
        h('label', { class: 'field' }, h('span', null, 'Game'), gameSelect),
        h('label', { class: 'field' }, h('span', null, 'Seats'), seatsSelect)),
      h('fieldset', { class: 'options' },
        h('legend', null, 'Options'),
        h('div', { class: 'field-grid' }, fields)),
      this.createError,
      this.createButton);
  }

  optionField(key, value) {
    const info = OPTION_INFO[key] || { label: key.replace(/_/g, ' ') };
    const id = `opt-${key}`;
    if (typeof value === 'boolean') {
      return h('label', { class: 'field field-check' },
        h('input', { type: 'checkbox', id, name: key, testid: id, checked: value, dataset: { kind: 'bool' } }),
        h('span', null, info.label, info.hint ? h('small', { class: 'muted' }, ` (${info.hint})`) : null));
    }
    let input;
    if (info.choices || typeof value === 'string') {
      const choices = info.choices || [value];
      input = h('select', { id, name: key, testid: id, dataset: { kind: 'text' } },
        choices.map((c) => h('option', { value: c, selected: c === value }, c)));
    } else {
      input = h('input', {
        type: 'number', id, name: key, testid: id, inputmode: 'numeric',
        min: info.min, max: info.max, step: info.step || 1,
        value: value === null || value === undefined ? '' : value,
        placeholder: value === null ? 'none' : null,
        dataset: { kind: 'number' },
      });
    }
    return h('label', { class: 'field' },
      h('span', null, info.label, info.unit ? h('small', { class: 'muted' }, ` (${info.unit})`) : null),
      input,
      info.hint ? h('small', { class: 'muted hint' }, info.hint) : null);
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
      else {
        value = Number(input.value);
        if (!Number.isInteger(value)) throw new Error(`${OPTION_INFO[key]?.label || key} must be a whole number.`);
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
      showError('Choose your name first.');
      this.root.querySelector('[data-testid="name-input"]')?.focus();
      return;
    }
    const game = this.selectedGame();
    const seats = Number(this.createForm.querySelector('[name="seats"]').value);
    let options;
    try {
      options = this.readOptions(game);
    } catch (err) {
      showError(err.message);
      return;
    }
    this.creating = true;
    this.createButton.disabled = true;
    this.createButton.textContent = 'Opening…';
    try {
      const room = await createRoom(game.game, seats, options);
      this.onOpenRoom(room.room_id, 'player');
    } catch (err) {
      if (!this.destroyed) {
        showError(err.message);
        this.renderIdentity();
      }
    } finally {
      this.creating = false;
      if (!this.destroyed) {
        this.createButton.disabled = false;
        this.createButton.textContent = 'Open the table';
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
      this.roomsError = err.message;
    } finally {
      this.loadingRooms = false;
    }
    if (!this.destroyed) this.renderRooms();
  }

  gameTitle(name) {
    return this.games.find((g) => g.game === name)?.title
      || String(name || '').replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
  }

  renderRooms() {
    if (this.destroyed) return;
    if (this.rooms === null) {
      mount(this.roomList, this.roomsError
        ? h('p', { class: 'inline-error' }, this.roomsError)
        : h('p', { class: 'muted' }, 'Looking for tables…'));
      return;
    }
    if (!this.rooms.length) {
      mount(this.roomList,
        h('div', { class: 'empty' },
          h('p', null, 'No tables yet.'),
          h('p', { class: 'muted small' }, 'Open one and share its link.')),
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
      title: 'Copy the invite link',
    }, 'Copy link');
    copyButton.addEventListener('click', async () => {
      const ok = await copyText(inviteUrl(id));
      copyButton.textContent = ok ? 'Copied!' : 'Copy failed';
      setTimeout(() => { copyButton.textContent = 'Copy link'; }, 1800);
    });
    return h('li', { class: 'room', testid: `room-${id}`, dataset: { status: room.status } },
      h('div', { class: 'room-main' },
        h('div', { class: 'room-title' },
          h('strong', null, room.title || this.gameTitle(room.game)),
          h('span', { class: `badge badge-${room.status}` }, STATUS_LABELS[room.status] || room.status)),
        h('div', { class: 'room-meta muted small' },
          room.title && room.title !== this.gameTitle(room.game) ? `${this.gameTitle(room.game)} · ` : '',
          room.owner_name ? `host ${room.owner_name} · ` : '',
          players.length ? players.join(', ') : 'nobody seated yet'),
        h('div', { class: 'room-seats small' },
          h('span', { class: 'pips', 'aria-hidden': 'true' }, pips),
          h('span', { class: 'muted' }, `${taken}/${seats} seated`),
          room.spectators ? h('span', { class: 'muted' }, ` · ${room.spectators} watching`) : null)),
      h('div', { class: 'room-actions' },
        canJoin ? h('button', {
          type: 'button', class: 'btn btn-primary btn-small', testid: `btn-join-${id}`,
          onclick: () => this.onOpenRoom(id, 'player'),
        }, mine ? 'Rejoin' : 'Join') : null,
        h('button', {
          type: 'button', class: 'btn btn-small', testid: `btn-watch-${id}`,
          onclick: () => this.onOpenRoom(id, 'spectator'),
        }, 'Watch'),
        copyButton));
  }
}
