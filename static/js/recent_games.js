// "Your recent games" in the lobby: the finished games this guest sat in
// (GET /api/me/games), each with a link to its replay.

import { loadIdentity } from './api.js';
import { h, mount } from './dom.js';
import { replayLink } from './help.js';
import { gameName } from './i18n.js';
import { pageText } from './rules.js';


async function fetchRecent(token) {
  const response = await fetch('/api/me/games?limit=8', {
    headers: { Accept: 'application/json', Authorization: `Bearer ${token}` }, cache: 'no-store',
  });
  if (!response.ok) return [];
  return (await response.json()).games || [];
}

/** The panel (hidden until the guest has a finished game); it fills itself. */
export function recentGamesPanel() {
  const list = h('ul', { class: 'recent-games' });
  const panel = h('section', { class: 'panel recent-panel', testid: 'recent-games', hidden: true },
    h('h2', null, pageText('recent.title')), list);
  const identity = loadIdentity();
  if (identity) {
    fetchRecent(identity.token).then((games) => {
      if (!games.length) return;
      mount(list, games.map((g) => h('li', { class: 'recent-game', testid: `recent-${g.room_id}` },
        h('span', { class: 'recent-title' },
          h('strong', null, gameName(g.game)),
          h('span', { class: 'muted small' }, ` · ${pageText('recent.score', { n: g.score })}`,
            g.won ? ` · ${pageText('recent.won')}` : '')),
        replayLink(g.room_id, { small: true, label: pageText('recent.watch') }))));
      panel.hidden = false;
    }).catch(() => {});
  }
  return panel;
}
