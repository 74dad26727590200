// The WebSocket client.
//
// - Every command gets a `ref`; `request()` returns a promise settled by the
//   matching `ack` (or `pong`) or rejected by the matching `error`.
// - `state` messages are delivered only when their version is newer than the
//   last one seen for that room (older or equal ones are stale and dropped).
// - An unexpected close reconnects with exponential backoff and jitter; the
//   `open` listeners (with `reconnect: true`) re-join their rooms.
// - `ping`/`pong` keep the link alive and measure the offset between the
//   server clock and ours, so countdowns match the server's deadlines.

const PING_EVERY_MS = 10_000;
const SILENCE_LIMIT_MS = 35_000;
const REQUEST_TIMEOUT_MS = 12_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 10_000;

export class SocketError extends Error {
  constructor(code, message) {
    super(message || code);
    this.name = 'SocketError';
    this.code = code;
  }
}

export class GameSocket {
  /** `urlFor()` returns the URL to connect to (it may change when the identity does). */
  constructor(urlFor) {
    this.urlFor = urlFor;
    this.ws = null;
    this.wanted = false;
    this.everOpened = false;
    this.attempt = 0;
    this.reconnectTimer = null;
    this.pingTimer = null;
    this.lastHeard = 0;
    this.nextRef = 1;
    this.pending = new Map();
    this.outbox = [];
    this.versions = new Map();
    this.listeners = new Map();
    this.clockSamples = [];
    this.fallbackOffset = null;
    this.status = 'idle';
  }

  // --- listeners -----------------------------------------------------------

  /**
   * Subscribes to `open`, `close`, `status`, `state`, `event`, `spectators`,
   * `log`, `chat_history`, `chat`, `error`, `message`.
   */
  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(fn);
    return () => this.listeners.get(type)?.delete(fn);
  }

  emit(type, payload) {
    for (const fn of [...(this.listeners.get(type) || [])]) {
      try {
        fn(payload);
      } catch (err) {
        console.error(`socket ${type} listener failed`, err);
      }
    }
  }

  setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.emit('status', status);
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  // --- connection ----------------------------------------------------------

  start() {
    this.wanted = true;
    if (!this.ws) this.connect();
  }

  stop() {
    this.wanted = false;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.teardown();
    this.setStatus('idle');
  }

  /** Reconnects now (e.g. with a new token); `open` listeners re-join as after a drop. */
  restart() {
    this.wanted = true;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.teardown();
    this.connect();
  }

  connect() {
    let ws;
    try {
      ws = new WebSocket(this.urlFor());
    } catch (err) {
      console.error('cannot open the game socket', err);
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    this.setStatus(this.everOpened ? 'reconnecting' : 'connecting');
    ws.addEventListener('open', () => {
      if (this.ws !== ws) return;
      const reconnect = this.everOpened;
      this.everOpened = true;
      this.attempt = 0;
      this.lastHeard = Date.now();
      this.setStatus('open');
      this.startPinging();
      this.emit('open', { reconnect });
      const queued = this.outbox.splice(0);
      for (const frame of queued) ws.send(frame);
    });
    ws.addEventListener('message', (e) => {
      if (this.ws !== ws) return;
      this.lastHeard = Date.now();
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      if (msg && typeof msg === 'object') this.dispatch(msg);
    });
    ws.addEventListener('close', (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPinging();
      this.failPending(new SocketError('disconnected', 'Connection lost; reconnecting…'));
      this.emit('close', { code: e.code, reason: e.reason });
      if (this.wanted) this.scheduleReconnect();
      else this.setStatus('idle');
    });
    // `error` is always followed by `close`, which does the work.
  }

  teardown() {
    this.stopPinging();
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      try {
        ws.close(1000, 'bye');
      } catch {
        // Already closing.
      }
    }
    this.failPending(new SocketError('disconnected', 'Connection closed.'));
  }

  scheduleReconnect() {
    clearTimeout(this.reconnectTimer);
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** this.attempt);
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    this.attempt += 1;
    this.setStatus('reconnecting');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.wanted && !this.ws) this.connect();
    }, delay);
  }

  startPinging() {
    this.stopPinging();
    this.ping();
    this.pingTimer = setInterval(() => {
      if (Date.now() - this.lastHeard > SILENCE_LIMIT_MS && this.ws) {
        // The link is dead without a close frame: drop it and reconnect.
        const ws = this.ws;
        this.ws = null;
        this.stopPinging();
        try {
          ws.close(4000, 'silent');
        } catch {
          // Ignore.
        }
        this.failPending(new SocketError('disconnected', 'Connection lost; reconnecting…'));
        this.emit('close', { code: 4000, reason: 'silent' });
        if (this.wanted) this.scheduleReconnect();
        return;
      }
      this.ping();
    }, PING_EVERY_MS);
  }

  stopPinging() {
    clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  ping() {
    const sentAt = Date.now();
    this.request({ type: 'ping' }, { queue: false, timeout: PING_EVERY_MS })
      .then((pong) => {
        const receivedAt = Date.now();
        if (typeof pong.server_time !== 'number') return;
        const rtt = receivedAt - sentAt;
        const offset = pong.server_time + rtt / 2 - receivedAt;
        this.clockSamples.push({ rtt, offset });
        if (this.clockSamples.length > 8) this.clockSamples.shift();
      })
      .catch(() => {});
  }

  // --- clock ---------------------------------------------------------------

  /** Milliseconds to add to Date.now() to get the server's clock. */
  get clockOffset() {
    if (this.clockSamples.length) {
      // The sample with the shortest round trip is the least distorted.
      let best = this.clockSamples[0];
      for (const s of this.clockSamples) if (s.rtt < best.rtt) best = s;
      return best.offset;
    }
    return this.fallbackOffset ?? 0;
  }

  /** A rough offset from a view's `server_time`, used until a pong arrives. */
  noteServerTime(serverTime) {
    if (typeof serverTime === 'number' && !this.clockSamples.length) {
      this.fallbackOffset = serverTime - Date.now();
    }
  }

  serverNow() {
    return Date.now() + this.clockOffset;
  }

  // --- messages ------------------------------------------------------------

  /**
   * Sends a command and resolves with the reply that carries its ref (`ack`,
   * `pong`; a `join` also resolves on the room's first state). Rejects with a
   * SocketError on `error`, on a drop, or after a timeout. While the socket is
   * down the command waits in a queue (unless `queue` is false).
   */
  request(msg, { timeout = REQUEST_TIMEOUT_MS, queue = true } = {}) {
    const ref = this.nextRef++;
    const frame = JSON.stringify({ ...msg, ref });
    // A join is answered with a fresh snapshot, whatever was seen before.
    if (msg.type === 'join') this.forgetRoom(msg.room);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(ref);
        reject(new SocketError('timeout', 'The server did not answer in time.'));
      }, timeout);
      this.pending.set(ref, {
        resolve, reject, timer, type: msg.type, room: msg.room,
      });
      if (this.isOpen) this.ws.send(frame);
      else if (queue) this.outbox.push(frame);
      else {
        clearTimeout(timer);
        this.pending.delete(ref);
        reject(new SocketError('disconnected', 'Not connected.'));
      }
    });
  }

  settle(ref, ok, value) {
    const entry = this.pending.get(ref);
    if (!entry) return false;
    this.pending.delete(ref);
    clearTimeout(entry.timer);
    if (ok) entry.resolve(value);
    else entry.reject(value);
    return true;
  }

  failPending(error) {
    // A queued command waits for the next connection; sent ones are lost.
    const queued = new Set(this.outbox.map((frame) => JSON.parse(frame).ref));
    for (const ref of [...this.pending.keys()]) {
      if (!queued.has(ref)) this.settle(ref, false, error);
    }
  }

  /** Forgets the version seen for a room (we left it; a later join starts afresh). */
  forgetRoom(room) {
    this.versions.delete(String(room));
  }

  dispatch(msg) {
    this.emit('message', msg);
    switch (msg.type) {
      case 'ack':
      case 'pong':
        if (msg.ref != null) this.settle(msg.ref, true, msg);
        break;
      case 'error': {
        const err = new SocketError(msg.code || 'error', msg.message || msg.code || 'Refused.');
        // Put into words by errorText(): the reason's sentence with its params; the rule id is never shown.
        err.reason = msg.reason;
        err.params = msg.params;
        err.rule = msg.rule;
        if (msg.ref == null || !this.settle(msg.ref, false, err)) this.emit('error', err);
        break;
      }
      case 'state': {
        const key = String(msg.room);
        const last = this.versions.get(key);
        if (typeof msg.version === 'number' && last !== undefined && msg.version <= last) return;
        if (typeof msg.version === 'number') this.versions.set(key, msg.version);
        if (msg.view) this.noteServerTime(msg.view.server_time);
        // A join is answered by the room's state even if its ack comes later.
        for (const [ref, entry] of this.pending) {
          if (entry.type === 'join' && String(entry.room) === key) this.settle(ref, true, msg);
        }
        this.emit('state', msg);
        break;
      }
      case 'event':
        this.emit('event', msg);
        break;
      case 'spectators':
        // How many watch: no new version of the room, so no state comes with it.
        this.emit('spectators', msg);
        break;
      case 'log':
        // The current game's table log, right after a join's state.
        this.emit('log', msg);
        break;
      case 'chat_history':
      case 'chat':
        // Chat is no game state: no version, lines are told apart by `id`.
        this.emit(msg.type, msg);
        break;
      default:
        break;
    }
  }
}
