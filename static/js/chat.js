// The table's chat: a compact panel that folds away behind a toggle (with an
// unread count), so on a phone it never pushes the hand or the action buttons
// off the screen.
//
// Lines are `{id, channel, seat, name, at, text | emote}` (docs/protocol.md,
// Chat). Text is shown as text only (text nodes, never markup). A line may
// come twice while joining (in `chat_history` and as a `chat` frame): `id`
// tells them apart. Spectators' lines (channel `spectators`) reach spectators
// only, and are marked.
//
// The panel keeps one element for its whole life; the table puts that same
// element back into its layout on every render, so a line being typed survives.

import { h, mount } from './dom.js';
import { errorText, t } from './i18n.js';

export const EMOTES = ['hi', 'gg', 'wp', 'oops', 'thanks', 'hurry', 'wow', 'bye'];
const KEEP = 100;
const TEXT_LIMIT = 200;

export class ChatPanel {
  /** `send({text} | {emote})` returns a promise (the ack); `isMine(line)` says whether we wrote it. */
  constructor({ send, isMine = () => false }) {
    this.send = send;
    this.isMine = isMine;
    this.lines = new Map();
    this.open = false;
    this.unread = 0;
    this.error = null;
    this.sending = false;
    this.element = h('section', { class: 'panel chat', testid: 'chat' });
    this.input = h('input', {
      type: 'text', class: 'chat-input', testid: 'chat-input', maxlength: String(TEXT_LIMIT),
      autocomplete: 'off',
    });
    this.render();
  }

  /** Adds lines (skipping any already shown); the ones that arrive while folded count as unread. */
  add(lines, { history = false } = {}) {
    let added = false;
    for (const line of lines) {
      if (!line || typeof line !== 'object' || line.id === undefined || this.lines.has(line.id)) continue;
      this.lines.set(line.id, line);
      added = true;
      if (!history && !this.open && !this.isMine(line)) this.unread += 1;
    }
    if (!added) return;
    const ids = [...this.lines.keys()].sort((a, b) => a - b);
    for (const id of ids.slice(0, Math.max(0, ids.length - KEEP))) this.lines.delete(id);
    this.render();
  }

  toggle() {
    this.open = !this.open;
    if (this.open) this.unread = 0;
    this.render();
    if (this.open) this.input.focus({ preventScroll: true });
  }

  async submit(line) {
    if (this.sending) return;
    this.sending = true;
    this.error = null;
    this.render();
    try {
      await this.send(line);
      if (line.text !== undefined) this.input.value = '';
    } catch (err) {
      this.error = err; // said at each render, in the language of the moment
    } finally {
      this.sending = false;
      this.render();
    }
  }

  lineText(line) {
    if (line.emote !== undefined && line.emote !== null) {
      const key = `chat.emote.${line.emote}`;
      return EMOTES.includes(line.emote) ? t(key) : String(line.emote);
    }
    return String(line.text ?? '');
  }

  lineItem(line) {
    const spectator = line.channel === 'spectators';
    return h('li', {
      class: ['chat-line', spectator ? 'is-spectator' : '', line.emote ? 'is-emote' : ''].join(' ').trim(),
      dataset: { id: line.id, channel: line.channel },
    },
    h('span', { class: 'chat-name' }, String(line.name ?? t('common.someone'))),
    spectator ? h('span', { class: 'tag tag-spectator', title: t('chat.spectator_title') }, t('chat.spectator')) : null,
    ' ',
    h('span', { class: 'chat-text' }, this.lineText(line)));
  }

  render() {
    const focused = document.activeElement === this.input;
    const lines = [...this.lines.values()].sort((a, b) => a.id - b.id);
    this.input.placeholder = t('chat.placeholder');
    this.input.setAttribute('aria-label', t('chat.placeholder'));
    const list = h('ol', { class: 'chat-lines', testid: 'chat-lines', 'aria-live': 'polite' },
      lines.length ? lines.map((line) => this.lineItem(line)) : h('li', { class: 'muted small' }, t('chat.empty')));
    const form = h('form', {
      class: 'chat-form',
      onsubmit: (e) => {
        e.preventDefault();
        this.submit({ text: this.input.value });
      },
    }, this.input, h('button', {
      type: 'submit', class: 'btn btn-small', testid: 'chat-send', disabled: this.sending,
    }, t('chat.send')));
    mount(this.element,
      h('button', {
        type: 'button', class: 'chat-toggle', testid: 'chat-toggle',
        'aria-expanded': this.open ? 'true' : 'false', onclick: () => this.toggle(),
      },
      h('span', null, t('chat.title')),
      this.unread
        ? h('span', { class: 'badge chat-unread', testid: 'chat-unread', title: t('chat.unread', { n: this.unread }) },
          String(this.unread))
        : null,
      h('span', { class: 'chat-caret', 'aria-hidden': 'true' }, this.open ? '▾' : '▸')),
      h('div', { class: 'chat-body', testid: 'chat-body', hidden: !this.open },
        list,
        h('div', { class: 'chat-emotes', role: 'group', 'aria-label': t('chat.emotes') },
          EMOTES.map((emote) => h('button', {
            type: 'button', class: 'btn btn-small btn-ghost', testid: `chat-emote-${emote}`,
            disabled: this.sending, onclick: () => this.submit({ emote }),
          }, t(`chat.emote.${emote}`)))),
        form,
        h('p', { class: 'inline-error', testid: 'chat-error', role: 'alert', hidden: !this.error }, this.error ? errorText(this.error) : '')));
    list.scrollTop = list.scrollHeight;
    if (focused) this.input.focus({ preventScroll: true });
  }
}
