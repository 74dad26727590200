// The table's sounds, synthesized with the Web Audio API (no audio files).
//
// Cues: `turn` (your own turn starts, or the trading timer), `draw`,
// `discard`, `meld` (a meld or a lay-off), `trade` and `claim` (Remmi
// Demmi's "Remmi-Demmi!"). Each is a few short oscillator tones or a burst of
// filtered noise under a quick gain envelope.
//
// Browsers let a page make sound only after a user gesture: the AudioContext
// is created (and resumed) on the first pointer or key press; a cue before
// that is dropped, silently. Muting is remembered in localStorage; a muted
// page creates no context and starts no sound at all.
//
// Every cue that does play is announced as a `kartu:sound` CustomEvent on
// window (`detail.cue`), so a test or another module can follow the sounds.

import { h } from './dom.js';
import { t } from './i18n.js';

const MUTE_KEY = 'kartu.muted';
const MASTER_GAIN = 0.55;
// Two cues closer than this play one after the other instead of on top.
const OVERLAP_S = 0.04;

let ctx = null;
let master = null;
let noiseBuffer = null;
let busyUntil = 0;
let muted = readMuted();
const listeners = new Set();

function readMuted() {
  try {
    return localStorage.getItem(MUTE_KEY) === '1';
  } catch {
    return false;
  }
}

/** Whether the sounds are muted (remembered across reloads). */
export function isMuted() {
  return muted;
}

/** Mutes or unmutes, remembers it and tells the listeners. */
export function setMuted(value) {
  muted = !!value;
  try {
    localStorage.setItem(MUTE_KEY, muted ? '1' : '0');
  } catch {
    // Private mode: the choice lasts for this page only.
  }
  if (muted && ctx && ctx.state === 'running') ctx.suspend().catch(() => {});
  if (!muted) unlock();
  for (const fn of [...listeners]) fn(muted);
}

/** Calls `fn(muted)` on every change; returns an unsubscribe function. */
export function onMuteChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// --- the context, made on a user gesture --------------------------------------------

const GESTURES = ['pointerdown', 'keydown', 'touchend'];

function unlock() {
  if (muted) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    if (!ctx) {
      ctx = new Context();
      master = ctx.createGain();
      master.gain.value = MASTER_GAIN;
      master.connect(ctx.destination);
    }
    if (ctx.state === 'suspended') ctx.resume().catch(() => {});
  } catch {
    ctx = null; // no audio on this machine: the table stays silent
  }
}

/** Listens for the first gestures (from then on a context may run). Called once at boot. */
export function installSound() {
  for (const type of GESTURES) window.addEventListener(type, unlock, { capture: true, passive: true });
}

// --- the building blocks ------------------------------------------------------------

function envelope(start, dur, peak, attack = 0.006) {
  const gain = ctx.createGain();
  gain.gain.setValueAtTime(0.0001, start);
  gain.gain.exponentialRampToValueAtTime(peak, start + attack);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + dur);
  gain.connect(master);
  return gain;
}

function tone(start, { freq, to = null, dur = 0.12, type = 'sine', peak = 0.3 }) {
  const osc = ctx.createOscillator();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, start);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, start + dur);
  osc.connect(envelope(start, dur, peak));
  osc.start(start);
  osc.stop(start + dur + 0.02);
}

function noise(start, { dur = 0.08, freq = 2000, to = null, q = 1, peak = 0.4, kind = 'bandpass' }) {
  if (!noiseBuffer) {
    const length = Math.floor(ctx.sampleRate * 0.5);
    noiseBuffer = ctx.createBuffer(1, length, ctx.sampleRate);
    const data = noiseBuffer.getChannelData(0);
    for (let i = 0; i < length; i += 1) data[i] = Math.random() * 2 - 1;
  }
  const source = ctx.createBufferSource();
  source.buffer = noiseBuffer;
  const filter = ctx.createBiquadFilter();
  filter.type = kind;
  filter.Q.value = q;
  filter.frequency.setValueAtTime(freq, start);
  if (to) filter.frequency.exponentialRampToValueAtTime(to, start + dur);
  source.connect(filter).connect(envelope(start, dur, peak, 0.004));
  source.start(start);
  source.stop(start + dur + 0.02);
}

// Each cue: its length in seconds and how to play it from `at`.
const CUES = {
  // A rising two-note chime.
  turn: [0.36, (at) => {
    tone(at, { freq: 659, dur: 0.16, peak: 0.28 });
    tone(at + 0.13, { freq: 988, dur: 0.24, peak: 0.24 });
  }],
  // A card slid off the stock: a quick swish.
  draw: [0.12, (at) => {
    noise(at, { dur: 0.11, freq: 1400, to: 4200, q: 0.9, peak: 0.45 });
  }],
  // A card put down on the pile: a short slap with a low knock.
  discard: [0.12, (at) => {
    noise(at, { dur: 0.07, freq: 1100, q: 0.7, peak: 0.55 });
    tone(at, { freq: 210, to: 110, dur: 0.1, type: 'triangle', peak: 0.3 });
  }],
  // Cards laid down: three quick notes up.
  meld: [0.3, (at) => {
    [523, 659, 784].forEach((freq, i) => tone(at + i * 0.07, { freq, dur: 0.11, type: 'triangle', peak: 0.22 }));
  }],
  // Cards changing hands: two notes gliding past each other.
  trade: [0.26, (at) => {
    tone(at, { freq: 440, to: 660, dur: 0.2, type: 'triangle', peak: 0.22 });
    tone(at + 0.05, { freq: 660, to: 440, dur: 0.2, type: 'sine', peak: 0.18 });
  }],
  // "Rem-mi-Dem-mi!": four notes, the last one held, and a sparkle.
  claim: [0.8, (at) => {
    [[523, 0, 0.12], [659, 0.13, 0.12], [523, 0.27, 0.12], [784, 0.4, 0.36]].forEach(([freq, off, dur]) => {
      tone(at + off, { freq, dur, type: 'triangle', peak: 0.3 });
      tone(at + off, { freq: freq * 2, dur, type: 'sine', peak: 0.08 });
    });
    noise(at + 0.42, { dur: 0.3, freq: 6000, q: 2, peak: 0.12, kind: 'highpass' });
  }],
};

/** The names of the cues. */
export const SOUND_CUES = Object.keys(CUES);

/** Plays `cue` unless muted (or before any gesture made a context possible). Returns whether it played. */
export function playSound(cue) {
  const spec = CUES[cue];
  if (!spec || muted || !ctx) return false;
  if (ctx.state === 'suspended') ctx.resume().catch(() => {});
  const [length, play] = spec;
  const now = ctx.currentTime;
  const at = Math.max(now + 0.01, busyUntil - OVERLAP_S);
  busyUntil = at + length;
  try {
    play(at);
  } catch {
    return false;
  }
  window.dispatchEvent(new CustomEvent('kartu:sound', { detail: { cue } }));
  return true;
}

/** The cue for a table event (a frame from the server), or null. */
export function cueForEvent(event) {
  switch (event?.kind) {
    case 'drew':
    case 'took':
      return 'draw';
    case 'discarded':
      return 'discard';
    case 'melded':
    case 'laid_off':
    case 'closed':
      return 'meld';
    case 'traded':
      return 'trade';
    case 'claimed':
      return 'claim';
    case 'timer_started':
      return 'turn';
    default:
      return null;
  }
}

// --- the top bar's toggle -------------------------------------------------------------

const SPEAKER = '<path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor" stroke="none"/>';
const WAVES = '<path d="M16 9.5a3.5 3.5 0 0 1 0 5M18.5 7a7 7 0 0 1 0 10"/>';
const CROSS = '<path d="M16.5 9.5l5 5M21.5 9.5l-5 5"/>';

/** The mute toggle in the top bar (made once, its words and state refreshed on every call). */
export function renderSoundToggle() {
  const bar = document.querySelector('.topbar');
  if (!bar) return;
  let button = document.getElementById('sound-toggle');
  if (!button) {
    button = h('button', {
      type: 'button', id: 'sound-toggle', class: 'sound-toggle', testid: 'btn-sound',
      onclick: () => setMuted(!isMuted()),
    });
    bar.insertBefore(button, document.getElementById('whoami'));
    onMuteChange(() => renderSoundToggle());
  }
  const label = t('sound.mute');
  button.setAttribute('aria-pressed', muted ? 'true' : 'false');
  button.setAttribute('aria-label', label);
  button.title = muted ? t('sound.muted_title') : t('sound.on_title');
  button.classList.toggle('is-muted', muted);
  // Drawn, not an emoji: the machine may have no emoji font.
  button.innerHTML = '<svg viewBox="0 0 24 24" width="18" height="18" fill="none" stroke="currentColor" '
    + `stroke-width="1.8" stroke-linecap="round" aria-hidden="true" focusable="false">${SPEAKER}${muted ? CROSS : WAVES}</svg>`;
}
