/*
 * src/view/assets/js/page.js — the page itself: panes, tabs and keys, the state in the URL's hash
 * (links, back and forward), and start-up.
 *
 * One part of the view's script: the build joins the parts, in the order
 * src/CMakeLists.txt lists them, into app.js inside one function, so
 * they share its names (docs/view-panes.md, "The script").
 */
/* ---- panes, tabs, keys ---- */
const PANES = [
  ['tree', tree], ['flame', flame], ['calls', calls], ['source', source],
  ['locations', locations], ['diff', diff], ['timeline', timeline],
];
function paneEnabled(name) {
  const f = S.profile.features || {};
  if (name === 'diff') return !!S.profile.base;
  if (name === 'timeline') return !!f.trace;
  if (name === 'source') return f.source !== false;
  return true;
}
function showPane(name, refresh) {
  S.pane = name;
  PK.writeHash(false);
  for (const [n] of PANES) {
    $('pane-' + n).hidden = n !== name;
    const tab = $('tab-' + n);
    if (tab) tab.setAttribute('aria-selected', String(n === name));
  }
  const p = panes[name];
  if (p && (refresh || p.stale)) {
    p.stale = false;
    return p.impl.load();
  }
}
PK.show = showPane;
function buildTabs() {
  const nav = clear($('tabs'));
  PANES.forEach(([name, impl], i) => {
    panes[name] = { impl, stale: true };
    const pane = $('pane-' + name);
    const on = paneEnabled(name);
    const b = el('button', { id: 'tab-' + name, type: 'button', role: 'tab', 'aria-controls': 'pane-' + name,
      disabled: !on, title: (on ? '' : name === 'diff' ? 'needs --base: ' : 'the profile has no traces: ') + 'key ' + (i + 1),
      text: pane.dataset.title });
    b.addEventListener('click', () => choosePane(name));
    nav.append(b);
  });
}
/* A pane chosen by the user: a history entry of its own. */
function choosePane(name) {
  if (name === S.pane) return;
  S.pane = name;
  PK.writeHash(true);
  return showPane(name, false);
}
/* A choice every pane follows (metric, side, location, stat): a
 * history entry, and every pane asks again. */
function refreshAll(push) {
  if (push) PK.writeHash(true);
  for (const k in panes) panes[k].stale = true;
  flat.load();
  return showPane(S.pane, false);
}

/* ---- the page's state in the URL's hash (docs/view-panes.md, "Links"):
 * what a view depends on, named as the CLI's options are where one
 * exists, so a link opens the same view and a reload keeps it. A choice
 * pushes a history entry (back and forward move between views);
 * typing, the tree's keys and zooming the timeline replace the current
 * one. ---- */
const SEL_KINDS = ['function', 'file', 'module', 'line'], STATS = ['mean', 'min', 'max', 'stddev'];
let applying = false, lastHash = null;
function hashParams() {
  return new URLSearchParams(window.location.hash.replace(/^#/, ''));
}
function stateText() {
  const h = new URLSearchParams();
  const put = (k, v) => v !== null && v !== undefined && v !== '' && h.set(k, String(v));
  put('pane', S.pane);
  if (S.metric !== S.profile.default_metric) put('metric', S.metric);
  if (S.side === 'b') put('side', 'b');
  put('location', S.location);
  if (S.stat !== 'sum') put('stat', S.stat);
  if (S.sel) put(S.sel.kind, S.sel.kind === 'file' ? S.sel.file : S.sel.name);
  for (const part of [flat, tree, flame, locations, timeline]) part.toHash(put);
  return '#' + h.toString();
}
PK.writeHash = function (push) {
  if (applying || !S.profile) return;
  const text = stateText();
  lastHash = text;
  if (window.location.hash === text) return;
  if (push) history.pushState(null, '', text);
  else history.replaceState(null, '', text);
};
/* The state a hash names; what it leaves out is the default. A report
 * holds one location choice (all, summed) and side: the others are off. */
function fromHash(h) {
  const p = S.profile, metric = h.get('metric');
  S.metric = metric && (p.metrics || []).some((m) => m.name === metric) ? metric
    : p.default_metric || ((p.metrics || [])[0] || {}).name || null;
  S.side = h.get('side') === 'b' && p.base && !PK.report ? 'b' : 'a';
  S.location = PK.report ? '' : (h.get('location') || '').trim();
  S.stat = STATS.includes(h.get('stat')) && !PK.report ? h.get('stat') : 'sum';
  const kind = SEL_KINDS.find((k) => h.get(k));
  S.sel = !kind ? null : kind === 'file' ? { kind, file: h.get(kind), name: h.get(kind) }
    : { kind, name: h.get(kind), restored: true };
  const pane = h.get('pane');
  S.pane = PANES.some(([n]) => n === pane) && paneEnabled(pane) ? pane : 'tree';
  for (const part of [flat, tree, flame, locations, timeline]) part.fromHash(h);
  $('metric').value = S.metric;
  $('side').value = S.side;
  $('location').value = S.location;
  $('stat').value = S.stat;
  showSelection();
}
/* Back, forward, or a hash edited by hand: that state, every pane again. */
function applyHash() {
  if (window.location.hash === lastHash) return;
  applying = true;
  try {
    fromHash(hashParams());
  } finally {
    applying = false;
  }
  lastHash = window.location.hash;
  timeline.data = null;
  return refreshAll(false);
}
function onKey(ev) {
  const t = ev.target, typing = t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA');
  if (ev.key === 'Escape') {
    hideTip();
    if (typing) t.blur();
    return S.pane === 'flame' && flame.reset();
  }
  if (typing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const n = parseInt(ev.key, 10);
  if (n >= 1 && n <= PANES.length && paneEnabled(PANES[n - 1][0])) return choosePane(PANES[n - 1][0]), $('tab-' + PANES[n - 1][0]).focus();
  if (ev.key === '/') return ev.preventDefault(), $('flat-search').focus();
  if (ev.key === '?') return ($('help').hidden = !$('help').hidden);
  if (ev.key === 'm') return ev.preventDefault(), $('metric').focus();
}

function banner(p) {
  const parts = [];
  if (p.report) {
    parts.push('Report' + (p.report.generated ? ' of ' + p.report.generated : '') + ': pruned at ' + p.report.threshold +
      ' % of the total' + (p.report.note ? ' (' + p.report.note + ')' : '') + '. Run `profkit view ' + (p.path || p.title) + '` for all of it.');
  }
  if (p.complete === false) parts.push('This profile is incomplete: the reader dropped damaged parts (see `profkit check`).');
  if (p.base && p.base.complete === false) parts.push('The --base profile is incomplete.');
  if (p.callgraph) parts.push('A call graph: trees are reconstructed from it (costs split in proportion to calls).');
  const b = $('banner');
  b.hidden = !parts.length;
  b.textContent = parts.join(' ');
}
function fillSelectors(p) {
  const metric = clear($('metric'));
  for (const m of p.metrics || []) metric.append(el('option', { value: m.name, text: m.name }));
  metric.value = S.metric;
  /* the Location takes what --location takes; the list offers each location */
  const loc = clear($('location-list')), all = p.locations_total || (p.locations || []).length;
  for (const l of p.locations || []) loc.append(el('option', { value: '#' + l.index, label: l.name }));
  $('location').placeholder = 'all (' + all + ')';
  $('side-box').hidden = !p.base;
  /* a report holds every location combined by sum, and PATH's side only */
  for (const id of ['location', 'stat', 'side']) {
    $(id).disabled = !!p.report;
    if (p.report) $(id).title = 'a report holds all locations summed, for PATH: run `profkit view ' + (p.path || p.title) + '` to choose';
  }
}
function wire() {
  $('metric').addEventListener('change', (ev) => {
    S.metric = ev.target.value;
    flat.sortByMetric(S.metric);
    refreshAll(true);
  });
  const common = (id, key) => $(id).addEventListener('change', (ev) => {
    if (PK.report) return (ev.target.value = S[key]); /* off in a report */
    S[key] = ev.target.value.trim();
    refreshAll(true);
  });
  common('side', 'side');
  common('location', 'location');
  common('stat', 'stat');
  $('flat-by').addEventListener('change', () => (PK.writeHash(true), flat.load()));
  let timer = 0;
  $('flat-search').addEventListener('input', () => {
    PK.writeHash(false);
    flat.render();
    clearTimeout(timer);
    if (!PK.report && flat.data && flat.data.hidden > 0) timer = setTimeout(() => flat.load(), 250);
  });
  $('flat-metrics').addEventListener('keydown', (ev) => ev.key === 'Enter' && (PK.writeHash(true), flat.load()));
  $('flat-table').addEventListener('keydown', (ev) => flat.key_(ev));
  $('tree-threshold').addEventListener('input', () => (PK.writeHash(false), tree.load()));
  $('tree-chains').addEventListener('change', () => (PK.writeHash(true), tree.load()));
  $('tree-mode').addEventListener('change', () => (PK.writeHash(true), tree.load()));
  $('tree-hot').addEventListener('click', async () => (await tree.hotPath(), tree.render()));
  $('tree-collapse').addEventListener('click', () => tree.collapseAll());
  $('tree-body').addEventListener('keydown', (ev) => tree.key_(ev));
  const canvas = $('flame-canvas');
  canvas.addEventListener('click', (ev) => flame.click(ev));
  canvas.addEventListener('mousemove', (ev) => flame.hover(ev));
  canvas.addEventListener('mouseleave', hideTip);
  $('flame-reset').addEventListener('click', () => flame.reset());
  $('flame-icicle').addEventListener('change', () => (PK.writeHash(true), flame.draw()));
  $('flame-search').addEventListener('input', () => (PK.writeHash(false), flame.draw()));
  $('loc-value').addEventListener('change', () => (PK.writeHash(true), locations.render()));
  $('locations-strip').addEventListener('mousemove', (ev) => locations.hover(ev));
  $('locations-strip').addEventListener('mouseleave', hideTip);
  const tl = $('timeline-canvas');
  tl.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    timeline.zoomAt(ev.clientX - tl.getBoundingClientRect().left, ev.deltaY < 0 ? 0.8 : 1.25);
  }, { passive: false });
  tl.addEventListener('mousedown', (ev) => (timeline.drag = { x: ev.clientX, view: timeline.view }));
  window.addEventListener('mouseup', () => (timeline.drag = null));
  tl.addEventListener('mousemove', (ev) => {
    const d = timeline.drag;
    if (!d || !d.view) return timeline.hover(ev);
    const dt = ((d.x - ev.clientX) / Math.max(1, tl.clientWidth)) * (d.view[1] - d.view[0]);
    timeline.setView(d.view[0] + dt, d.view[1] + dt);
  });
  tl.addEventListener('mouseleave', hideTip);
  tl.addEventListener('keydown', (ev) => {
    const x = tl.clientWidth / 2;
    if (ev.key === '+' || ev.key === '=') timeline.zoomAt(x, 0.5);
    else if (ev.key === '-') timeline.zoomAt(x, 2);
  });
  $('timeline-reset').addEventListener('click', () => timeline.reset());
  $('timeline-form').addEventListener('submit', (ev) => (ev.preventDefault(), timeline.apply()));
  $('timeline-prev').addEventListener('click', () => timeline.page(-1));
  $('timeline-next').addEventListener('click', () => timeline.page(1));
  window.addEventListener('popstate', applyHash);
  window.addEventListener('hashchange', applyHash);
  $('help-btn').addEventListener('click', () => ($('help').hidden = !$('help').hidden));
  document.addEventListener('keydown', onKey);
  let resize = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resize);
    resize = setTimeout(() => (S.pane === 'flame' ? flame.draw() : S.pane === 'timeline' ? timeline.draw() : null), 100);
  });
}
async function init() {
  let p;
  try {
    p = await PK.api(PK.url('profile', {}));
  } catch (e) {
    return fatal('cannot load the profile: ' + e.message);
  }
  S.profile = p;
  S.metric = p.default_metric || ((p.metrics || [])[0] || {}).name || null;
  $('title').textContent = (p.title || 'profile') + (p.format ? ' (' + p.format + ')' : '');
  $('title').title = p.path || '';
  document.title = (p.title || 'profile') + ' — profkit view';
  banner(p);
  fillSelectors(p);
  $('flat-table').tabIndex = 0;
  $('tree-body').tabIndex = 0;
  buildTabs();
  fromHash(hashParams()); /* a link's or a reload's state */
  wire();
  PK.writeHash(false);
  await Promise.all([flat.load(), showPane(S.pane, true)]);
  document.body.dataset.ready = '1';
}
init().catch((e) => fatal('profkit view: ' + (e && e.message ? e.message : e)));
