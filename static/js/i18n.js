// Every word the page shows, in the player's language.
//
// `t(key, params)` looks `key` up in the dictionary of the current language
// (static/js/lang/<code>.js), falls back to English, and fills `{name}`
// placeholders from `params`. An entry may be an object of plural forms
// ({"one": ..., "few": ..., "other": ...}, chosen by Intl.PluralRules from
// `params.n`). `tn()` does the same but lets params be DOM nodes (a card in a
// log line) and returns a list for h(). On a touch screen an entry
// `<key>.touch` stands in for `<key>` (a finger taps what a mouse clicks).
// The refusals of the server are put into words by `errorText(err)`: the
// sentence of its `reason`, else of its `code`, else a generic one; never the
// server's own text, its rule id or a raw card id.
//
// The language: the one chosen in the top bar (localStorage), else the first
// of the browser's languages that we have, else English.

import en from './lang/en.js';
import id from './lang/id.js';
import fr from './lang/fr.js';
import nb from './lang/nb.js';
import sr from './lang/sr.js';
import errorsEn from './lang/errors.en.js';
import errorsId from './lang/errors.id.js';
import errorsFr from './lang/errors.fr.js';
import errorsNb from './lang/errors.nb.js';
import errorsSr from './lang/errors.sr.js';

// `tag`: the BCP 47 tag for <html lang> and Intl (Serbian is written in Latin script here).
// `short`: what a phone's top bar shows of the chosen language (the list shows `name`).
export const LANGUAGES = [
  { code: 'en', tag: 'en', name: 'English', short: 'EN' },
  { code: 'id', tag: 'id', name: 'Bahasa Indonesia', short: 'ID' },
  { code: 'fr', tag: 'fr', name: 'Français', short: 'FR' },
  { code: 'nb', tag: 'nb', name: 'Norsk bokmål', short: 'NO' },
  { code: 'sr', tag: 'sr-Latn', name: 'Srpski', short: 'SR' },
];
const LANG_KEY = 'kartu.lang';
const DICTS = {
  en: withErrors(en, errorsEn),
  id: withErrors(id, errorsId),
  fr: withErrors(fr, errorsFr),
  nb: withErrors(nb, errorsNb),
  sr: withErrors(sr, errorsSr),
};
// Browser language tags that mean one of ours.
const ALIASES = { no: 'nb', nn: 'nb', in: 'id', hr: 'sr', bs: 'sr', sh: 'sr', cnr: 'sr' };

function withErrors(dict, errors) {
  const out = { ...dict };
  for (const [reason, text] of Object.entries(errors || {})) out[`error.${reason}`] = text;
  return out;
}

/** Our language code for a browser tag ("nb-NO" -> "nb", "sr-Latn-RS" -> "sr"), or null. */
export function matchLanguage(tag) {
  const primary = String(tag || '').toLowerCase().split(/[-_]/)[0];
  const code = ALIASES[primary] || primary;
  return DICTS[code] ? code : null;
}

function storedLanguage() {
  try {
    return matchLanguage(localStorage.getItem(LANG_KEY));
  } catch {
    return null;
  }
}

function browserLanguage() {
  const tags = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const tag of tags) {
    const code = matchLanguage(tag);
    if (code) return code;
  }
  return 'en';
}

let current = storedLanguage() || browserLanguage();
const listeners = new Set();

/** The current language code ("en", "id", "fr", "nb", "sr"). */
export function language() {
  return current;
}

/** The BCP 47 tag of the current language, for Intl and <html lang> ("sr-Latn"). */
export function locale() {
  return LANGUAGES.find((l) => l.code === current)?.tag || current;
}

/** Switches the language, remembers it and tells the listeners (which re-render). */
export function setLanguage(code) {
  const next = matchLanguage(code) || 'en';
  try {
    localStorage.setItem(LANG_KEY, next);
  } catch {
    // Private mode: the choice lasts for this page only.
  }
  if (next === current) return;
  current = next;
  applyDocumentLanguage();
  for (const fn of [...listeners]) fn(next);
}

/** Calls `fn(code)` after every language switch; returns an unsubscribe function. */
export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Sets <html lang> and the page's static words. */
export function applyDocumentLanguage() {
  document.documentElement.lang = locale();
  document.title = t('app.title');
  document.querySelector('meta[name="description"]')?.setAttribute('content', t('app.description'));
}

const pluralRules = new Map();

function pluralForm(entry, params) {
  const n = Number(params?.n);
  let rules = pluralRules.get(current);
  if (!rules) {
    rules = new Intl.PluralRules(locale());
    pluralRules.set(current, rules);
  }
  const form = Number.isFinite(n) ? rules.select(n) : 'other';
  return entry[form] ?? entry.other ?? Object.values(entry)[0];
}

// A sentence that names the gesture ("Click the stock") has a finger's words
// in `<key>.touch` ("Tap the stock"), used while the main pointer is a finger.
const fingerPointer = typeof matchMedia === 'function' ? matchMedia('(pointer: coarse)') : null;

function entryOf(dict, key) {
  if (fingerPointer?.matches && dict?.[`${key}.touch`] !== undefined) return dict[`${key}.touch`];
  return dict?.[key];
}

function lookup(key, params) {
  let entry = entryOf(DICTS[current], key);
  if (entry === undefined) entry = entryOf(DICTS.en, key);
  if (entry === undefined) return undefined;
  return entry && typeof entry === 'object' ? pluralForm(entry, params) : entry;
}

/** Whether `key` has a text (in this language or in English). */
export function has(key) {
  return DICTS[current]?.[key] !== undefined || DICTS.en[key] !== undefined;
}

/** Whether the current language itself has `key` (no English fallback). */
function hasOwn(key) {
  return DICTS[current]?.[key] !== undefined;
}

/** The text of `key` with `{name}` placeholders filled from `params`. */
export function t(key, params = {}) {
  const text = lookup(key, params);
  if (text === undefined) return key;
  return String(text).replace(/\{(\w+)\}/g, (all, name) => (
    params[name] === undefined || params[name] === null ? all : String(params[name])));
}

/** Like t(), but `params` may hold DOM nodes: a list of strings and nodes for h(). */
export function tn(key, params = {}) {
  const text = lookup(key, params);
  if (text === undefined) return [key];
  const out = [];
  let last = 0;
  String(text).replace(/\{(\w+)\}/g, (all, name, at) => {
    out.push(text.slice(last, at));
    const value = params[name];
    if (value === undefined || value === null) out.push(all);
    else if (Array.isArray(value) || value instanceof Node) out.push(value);
    else out.push(String(value));
    last = at + all.length;
    return all;
  });
  out.push(String(text).slice(last));
  return out.filter((part) => part !== '');
}

/** A game's name in the player's language (the server's title for a game we have no words for). */
export function gameName(game, title = null) {
  if (has(`game.${game}`)) return t(`game.${game}`);
  return title || String(game || '').replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
}

/** "A, B and C" in the current language. */
export function listText(items) {
  const list = items.map(String);
  if (list.length <= 1) return list.join('');
  if (list.length === 2) return t('list.two', { a: list[0], b: list[1] });
  return t('list.many', { rest: list.slice(0, -1).join(', '), last: list[list.length - 1] });
}

// --- refusals --------------------------------------------------------------------

const CARD_ID = /^([A2-9TJQK])([SHDC])(\d?)$/;
const SUIT_SYMBOLS = { S: '♠', H: '♥', D: '♦', C: '♣' };

// A Remmi Demmi card: colour, figure, copy ("OR3").
const RD_CARD_ID = /^([OPG])([RJL])(\d)$/;

/** "QS" -> "Q♠", "TD2" -> "10♦", "OR3" -> "orange running"; anything else unchanged. */
export function cardSymbol(value) {
  const m = CARD_ID.exec(String(value));
  if (!m) {
    const rd = RD_CARD_ID.exec(String(value));
    return rd ? t('rd.card_name', { colour: t(`rd.colour.${rd[1]}`), figure: t(`rd.figure.${rd[2]}`) })
      : String(value);
  }
  return `${m[1] === 'T' ? '10' : m[1]}${SUIT_SYMBOLS[m[2]]}`;
}

function errorParams(params) {
  const out = {};
  for (const [name, value] of Object.entries(params || {})) {
    if (Array.isArray(value)) {
      // Card symbols read one after the other (Q♠ K♠); Remmi Demmi's cards are words.
      out[name] = value.map(cardSymbol).join(value.some((v) => RD_CARD_ID.test(String(v))) ? ', ' : ' ');
    } else if (value !== null && typeof value === 'object') out[name] = '';
    else out[name] = cardSymbol(value);
  }
  return out;
}

/**
 * A refusal in the player's words. `err`: a string the page wrote itself, or
 * {code, reason, params, message, rule} from the server (or an HTTP error).
 */
export function errorText(err) {
  if (!err) return '';
  if (typeof err === 'string') return err;
  if (err.local) return err.message;
  // The reason's sentence in the player's language; else its code's (every
  // language has those); an English reason sentence only for English.
  if (err.reason && hasOwn(`error.${err.reason}`)) return t(`error.${err.reason}`, errorParams(err.params));
  if (err.code && has(`code.${err.code}`)) return t(`code.${err.code}`, errorParams(err.params));
  return t('code.generic');
}

/** An Error whose message the page wrote itself (already in the player's words). */
export function localError(message) {
  const err = new Error(message);
  err.local = true;
  return err;
}

applyDocumentLanguage();
