// Tiny DOM helpers shared by the views: element building without a framework.

/**
 * Builds an element. `attrs` keys:
 * - `class`, `testid` (-> data-testid), `dataset` (object), `style` (string),
 * - `on<event>` functions become listeners,
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
      el.addEventListener(key.slice(2).toLowerCase(), value);
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
