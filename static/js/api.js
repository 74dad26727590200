// HTTP calls and the guest identity.
//
// A guest identity ({player_id, name, token}) is created once with
// POST /api/guests and kept in localStorage, so a reload keeps the same
// player and a reconnect gets the same seat back.

const IDENTITY_KEY = 'kartu.identity';
const listeners = new Set();
const STATUS_CODES = { 0: 'network', 401: 'unauthorized', 404: 'not_found', 422: 'invalid' };

export class ApiError extends Error {
  constructor(status, message, detail) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
    // What errorText() puts into words: the server's code and reason, else the HTTP status.
    const body = detail && typeof detail === 'object' ? detail : {};
    const info = body.detail && typeof body.detail === 'object' && !Array.isArray(body.detail) ? body.detail : body;
    this.code = info.code || STATUS_CODES[status] || (status >= 500 ? 'server_error' : 'http');
    this.reason = info.reason;
    this.params = info.params;
  }
}

export function loadIdentity() {
  try {
    const raw = localStorage.getItem(IDENTITY_KEY);
    if (!raw) return null;
    const identity = JSON.parse(raw);
    if (identity && typeof identity.token === 'string' && identity.player_id != null) {
      return identity;
    }
  } catch {
    // A damaged entry is as good as none.
  }
  return null;
}

export function saveIdentity(identity) {
  const { player_id, name, token } = identity;
  localStorage.setItem(IDENTITY_KEY, JSON.stringify({ player_id, name, token }));
  for (const fn of listeners) fn(loadIdentity());
}

export function clearIdentity() {
  localStorage.removeItem(IDENTITY_KEY);
  for (const fn of listeners) fn(null);
}

/** Calls `fn(identity|null)` whenever the identity changes; returns an unsubscribe function. */
export function onIdentityChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The readable reason of an HTTP error body (FastAPI `detail`, or {code, message}). */
function reasonOf(body, status) {
  if (body && typeof body === 'object') {
    if (typeof body.message === 'string') return body.message;
    const detail = body.detail;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail) && detail.length) {
      return detail
        .map((d) => {
          const where = Array.isArray(d.loc) ? d.loc.filter((p) => p !== 'body').join('.') : '';
          const msg = String(d.msg || 'invalid').replace(/^Value error, /, '');
          return where ? `${where}: ${msg}` : msg;
        })
        .join('; ');
    }
    if (detail && typeof detail === 'object' && typeof detail.message === 'string') {
      return detail.message;
    }
  }
  if (typeof body === 'string' && body.trim() && body.length < 200) return body.trim();
  if (status === 401) return 'Your guest pass has expired: choose a name again.';
  if (status === 404) return 'Not found.';
  if (status >= 500) return 'The server had a problem. Please try again.';
  return `Request failed (${status}).`;
}

async function request(method, path, {
  body, auth = false, maybeAuth = false, exactInts = [],
} = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (auth) {
    const identity = loadIdentity();
    if (!identity) throw new ApiError(401, 'Choose a name first.', { code: 'no_name' });
    headers.Authorization = `Bearer ${identity.token}`;
  } else if (maybeAuth) {
    // Sent when there is one, so that the answer can say where "you" stand.
    const identity = loadIdentity();
    if (identity) headers.Authorization = `Bearer ${identity.token}`;
  }
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'The server cannot be reached. Check your connection.');
  }
  let text = await response.text();
  for (const key of exactInts) {
    // Integers past 2^53 (seeds) would lose digits as numbers: keep them as text.
    text = text.replace(new RegExp(`("${key}"\\s*:\\s*)(-?\\d{16,})`, 'g'), '$1"$2"');
  }
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!response.ok) {
    // The server no longer knows this guest (e.g. its database was reset).
    if (response.status === 401 && auth) clearIdentity();
    throw new ApiError(response.status, reasonOf(data, response.status), data);
  }
  return data;
}

function listOf(data, key) {
  if (Array.isArray(data)) return data;
  if (data && Array.isArray(data[key])) return data[key];
  return [];
}

/** Creates a guest and stores it as this browser's identity. */
export async function createGuest(name) {
  const identity = await request('POST', '/api/guests', { body: { name } });
  saveIdentity(identity);
  return loadIdentity();
}

/** Signs the guest out: the server forgets its token, then so does this browser. */
export async function signOut() {
  try {
    await request('POST', '/api/guests/me/signout', { auth: true });
  } catch (err) {
    // A token the server no longer knows is signed out already.
    if (!(err instanceof ApiError) || err.status !== 401) throw err;
  }
  clearIdentity();
}

export async function fetchGames() {
  return listOf(await request('GET', '/api/games'), 'games');
}

export async function fetchRooms() {
  return listOf(await request('GET', '/api/rooms'), 'rooms');
}

export async function fetchRoom(roomId) {
  return request('GET', `/api/rooms/${encodeURIComponent(roomId)}`);
}

export async function createRoom(game, seats, options) {
  return request('POST', '/api/rooms', { body: { game, seats, options }, auth: true });
}

// --- the daily deal -------------------------------------------------------------

/** Opens (or resumes) today's daily room of `game`: {room_id, date, ranked, resumed, seed_hash...}. */
export async function playDaily(game) {
  return request('POST', `/api/daily/${encodeURIComponent(game)}`, { auth: true });
}

/** A day's daily deal of `game`: {date, seed_hash, seed (past days), options, seats, ranking, you}. */
export async function fetchDaily(game, date = null) {
  const query = date ? `?date=${encodeURIComponent(date)}` : '';
  return request('GET', `/api/daily/${encodeURIComponent(game)}${query}`, { maybeAuth: true, exactInts: ['seed'] });
}

/** {game, date, ranking, entries: [{rank, player_id, name, score}], total, you}. */
export async function fetchLeaderboard(game, date = null, limit = 20) {
  const params = new URLSearchParams({ limit: String(limit) });
  if (date) params.set('date', date);
  return request('GET', `/api/leaderboard/${encodeURIComponent(game)}?${params}`, { maybeAuth: true });
}

/** {player_id, name, games: [{game, played, best, average}]}. */
export async function fetchPlayerStats(playerId) {
  return request('GET', `/api/players/${encodeURIComponent(playerId)}/stats`);
}

/** The link that opens a room directly (join if a seat is free, else watch). */
export function inviteUrl(roomId, { watch = false } = {}) {
  const url = new URL('/', window.location.origin);
  url.searchParams.set('room', roomId);
  if (watch) url.searchParams.set('watch', '1');
  return url.toString();
}
