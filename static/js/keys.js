// Keyboard shortcuts at the table.
//
// A shortcut presses the table's own button (found by its data-testid), so
// whatever the button allows now is what the key does: a greyed-out button
// does nothing. Keys are ignored while typing (inputs, the chat) and with
// Ctrl, Alt or Meta held. "?" shows the list; Escape closes it.
//
// `decorateShortcuts(tree)` marks the buttons of a freshly built table
// (aria-keyshortcuts, and a title naming the key where the button has none):
// done on the tree before it is rendered, so a re-render finds the same markup.

import { h } from './dom.js';
import { t } from './i18n.js';

// key: the button(s) it presses, first match wins; `words`: its line in the help.
export const SHORTCUTS = [
  { key: 'D', targets: ['[data-testid="stock"]'], words: 'keys.draw' },
  {
    key: 'T',
    targets: ['[data-testid="discard-top"]', '[data-testid^="take-"][data-top="true"]'],
    words: 'keys.take',
  },
  { key: 'M', targets: ['[data-testid="btn-meld"]'], words: 'keys.meld' },
  { key: 'L', targets: ['[data-testid="melds"] button.meld.is-target'], words: 'keys.lay_off', layOff: true },
  { key: 'X', targets: ['[data-testid="btn-discard"]'], words: 'keys.discard' },
  { key: 'O', targets: ['[data-testid="btn-offer"]'], words: 'keys.offer' },
  { key: 'C', targets: ['[data-testid="btn-claim"]'], words: 'keys.claim' },
  { key: 'K', targets: ['[data-testid="btn-close"]'], words: 'keys.close_deal' },
];
const HELP_KEY = '?';

function typing(target) {
  if (!(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  return !!target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]');
}

/** Marks the shortcut buttons of `tree` (a table's layout, before it is rendered). */
export function decorateShortcuts(tree) {
  for (const { key, targets } of SHORTCUTS) {
    for (const el of tree.querySelectorAll(targets.join(', '))) {
      el.setAttribute('aria-keyshortcuts', key);
      if (!el.getAttribute('title')) el.setAttribute('title', t('keys.title', { key }));
    }
  }
  return tree;
}

/** The shortcuts of one table: listening from its construction until `destroy`. */
export class TableKeys {
  /** `root`: the table's element; `busy()`: true while a card is being dragged, say. */
  constructor(root, { busy = () => false } = {}) {
    this.root = root;
    this.busy = busy;
    this.help = null;
    this.onKey = (e) => this.key(e);
    document.addEventListener('keydown', this.onKey);
  }

  destroy() {
    document.removeEventListener('keydown', this.onKey);
    this.closeHelp();
  }

  key(e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
    if (e.key === 'Escape' && this.help) {
      e.preventDefault();
      this.closeHelp();
      return;
    }
    if (typing(e.target)) return;
    if (e.key === HELP_KEY) {
      e.preventDefault();
      if (this.help) this.closeHelp();
      else this.openHelp();
      return;
    }
    if (e.repeat || e.key.length !== 1 || this.busy()) return;
    const shortcut = SHORTCUTS.find((s) => s.key === e.key.toUpperCase());
    if (!shortcut) return;
    e.preventDefault();
    this.press(shortcut);
  }

  /** Presses the shortcut's button (a disabled one takes no click, so nothing happens). */
  press(shortcut) {
    const found = [...this.root.querySelectorAll(shortcut.targets.join(', '))]
      .filter((el) => el.isConnected && !el.closest('[hidden]'));
    if (!found.length) return;
    if (shortcut.layOff && found.length > 1) {
      // Several melds could take the card: L moves the focus from one to the
      // next; Enter lays the card off on the focused one.
      const at = found.indexOf(document.activeElement);
      found[(at + 1) % found.length].focus();
      return;
    }
    const [button] = found;
    if (button.disabled) return;
    button.click();
  }

  openHelp() {
    const close = h('button', {
      type: 'button', class: 'btn btn-small', testid: 'shortcuts-close', onclick: () => this.closeHelp(),
    }, t('keys.close'));
    this.returnFocus = document.activeElement;
    this.help = h('div', {
      class: 'shortcuts-help', testid: 'shortcuts-help', role: 'dialog', 'aria-labelledby': 'shortcuts-title',
    },
    h('h2', { id: 'shortcuts-title' }, t('keys.help_title')),
    h('dl', { class: 'shortcuts-list' },
      SHORTCUTS.map(({ key, words }) => [h('dt', null, h('kbd', null, key)), h('dd', null, t(words))]),
      h('dt', null, h('kbd', null, HELP_KEY)), h('dd', null, t('keys.help'))),
    h('p', { class: 'small muted' }, t('keys.note')),
    close);
    document.body.append(this.help);
    close.focus({ preventScroll: true });
  }

  closeHelp() {
    if (!this.help) return;
    this.help.remove();
    this.help = null;
    if (this.returnFocus?.isConnected) this.returnFocus.focus({ preventScroll: true });
    this.returnFocus = null;
  }
}
