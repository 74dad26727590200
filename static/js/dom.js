// Tiny DOM helpers shared by the views: element building without a framework,
// and patching a page in place to look like a freshly built tree.
//
// A handler is the function an element runs for an event type (`on()`); the
// element itself listens once per type and calls whichever handler it holds
// now, so a patched element can take over the handlers of its fresh twin.

// element -> Map(event type -> handler)
const handlers = new WeakMap();

function dispatch(event) {
  handlers.get(event.currentTarget)?.get(event.type)?.(event);
}

/** Runs `fn` for each `type` event on `el`, in place of the handler it had for `type`. */
export function on(el, type, fn) {
  let byType = handlers.get(el);
  if (!byType) handlers.set(el, (byType = new Map()));
  byType.set(type, fn);
  el.addEventListener(type, dispatch); // the same function: added once however often
}

/**
 * Builds an element. `attrs` keys:
 * - `class`, `testid` (-> data-testid), `dataset` (object), `style` (string),
 * - `on<event>` functions become handlers (`on()`),
 * - `true` sets a boolean attribute, `false`/null/undefined skip it,
 * - anything else is set as an attribute.
 * Children may be nodes, strings, numbers, arrays, or null/false (skipped).
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'testid') el.setAttribute('data-testid', value);
    else if (key === 'dataset') {
      for (const [k, v] of Object.entries(value)) {
        if (v !== null && v !== undefined) el.dataset[k] = String(v);
      }
    } else if (key === 'style') {
      // Through the CSSOM, not a style attribute: the page's CSP allows no inline style.
      el.style.cssText = String(value);
    } else if (key.startsWith('on') && typeof value === 'function') {
      on(el, key.slice(2).toLowerCase(), value);
    } else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
  return parent;
}

// --- patching in place -----------------------------------------------------------

// A child is matched by its data-testid where it has one, else by its place.
function keyOf(node) {
  return node.nodeType === Node.ELEMENT_NODE ? node.getAttribute('data-testid') : null;
}

function sameKind(a, b) {
  return a.nodeType === b.nodeType && a.nodeName === b.nodeName && keyOf(a) === keyOf(b);
}

// Attributes the reader sets, not the render: a drawer (<details>) stays open
// or shut as it was left, even by a tap an update overtakes before its toggle
// event has told the table.
function ownedByReader(el, name) {
  return name === 'open' && el instanceof HTMLDetailsElement;
}

function syncAttributes(old, fresh) {
  for (const { name } of [...old.attributes]) {
    if (!fresh.hasAttribute(name) && !ownedByReader(old, name)) old.removeAttribute(name);
  }
  for (const { name, value } of [...fresh.attributes]) {
    if (ownedByReader(old, name)) continue;
    if (name === 'style') {
      // Through the CSSOM, as h() sets it: the CSP refuses a style attribute.
      if (old.style.cssText !== fresh.style.cssText) old.style.cssText = fresh.style.cssText;
    } else if (old.getAttribute(name) !== value) {
      old.setAttribute(name, value);
    }
  }
}

function adoptHandlers(old, fresh) {
  const theirs = handlers.get(fresh);
  if (!theirs) {
    handlers.delete(old);
    return;
  }
  handlers.set(old, theirs);
  for (const type of theirs.keys()) old.addEventListener(type, dispatch);
}

function patchChildren(parent, after) {
  const before = [...parent.childNodes];
  const byKey = new Map();
  for (const node of before) {
    const key = keyOf(node);
    if (key !== null && !byKey.has(key)) byKey.set(key, node);
  }
  const kept = new Set();
  const result = after.map((next, i) => {
    const key = keyOf(next);
    const old = key !== null ? byKey.get(key) : before[i];
    if (!old || kept.has(old) || !sameKind(old, next)) return next;
    kept.add(old);
    patch(old, next);
    return old;
  });
  // The old children that stay are never taken out and put back: a node moved
  // in the middle of a click loses it.
  for (const node of before) if (!kept.has(node)) node.remove();
  result.forEach((node, i) => {
    const at = parent.childNodes[i];
    if (at !== node) parent.insertBefore(node, at ?? null);
  });
}

/**
 * Makes `old` look and act like `fresh`, a tree built for the same place, and
 * keeps every node of `old` that `fresh` has a match for: its attributes, text,
 * handlers and children become `fresh`'s, but it stays in the page. So a
 * button that a render leaves where it was keeps the press the pointer began
 * on it, and its focus. Form controls show the value `fresh` was built with;
 * a drawer stays open or shut as the reader left it.
 */
export function patch(old, fresh) {
  if (old.nodeType !== Node.ELEMENT_NODE) {
    if (old.nodeValue !== fresh.nodeValue) old.nodeValue = fresh.nodeValue;
    return;
  }
  syncAttributes(old, fresh);
  adoptHandlers(old, fresh);
  patchChildren(old, [...fresh.childNodes]);
  if (old instanceof HTMLSelectElement || old instanceof HTMLInputElement) {
    if (old.value !== fresh.value) old.value = fresh.value;
  }
  if (old instanceof HTMLInputElement && old.checked !== fresh.checked) old.checked = fresh.checked;
}

/** Patches `root`'s only child into `fresh` (see `patch`), or puts `fresh` in its place. */
export function patchInto(root, fresh) {
  const old = root.firstChild;
  if (old && root.childNodes.length === 1 && sameKind(old, fresh)) patch(old, fresh);
  else root.replaceChildren(fresh);
}

/** Replaces every child of `el` with `children`. */
export function mount(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** Escapes text for use inside markup built as a string (the SVG cards). */
export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({
    '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  })[c]);
}

/** "m:ss" for a duration in milliseconds (never negative). */
export function formatClock(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${minutes}:${String(seconds).padStart(2, '0')}`;
}

/** Copies text to the clipboard; falls back to a hidden textarea where the API is missing. */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Permission refused: try the old way below.
  }
  const area = h('textarea', { class: 'visually-hidden', readonly: true });
  area.value = text;
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/** Runs `fn` after the current render: used to restore focus after a re-render. */
export function afterRender(fn) {
  requestAnimationFrame(() => fn());
}
