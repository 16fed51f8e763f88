/*
 * src/view/assets/js/core.js — what every pane shares: elements built from data (never markup), the one
 * way to build an API URL, numbers by the CLI's rules, colours, the page's
 * state (S), the tooltip and the selection that every pane follows.
 *
 * One part of the view's script: the build joins the parts, in the order
 * src/CMakeLists.txt lists them, into app.js inside one function, so
 * they share its names (docs/view-panes.md, "The script").
 */
const PK = (window.PK = {});
const $ = (id) => document.getElementById(id);

/* ---- DOM: elements built from data, never from markup ---- */
function el(tag, attrs, kids) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) {
    const v = attrs[k];
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = String(v);
    else if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of kids || []) if (c !== null && c !== undefined) e.append(c);
  return e;
}
function clear(e) {
  while (e.firstChild) e.removeChild(e.firstChild);
  return e;
}

/* ---- the one way to build an API URL (report keys depend on it) ---- */
PK.url = function (route, params) {
  const p = params || {};
  const keys = Object.keys(p)
    .filter((k) => p[k] !== null && p[k] !== undefined && p[k] !== '')
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const q = keys.map((k) => encodeURIComponent(k) + '=' + encodeURIComponent(String(p[k]))).join('&');
  return '/api/' + route + (q ? '?' + q : '');
};

class ApiError extends Error {
  constructor(message, status, missing) {
    super(message);
    this.status = status;
    this.missing = !!missing;
  }
}
const dataNode = document.getElementById('pk-data');
const report = dataNode ? JSON.parse(dataNode.textContent) : null;
PK.report = !!report;

/* A report answers from its map, a server over HTTP; both reject with an
 * ApiError that says whether the answer was pruned out of a report. */
PK.api = async function (url) {
  if (report) {
    if (Object.prototype.hasOwnProperty.call(report, url)) {
      const d = report[url];
      /* an answer the builder kept although it was an error */
      if (d && d.schema === 'profkit.view.error/1') throw new ApiError(d.error, 404);
      return d;
    }
    throw new ApiError('not in this report: ' + url, 404, true);
  }
  const r = await fetch(url, { headers: { Accept: 'application/json' } });
  let body = null;
  try {
    body = await r.json();
  } catch (e) {
    throw new ApiError(url + ': HTTP ' + r.status + ', not JSON', r.status);
  }
  if (!r.ok) throw new ApiError((body && body.error) || 'HTTP ' + r.status, r.status);
  return body;
};

/* ---- numbers for people, by the CLI's rules (docs/cli.md) ---- */
const TIME_EXP = { s: 0, sec: 0, secs: 0, second: 0, seconds: 0, ms: -3, msec: -3, us: -6, usec: -6,
  'µs': -6, microseconds: -6, ns: -9, nsec: -9, nanoseconds: -9, ps: -12, fs: -15, as: -18 };
function timeExp(name) {
  const low = name.toLowerCase();
  for (const k in TIME_EXP) if (k.toLowerCase() === low) return TIME_EXP[k];
  return null;
}
/* The metric's unit, or a time unit closing its name ("CPUTIME (sec)"). */
function unitText(unit, name) {
  if (unit) return unit;
  const open = name ? name.lastIndexOf('(') : -1;
  if (open < 0 || !name.endsWith(')') || name.length - open < 3) return '';
  const inner = name.slice(open + 1, -1);
  return timeExp(inner) !== null ? inner : '';
}
function parseUnit(text) {
  let s = text, factor = 1;
  const m = /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?/.exec(s); /* a scale: Callgrind's "1e-9 B" */
  if (m) {
    factor = parseFloat(m[0]);
    if (!(factor > 0) || !isFinite(factor)) return null;
    s = s.slice(m[0].length).replace(/^ +/, '');
  }
  const exp = timeExp(s);
  const dim = exp !== null ? 'time' : /^(b|byte|bytes)$/i.test(s) ? 'bytes' : s ? 'other' : 'none';
  return { factor, name: s, dim, exp: exp || 0 };
}
/* How to show values of a metric whose magnitude (its total) is given. */
PK.numberFormat = function (unit, name, magnitude) {
  const u = parseUnit(unitText(unit, name));
  if (!u) return { scale: 1, unit: String(unit || '').slice(0, 20), compact: false };
  const mag = isFinite(magnitude) ? Math.abs(magnitude) : 0;
  const f = { scale: u.factor, unit: u.name, compact: false };
  if (u.dim === 'time') {
    const secs = mag * u.factor * Math.pow(10, u.exp);
    let e = 0;
    while (e > -9 && secs > 0 && secs < Math.pow(10, e)) e -= 3;
    f.scale = u.factor * Math.pow(10, u.exp - e);
    f.unit = ['s', 'ms', 'us', 'ns'][-e / 3];
  } else if (u.dim === 'bytes') {
    const names = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    let b = mag * u.factor, k = 0;
    while (k < 5 && b >= 1024) (b /= 1024), k++;
    f.scale = u.factor / Math.pow(1024, k);
    f.unit = names[k];
  }
  f.compact = mag * f.scale >= 1e8;
  return f;
};
function expo(x) {
  return x.toExponential(3).replace(/e([-+])(\d)$/, 'e$10$2');
}
function sig4(x) {
  return String(parseFloat(x.toPrecision(4)));
}
function group(r) {
  const d = Math.abs(r).toFixed(0);
  let out = '';
  for (let i = 0; i < d.length; i++) out += (i && (d.length - i) % 3 === 0 ? ',' : '') + d[i];
  return (r < 0 ? '-' : '') + out;
}
function compact(x) {
  let a = Math.abs(x), k = -1;
  while (k < 5 && a >= 999.95) (a /= 1000), k++;
  if (k < 0) return sig4(x);
  return (x < 0 ? -a : a).toPrecision(4) + 'KMGTPE'[k];
}
PK.fmt = function (v, f) {
  if (v === null || v === undefined) return '–';
  const x = f ? v * f.scale : v, a = Math.abs(x);
  if (Number.isNaN(x)) return 'nan';
  if (!isFinite(x)) return x < 0 ? '-inf' : 'inf';
  if (x === 0) return '0';
  const r = Math.round(x);
  const integral = Math.abs(x - r) <= 1e-9 * (a > 1 ? a : 1);
  if (a >= 1e18) return expo(x);
  if (!integral && a < 1000) return a < 1e-4 ? expo(x) : sig4(x);
  const g = group(r);
  return g.length > 10 || (f && f.compact) ? compact(x) : g;
};
function withUnit(v, f) {
  return PK.fmt(v, f) + (f && f.unit ? ' ' + f.unit : '');
}
function pct(v, total) {
  if (!total || v === null || v === undefined || !isFinite(v / total)) return '';
  const p = (100 * v) / total;
  return (Math.abs(p) >= 10 ? p.toFixed(1) : p.toPrecision(2)) + ' %';
}
/* A metric's name without the time or byte unit that closes it, as the
 * CLI's headers (pk_metric_label): "GKER (sec)" shown in ms heads its
 * column "GKER self (ms)", not "GKER (sec) self (ms)". */
function metricLabel(name, f) {
  const m = /^(.*\S) \(([^()]+)\)$/.exec(String(name));
  if (!m || !f || !f.unit) return name;
  return timeExp(m[2]) !== null || /^(B|byte|bytes)$/.test(m[2]) ? m[1] : name;
}
function header(label, f) {
  return f && f.unit ? label + ' (' + f.unit + ')' : label;
}
function timeText(ns) {
  const a = Math.abs(ns);
  if (a >= 1e9) return sig4(ns / 1e9) + ' s';
  if (a >= 1e6) return sig4(ns / 1e6) + ' ms';
  if (a >= 1e3) return sig4(ns / 1e3) + ' us';
  return sig4(ns) + ' ns';
}

/* A cleared canvas of W x H CSS pixels drawn at the screen's resolution;
 * KEEP_CSS leaves its CSS size to the style sheet. */
function sizeCanvas(c, w, h, keepCss) {
  const dpr = window.devicePixelRatio || 1;
  c.width = Math.round(w * dpr);
  c.height = Math.round(h * dpr);
  if (!keepCss) {
    c.style.width = w + 'px';
    c.style.height = h + 'px';
  }
  const g = c.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  return g;
}

/* ---- colours: a stable warm hue per name, heat, diff ---- */
function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
function nameColour(name, warm) {
  const h = hash(String(name));
  if (warm) return 'hsl(' + (h % 55) + ',' + (70 + ((h >> 8) % 20)) + '%,' + (55 + ((h >> 16) % 12)) + '%)';
  return 'hsl(' + (h % 360) + ',55%,' + (50 + ((h >> 12) % 15)) + '%)';
}
function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}
function heat(frac) {
  const a = Math.max(0, Math.min(1, frac));
  return 'rgba(' + cssVar('--hot') + ',' + (0.08 + 0.62 * a).toFixed(3) + ')';
}

/* ---- state shared by every pane ---- */
const S = {
  profile: null, metric: null, side: 'a', location: '', stat: 'sum',
  sel: null, /* {kind:'function'|'file', name, file, line, module, id} */
  pane: 'tree',
};
PK.state = S;
function metricInfo(name) {
  const p = S.side === 'b' && S.profile.base ? S.profile.base : S.profile;
  return (p.metrics || []).find((m) => m.name === name) || { name, unit: null, total: 0 };
}
/* the format of the current metric, scaled by its program total */
function metricFormat(name, unit, total) {
  const m = metricInfo(name);
  return PK.numberFormat(unit !== undefined ? unit : m.unit, name, total !== undefined ? total : m.total);
}
function viewParams(extra) {
  return Object.assign({ metric: S.metric, side: S.side === 'b' ? 'b' : null,
    location: S.location || null, stat: S.stat !== 'sum' ? S.stat : null }, extra);
}
function sideParams(extra) {
  return Object.assign({ metric: S.metric, side: S.side === 'b' ? 'b' : null }, extra);
}
function threshold() {
  return S.profile && S.profile.report ? S.profile.report.threshold : null;
}
/* A pane's message for an answer that failed: pruned out of a report,
 * or the server's error text. */
function problem(note, pane, err) {
  note.classList.toggle('missing', !!(err && err.missing));
  if (err && err.missing) {
    const path = (S.profile && (S.profile.path || S.profile.title)) || 'PATH';
    note.textContent = 'not in this report (pruned at ' + threshold() + ' %): run `profkit view ' + path +
      '` for all of it';
    pane.dataset.state = 'missing';
  } else {
    note.textContent = 'error: ' + (err && err.message ? err.message : String(err));
    pane.dataset.state = 'error';
  }
}
/* Ask for KEY on behalf of OWNER (whose .key is what it wants now): the
 * pane is "loading" meanwhile, then "ready" with the answer rendered, or
 * shows the problem (unless FAILED takes it); an answer that arrives
 * after the owner moved on to another key is dropped. */
async function fetchInto(owner, pane, note, key, render, failed) {
  pane.dataset.state = 'loading';
  try {
    const d = await PK.api(key);
    if (key !== owner.key) return;
    render(d);
    pane.dataset.state = 'ready';
  } catch (e) {
    if (key === owner.key && !(failed && failed(e))) problem(note, pane, e);
  }
}
function noteText(note, text) {
  note.classList.remove('missing');
  note.textContent = text || '';
}
/* the texts of an answer's notes (as the CLI prints them), but SKIP's */
function answerNotes(d, skip) {
  return ((d && d.notes) || []).filter((n) => n.code !== skip).map((n) => n.text);
}
/* " (via N frames: a > b > ... > y > z)": the run the library folded
 * into a row, named as `profkit tree` names it */
function viaText(v) {
  if (!v) return '';
  const names = v.names.slice(0, 2).concat(v.skipped ? ['...'] : [], v.names.slice(2));
  return ' (via ' + v.frames + ' frame' + (v.frames === 1 ? '' : 's') + ': ' + names.join(' > ') + ')';
}
function fatal(text) {
  const e = $('error');
  e.hidden = false;
  e.textContent = text;
}

/* ---- tooltip: text only ---- */
const tip = $('tip');
function showTip(ev, lines) {
  tip.textContent = lines.filter((l) => l).join('\n');
  tip.hidden = false;
  const w = tip.offsetWidth, h = tip.offsetHeight;
  let x = ev.clientX + 14, y = ev.clientY + 14;
  if (x + w > window.innerWidth) x = Math.max(0, ev.clientX - w - 8);
  if (y + h > window.innerHeight) y = Math.max(0, ev.clientY - h - 8);
  tip.style.left = x + 'px';
  tip.style.top = y + 'px';
}
function hideTip() {
  tip.hidden = true;
}

/* ---- selection: one function (or file) that every pane follows ---- */
const panes = {};
function showSelection() {
  const box = $('selection'), sel = S.sel;
  box.textContent = sel ? (sel.kind === 'file' ? 'file ' + sel.file : sel.name) : '';
  box.title = box.textContent;
}
/* A new selection (a history entry of its own); NODE is the tree node it
 * was chosen at, if any. */
PK.select = function (sel, node) {
  S.sel = sel;
  tree.cursor = node !== undefined ? node : null;
  showSelection();
  flat.highlight();
  for (const k in panes) panes[k].stale = true;
  PK.writeHash(true);
  showPane(S.pane, true);
};
function selectedFunction() {
  return S.sel && S.sel.kind === 'function' ? S.sel.name : null;
}
function frameSelect(f, node) {
  if (f && f.name) PK.select({ kind: 'function', name: f.name, module: f.module, file: f.file,
    line: f.line, id: f.id }, node);
}
