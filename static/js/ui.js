// Small pieces shared by the game tables: class lists, drag and drop of hand
// cards, and a server-synced countdown.

/** Joins the truthy class names. */
export function cls(...names) {
  return names.filter(Boolean).join(' ');
}

/** A seat's value from a per-seat list or an object keyed by seat. */
export function bySeat(value, seat) {
  if (Array.isArray(value)) return value[seat];
  if (value && typeof value === 'object') return value[seat] ?? value[String(seat)];
  return undefined;
}

/** "+5", "-3", "0". */
export function signed(n) {
  const v = Number(n) || 0;
  return v > 0 ? `+${v}` : String(v);
}

/** "1 card", "3 cards": English only; words on screen come from t() (i18n.js) and its plural forms. */
export function plural(n, word, many = `${word}s`) {
  return `${n} ${n === 1 ? word : many}`;
}

const DRAG_THRESHOLD_PX = 6;
const LONG_PRESS_MS = 260;

/**
 * Dragging a hand card onto a drop zone (a meld, the discard pile...).
 *
 * Works with a mouse (drag after a few pixels) and with a finger (press and
 * hold, then drag), through pointer events on the window so that a re-render
 * of the table during the drag does not lose it. A plain click still reaches
 * the card (select / deselect); a drag swallows the click that follows it.
 *
 * `options`:
 * - `root`: the element holding the table (the listeners are delegated to it);
 * - `cardSelector`: which elements can be dragged (they carry `data-card`);
 * - `zoneSelector`: the drop zones;
 * - `canDrag(cardId)`: whether a drag may start now;
 * - `onDrop(cardId, zoneElement)`: the drop, on a zone.
 */
export class CardDrag {
  constructor({ root, cardSelector, zoneSelector, canDrag, onDrop }) {
    this.root = root;
    this.cardSelector = cardSelector;
    this.zoneSelector = zoneSelector;
    this.canDrag = canDrag;
    this.onDrop = onDrop;
    this.press = null;
    this.drag = null;
    this.swallowClick = false;
    this.onDown = (e) => this.down(e);
    this.onMove = (e) => this.move(e);
    this.onUp = (e) => this.up(e);
    this.onCancel = () => this.cancel();
    this.onTouchMove = (e) => {
      if (this.drag) e.preventDefault();
    };
    this.onClick = (e) => {
      if (this.swallowClick) {
        this.swallowClick = false;
        e.stopPropagation();
        e.preventDefault();
      }
    };
    this.onContextMenu = (e) => {
      if (this.press || this.drag) e.preventDefault();
    };
    root.addEventListener('pointerdown', this.onDown);
    root.addEventListener('click', this.onClick, true);
    root.addEventListener('contextmenu', this.onContextMenu);
    window.addEventListener('pointermove', this.onMove);
    window.addEventListener('pointerup', this.onUp);
    window.addEventListener('pointercancel', this.onCancel);
    // Not passive, so that a finger dragging a card does not scroll the page;
    // on the table only, so that scrolling elsewhere stays smooth.
    root.addEventListener('touchmove', this.onTouchMove, { passive: false });
  }

  destroy() {
    this.cancel();
    this.root.removeEventListener('pointerdown', this.onDown);
    this.root.removeEventListener('click', this.onClick, true);
    this.root.removeEventListener('contextmenu', this.onContextMenu);
    window.removeEventListener('pointermove', this.onMove);
    window.removeEventListener('pointerup', this.onUp);
    window.removeEventListener('pointercancel', this.onCancel);
    this.root.removeEventListener('touchmove', this.onTouchMove);
  }

  get active() {
    return this.drag !== null;
  }

  down(e) {
    if (e.button !== 0 || this.drag) return;
    const el = e.target.closest(this.cardSelector);
    if (!el || !this.root.contains(el) || el.disabled) return;
    const card = el.dataset.card;
    if (!card || !this.canDrag(card)) return;
    this.press = {
      card, el, x: e.clientX, y: e.clientY, id: e.pointerId, mouse: e.pointerType === 'mouse', timer: null,
    };
    if (!this.press.mouse) {
      this.press.timer = setTimeout(() => {
        if (this.press) this.start(this.press.x, this.press.y);
      }, LONG_PRESS_MS);
    }
  }

  move(e) {
    if (this.drag) {
      if (e.pointerId !== this.drag.id) return;
      e.preventDefault();
      this.follow(e.clientX, e.clientY);
      return;
    }
    const p = this.press;
    if (!p || e.pointerId !== p.id) return;
    const far = Math.hypot(e.clientX - p.x, e.clientY - p.y) > DRAG_THRESHOLD_PX;
    if (!far) return;
    if (p.mouse) {
      this.start(e.clientX, e.clientY);
    } else {
      // A finger that moves before the long press scrolls the page instead.
      clearTimeout(p.timer);
      this.press = null;
    }
  }

  start(x, y) {
    const p = this.press;
    if (!p) return;
    clearTimeout(p.timer);
    this.press = null;
    if (!this.canDrag(p.card)) return;
    const rect = p.el.getBoundingClientRect();
    const ghost = p.el.cloneNode(true);
    ghost.removeAttribute('data-testid');
    ghost.removeAttribute('data-card');
    ghost.classList.add('drag-ghost');
    ghost.classList.remove('is-selected');
    ghost.style.width = `${rect.width}px`;
    ghost.style.left = '0px';
    ghost.style.top = '0px';
    document.body.appendChild(ghost);
    this.drag = {
      card: p.card, id: p.id, ghost, dx: x - rect.left, dy: y - rect.top, hover: null,
    };
    document.body.classList.add('is-dragging-card');
    this.root.classList.add('is-dragging');
    this.markZones();
    this.follow(x, y);
  }

  follow(x, y) {
    const d = this.drag;
    d.ghost.style.transform = `translate(${x - d.dx}px, ${y - d.dy}px) rotate(4deg)`;
    const zone = this.zoneAt(x, y);
    if (zone !== d.hover) {
      d.hover?.classList.remove('is-drop-hover');
      zone?.classList.add('is-drop-hover');
      d.hover = zone;
    }
  }

  zoneAt(x, y) {
    const under = document.elementFromPoint(x, y);
    const zone = under?.closest(this.zoneSelector);
    return zone && this.root.contains(zone) ? zone : null;
  }

  /** Marks the drop zones (again after a re-render during a drag). */
  markZones() {
    if (!this.drag) return;
    for (const zone of this.root.querySelectorAll(this.zoneSelector)) zone.classList.add('is-drop-zone');
    const el = this.root.querySelector(`${this.cardSelector}[data-card="${CSS.escape(this.drag.card)}"]`);
    el?.classList.add('is-drag-source');
    this.drag.hover?.classList.add('is-drop-hover');
  }

  up(e) {
    if (this.press && e.pointerId === this.press.id) {
      clearTimeout(this.press.timer);
      this.press = null;
      return;
    }
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    const zone = this.zoneAt(e.clientX, e.clientY);
    this.finish();
    // The click that ends a drag must not also select or deselect the card.
    this.swallowClick = true;
    setTimeout(() => { this.swallowClick = false; }, 0);
    if (zone) this.onDrop(d.card, zone);
  }

  cancel() {
    if (this.press) clearTimeout(this.press.timer);
    this.press = null;
    if (this.drag) this.finish();
  }

  finish() {
    const d = this.drag;
    this.drag = null;
    d?.ghost.remove();
    document.body.classList.remove('is-dragging-card');
    this.root.classList.remove('is-dragging');
    for (const el of this.root.querySelectorAll('.is-drop-zone, .is-drop-hover, .is-drag-source')) {
      el.classList.remove('is-drop-zone', 'is-drop-hover', 'is-drag-source');
    }
  }
}

/**
 * Runs a clock's bar down to `fraction` (0-1, clamped) of its length, by
 * scaleX (see .clock-fill in style.css): the browser composites it without
 * laying the page out again.
 */
export function fillBar(fill, fraction) {
  fill.style.transform = `scaleX(${Math.max(0, Math.min(1, fraction))})`;
}

/**
 * The time on the server's clock: `serverNow()` of the socket when it has
 * measured its offset, else the view's `server_time` carried forward.
 */
export function serverClock(ctx, view, receivedAt) {
  if (typeof ctx.serverNow === 'function') return ctx.serverNow();
  if (view && typeof view.server_time === 'number') return view.server_time + (Date.now() - receivedAt);
  return Date.now();
}
