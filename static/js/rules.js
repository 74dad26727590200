// The rules pages: each game's rules in the project's own words, with card
// pictures, in five languages; and the words of kartu's own pages.
//
// Route: /?rules=GAME (the server's /rules and /rules/GAME lead here). A table
// opens the same content in a dialog over itself (openRules), so that a
// player on a phone never leaves the game to read the rules.
//
// Language: `document.documentElement.lang` ("id", "fr-FR", "nb"...), else
// English. The rules live in static/js/rules/GAME.js and this page's words in
// static/js/lang/pages.LANG.js, both plain JSON after `export default`.

import { cardElement, installCardSprite } from './cards.js';
import { h, mount } from './dom.js';
import en from './lang/pages.en.js';
import fr from './lang/pages.fr.js';
import id from './lang/pages.id.js';
import nb from './lang/pages.nb.js';
import sr from './lang/pages.sr.js';

const DICTS = { en, id, fr, nb, sr };
// Codes a page may carry for one of the five languages.
const ALIASES = { no: 'nb', nn: 'nb', in: 'id' };
/** The games that have a rules page, in the order the page lists them. */
export const RULES_GAMES = ['basic_rummy', 'indonesian_remi', 'traditional_remi', 'remmi_demmi'];

/** The page's language among en, id, fr, nb, sr (from `<html lang>`; English otherwise). */
export function pageLang() {
  const base = String(document.documentElement.lang || 'en').toLowerCase().split(/[-_]/)[0];
  const code = ALIASES[base] || base;
  return DICTS[code] ? code : 'en';
}

/** The page word `key` in the page's language, `{name}` marks filled from `vars`. */
export function pageText(key, vars = {}) {
  const text = DICTS[pageLang()][key] ?? en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

/** The link to a game's rules page. */
export function rulesUrl(game) {
  return `/?rules=${encodeURIComponent(game)}`;
}

async function loadRules(game) {
  if (!RULES_GAMES.includes(game)) return null;
  return (await import(`./rules/${game}.js`)).default;
}

/** A function drawing one card of `game` (Remmi Demmi has its own deck). */
async function cardMaker(game) {
  installCardSprite();
  if (game !== 'remmi_demmi') return (card) => cardElement(card);
  // Loaded on demand: the tables import this module, and Remmi Demmi's table
  // is built on theirs.
  const { installRdSprite, rdCardElement } = await import('./table_remmi_demmi.js');
  installRdSprite();
  return (card) => rdCardElement(card);
}

function picture(key, pic, caption, drawCard) {
  return h('figure', {
    class: `rules-figure ${pic.ok ? 'is-valid' : 'is-invalid'}`,
    testid: `rules-figure-${key}`, dataset: { valid: pic.ok ? 'true' : 'false' },
  },
  h('div', { class: 'rules-cards' }, pic.cards.map((card) => drawCard(card))),
  h('figcaption', null,
    h('strong', { class: 'rules-mark' }, `${pic.ok ? '✓' : '✗'} ${pageText(pic.ok ? 'rules.valid' : 'rules.invalid')}`),
    ' ', caption));
}

/** The rules of `game` as an element, in the page's language. */
export async function rulesArticle(game) {
  const content = await loadRules(game);
  if (!content) return h('p', { class: 'muted', testid: 'rules-missing' }, pageText('rules.missing'));
  const lang = pageLang();
  const words = content[lang] || content.en;
  const drawCard = await cardMaker(game);
  return h('article', { class: 'rules', testid: 'rules', lang, dataset: { game, lang } },
    h('h1', { testid: 'rules-title' }, words.title),
    h('p', { class: 'rules-intro' }, words.intro),
    words.sections.map((section) => h('section', { class: 'rules-section', testid: `rules-${section.id}` },
      h('h2', null, section.title),
      section.text.map((line) => h('p', null, line)),
      section.figures
        ? h('div', { class: 'rules-figures' }, Object.entries(section.figures)
          .map(([key, caption]) => picture(key, content.pictures[key], caption, drawCard)))
        : null)));
}

/** Opens the rules of `game` in a dialog over the page; closing it leaves the page as it was. */
export async function openRules(game) {
  document.querySelector('dialog.rules-dialog')?.remove();
  const body = h('div', { class: 'rules-dialog-body' },
    h('p', { class: 'muted' }, pageText('rules.loading')));
  const dialog = h('dialog', { class: 'rules-dialog', testid: 'rules-dialog', 'aria-label': pageText('rules.title') },
    h('div', { class: 'rules-dialog-bar' },
      h('a', {
        href: rulesUrl(game), target: '_blank', rel: 'noopener', class: 'btn btn-small btn-quiet', testid: 'rules-new-tab',
      }, pageText('rules.open_tab')),
      h('button', {
        type: 'button', class: 'btn btn-small', testid: 'rules-close', onclick: () => dialog.close(),
      }, pageText('rules.close'))),
    body);
  dialog.addEventListener('close', () => dialog.remove());
  // A click on the backdrop (outside the box) closes it too.
  dialog.addEventListener('click', (e) => {
    if (e.target === dialog) dialog.close();
  });
  document.body.appendChild(dialog);
  dialog.showModal();
  mount(body, await rulesArticle(game));
  return dialog;
}

/** The page /?rules=GAME: the rules, and links to the other games' rules. */
export class RulesPage {
  constructor(root, game, { onNavigate = null } = {}) {
    this.root = root;
    this.game = RULES_GAMES.includes(game) ? game : RULES_GAMES[0];
    this.onNavigate = onNavigate;
    this.closed = false;
    // A language switcher changes <html lang>: the page follows.
    this.observer = new MutationObserver(() => this.render());
    this.observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
    this.render();
  }

  destroy() {
    this.closed = true;
    this.observer.disconnect();
    document.title = 'Kartu';
  }

  go(url, e) {
    if (!this.onNavigate) return;
    e.preventDefault();
    this.onNavigate(url);
  }

  async render() {
    const article = await rulesArticle(this.game);
    if (this.closed) return;
    const others = RULES_GAMES.filter((g) => g !== this.game);
    const titles = await Promise.all(others.map(async (g) => {
      const content = await loadRules(g);
      return (content[pageLang()] || content.en).title;
    }));
    if (this.closed) return;
    document.title = `${pageText('rules.title')} · ${article.querySelector('h1')?.textContent || ''} · Kartu`;
    mount(this.root, h('div', { class: 'rules-page panel', testid: 'rules-page' },
      h('nav', { class: 'rules-nav' },
        h('a', {
          href: '/', class: 'btn btn-small', testid: 'rules-back',
          onclick: (e) => this.go('/', e),
        }, `← ${pageText('rules.back')}`)),
      article,
      h('nav', { class: 'rules-others' },
        h('h2', null, pageText('rules.other_games')),
        h('ul', null, others.map((g, i) => h('li', null, h('a', {
          href: rulesUrl(g), testid: `rules-link-${g}`, onclick: (e) => this.go(rulesUrl(g), e),
        }, titles[i])))))));
  }
}
