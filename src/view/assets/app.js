/*
 * src/view/assets/app.js — the page of `profkit view` (docs/view-panes.md):
 * linked panes over the JSON routes of docs/view.md. Plain JavaScript, no
 * framework and no network but the server's own routes, so the same file
 * works served and inlined into a report (where PK.api answers from the
 * embedded #pk-data map). Every string from a profile reaches the page
 * through textContent, attribute setters or canvas fillText, never as
 * markup: names can hold "<script>".
 */
'use strict';
(function () {
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

  /* ---- flat table: several metrics, sortable, searchable ---- */
  const flat = {
    /* sorted by a column: self or inclusive of a metric (by name), name, calls */
    data: null, key: '', pending: Promise.resolve(), sort: { metric: null, col: 'self' }, dir: -1, cursor: -1, rows: [],
    metricList() {
      return $('flat-metrics').value.split(',').map((s) => s.trim()).filter((s) => s);
    },
    /* the default metric first, then the others, at most MAX_COLUMNS of
     * them (a Scalasca summary has 80): more are chosen in the box */
    defaultMetrics() {
      const names = (S.profile.metrics || []).map((m) => m.name);
      const d = S.profile.default_metric;
      return (names.includes(d) ? [d] : []).concat(names.filter((n) => n !== d)).slice(0, 12);
    },
    params() {
      const search = $('flat-search').value.trim();
      /* the server searches past its top 500 only when rows were left out */
      const q = !PK.report && this.data && this.data.hidden > 0 && search ? search : null;
      return viewParams({ metric: null, by: $('flat-by').value, metrics: this.metricList().join(','), search: q });
    },
    /* the table's answer (a promise that settles when it is shown) */
    load() {
      const url = PK.url('flat', this.params());
      if (url === this.key) return this.pending.then(() => this.render());
      this.key = url;
      return (this.pending = this.fetch(url));
    },
    async fetch(url) {
      const pane = $('flat'), note = $('flat-note');
      pane.dataset.state = 'loading';
      try {
        const d = await PK.api(url);
        if (url !== this.key) return;
        this.data = d;
        noteText(note, '');
        /* a search from the URL: the server searches what it left out */
        if (PK.url('flat', this.params()) !== url) return this.load();
        this.enrich();
        this.render();
        pane.dataset.state = 'ready';
      } catch (e) {
        if (url !== this.key) return;
        this.data = null;
        clear($('flat-table').tBodies[0]);
        problem(note, pane, e);
      }
    },
    sortByMetric(name) {
      this.sort = { metric: name, col: 'self' };
      this.dir = -1;
    },
    /* The function at the top of the table (by function), once it has
     * loaded: what the callers pane shows before a selection. */
    async topFunction() {
      await this.load();
      if (!this.data || this.data.by !== 'function' || !this.rows.length) return null;
      return String(this.rows[0].pkRow.name);
    },
    /* a selection the URL named: its place, from its row */
    enrich() {
      const sel = S.sel, d = this.data;
      if (!sel || !sel.restored || d.by !== sel.kind) return;
      const r = d.rows.find((x) => String(x.name) === sel.name);
      if (r) Object.assign(sel, { module: r.module, file: r.file, line: r.line });
      delete sel.restored;
    },
    /* the URL's share of the state: by, metrics, search, sort */
    toHash(put) {
      if ($('flat-by').value !== 'function') put('by', $('flat-by').value);
      const metrics = $('flat-metrics').value.trim();
      if (S.profile && metrics !== this.defaultMetrics().join(',')) put('metrics', metrics);
      put('search', $('flat-search').value.trim());
      const { col, metric } = this.sort, dir = col === 'name' ? 1 : -1;
      if (col !== 'self' || metric !== S.metric) put('sort', col + (metric !== null && (col === 'self' || col === 'inclusive') ? ':' + metric : ''));
      if (this.dir !== dir) put('order', this.dir < 0 ? 'desc' : 'asc');
    },
    fromHash(h) {
      const by = h.get('by');
      $('flat-by').value = ['file', 'module', 'line'].includes(by) ? by : 'function';
      $('flat-metrics').value = h.get('metrics') || this.defaultMetrics().join(',');
      $('flat-search').value = h.get('search') || '';
      const sort = h.get('sort') || '', at = sort.indexOf(':'), col = at < 0 ? sort : sort.slice(0, at);
      if (['self', 'inclusive', 'name', 'calls'].includes(col))
        this.sort = { col, metric: col === 'self' || col === 'inclusive' ? (at < 0 ? S.metric : sort.slice(at + 1)) : null };
      else this.sort = { col: 'self', metric: S.metric };
      const order = h.get('order');
      this.dir = order === 'asc' ? 1 : order === 'desc' ? -1 : this.sort.col === 'name' ? 1 : -1;
    },
    filtered() {
      const q = $('flat-search').value.trim();
      if (!q) return this.data.rows;
      let re;
      try {
        re = new RegExp(q, 'i');
      } catch (e) {
        const low = q.toLowerCase();
        return this.data.rows.filter((r) => String(r.name).toLowerCase().includes(low));
      }
      return this.data.rows.filter((r) => re.test(String(r.name)));
    },
    render() {
      const d = this.data;
      if (!d) return;
      const table = $('flat-table'), head = clear(table.tHead), body = clear(table.tBodies[0]);
      const none = (d.notes || []).find((n) => n.code === 'no_rows');
      if (none) return (this.rows = []), noteText($('flat-note'), none.text); /* no table: why */
      const fmts = d.metrics.map((m) => PK.numberFormat(m.unit, m.name, m.total));
      const calls = d.rows.some((r) => r.calls !== undefined && r.calls !== null);
      const tr = el('tr');
      /* the sorted metric's column; its first when the table lacks it */
      const sm = Math.max(0, d.metrics.findIndex((x) => x.name === this.sort.metric));
      const th = (label, m, col, cls) => {
        const on = (m < 0 || sm === m) && this.sort.col === col;
        const t = el('th', { class: cls, text: label, scope: 'col', tabindex: 0,
          'aria-sort': on ? (this.dir < 0 ? 'descending' : 'ascending') : null,
          title: 'sort by this column' });
        const go = () => {
          if (on) this.dir = -this.dir;
          else (this.sort = { metric: m < 0 ? null : d.metrics[m].name, col }), (this.dir = col === 'name' ? 1 : -1);
          PK.writeHash(true);
          this.render();
        };
        t.addEventListener('click', go);
        t.addEventListener('keydown', (ev) => ev.key === 'Enter' && go());
        tr.append(t);
      };
      th(d.by, -1, 'name', 'name');
      d.metrics.forEach((m, i) => {
        th(header(metricLabel(m.name, fmts[i]) + ' self', fmts[i]), i, 'self');
        th(header(metricLabel(m.name, fmts[i]) + ' incl.', fmts[i]), i, 'inclusive');
      });
      if (calls) th('calls', -1, 'calls');
      head.append(tr);
      const rows = this.filtered().slice();
      const m = sm, col = this.sort.col, dir = this.dir;
      const val = (r) => (col === 'name' ? String(r.name) : col === 'calls' ? r.calls || 0 : ((r.values || [])[m] || {})[col]);
      rows.sort((a, b) => {
        const x = val(a), y = val(b);
        if (col === 'name') return dir * (x < y ? -1 : x > y ? 1 : 0);
        return dir * ((x === null || x === undefined ? -Infinity : x) - (y === null || y === undefined ? -Infinity : y));
      });
      const total0 = d.metrics.length ? d.metrics[0].total : 0;
      const frag = document.createDocumentFragment();
      for (const r of rows) {
        const share = total0 ? Math.max(0, Math.min(1, r.self / total0)) : 0;
        const name = el('td', { class: 'name', title: [r.name, r.module, r.file && r.file + (r.line ? ':' + r.line : '')].filter((x) => x).join('\n') },
          [el('span', { class: 'bar', style: 'width:' + (share * 4).toFixed(2) + 'em' }), String(r.name)]);
        const row = el('tr', { tabindex: -1 }, [name]);
        d.metrics.forEach((mm, i) => {
          const v = (r.values || [])[i] || {};
          row.append(el('td', { text: PK.fmt(v.self, fmts[i]), title: mm.percent ? pct(v.self, mm.total) : '' }));
          row.append(el('td', { text: PK.fmt(v.inclusive, fmts[i]), title: mm.percent ? pct(v.inclusive, mm.total) : '' }));
        });
        if (calls) row.append(el('td', { text: PK.fmt(r.calls) }));
        row.pkRow = r;
        row.addEventListener('click', () => this.choose(r));
        frag.append(row);
      }
      body.append(frag);
      this.rows = Array.from(body.rows);
      const hidden = d.hidden ? d.hidden + ' more rows below the top ' + d.rows.length : '';
      const more = (S.profile.metrics || []).length - d.metrics.length;
      const cols = more > 0 ? more + ' more metrics: name them in the metrics box' : '';
      const shown = rows.length !== d.rows.length ? rows.length + ' of ' + d.rows.length + ' rows match' : '';
      noteText($('flat-note'), [shown, hidden, cols].concat(answerNotes(d)).filter((x) => x).join(' · '));
      this.highlight();
    },
    choose(r) {
      const by = this.data.by;
      if (by === 'function') PK.select({ kind: 'function', name: r.name, module: r.module, file: r.file, line: r.line });
      else if (by === 'file') PK.select({ kind: 'file', file: r.name, name: r.name });
      else PK.select({ kind: by, name: r.name, file: r.file, line: r.line });
    },
    highlight() {
      this.cursor = -1;
      this.rows.forEach((row, i) => {
        const r = row.pkRow, s = S.sel;
        const on = !!s && (s.kind === 'file' ? r.name === s.file : r.name === s.name);
        row.classList.toggle('selected', on);
        if (on && this.cursor < 0) this.cursor = i;
      });
    },
    key_(ev) {
      if (!this.rows.length || (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp')) return;
      ev.preventDefault();
      const i = Math.max(0, Math.min(this.rows.length - 1, this.cursor + (ev.key === 'ArrowDown' ? 1 : -1)));
      this.choose(this.rows[i].pkRow);
      this.rows[i].focus();
    },
  };
  PK.flat = flat;

  /* ---- top-down tree: lazy children, hot path, threshold ---- */
  const HOT_PATH_MAX = 256; /* levels expanded on load: deeper hot paths stop there */
  const tree = {
    nodes: new Map(), rootId: null, total: 0, fmt: null, key: '', cursor: null, visible: [],
    base() {
      const mode = $('tree-mode').value;
      return viewParams({ mode: mode !== 'function' ? mode : null, threshold: $('tree-threshold').value,
        chains: $('tree-chains').checked ? 'show' : null });
    },
    ingest(json, parent) {
      /* an explicit stack: a response may nest as deep as it was asked */
      const stack = [[json, parent]];
      let first = null;
      while (stack.length) {
        const [j, p] = stack.pop();
        const old = this.nodes.get(j.node);
        const n = { id: j.node, name: j.name, kind: j.kind, relation: j.relation, module: j.module, file: j.file,
          line: j.line, via: j.via || null, inclusive: j.inclusive, exclusive: j.exclusive, calls: j.calls, hot: !!j.hot,
          child_count: j.child_count || 0, more: j.more || 0, parent: p, open: old ? old.open : false,
          children: Array.isArray(j.children) ? j.children.map((c) => c.node) : old ? old.children : null };
        this.nodes.set(n.id, n);
        if (!first) first = n;
        if (Array.isArray(j.children)) for (const c of j.children) stack.push([c, n.id]);
      }
      return first;
    },
    async load() {
      const key = PK.url('tree', Object.assign(this.base(), { depth: 2 }));
      const pane = $('pane-tree'), note = $('tree-note');
      if (key === this.key) { /* loaded (or on its way): the node the state names */
        if (this.rootId !== null && this.cursor !== null) await this.reveal(this.cursor);
        this.render();
        return this.scrollToCursor();
      }
      this.key = key;
      this.nodes = new Map();
      pane.dataset.state = 'loading';
      try {
        const d = await PK.api(key);
        if (key !== this.key) return;
        this.total = d.total;
        /* a min/max metric's values are no shares of a total */
        this.share = !(d.metrics && d.metrics[0] && d.metrics[0].percent === false);
        this.fmt = metricFormat(d.metric || S.metric, d.unit, d.total);
        const root = this.ingest(d.root, null);
        this.rootId = root.id;
        root.open = true;
        noteText(note, answerNotes(d).join(' · '));
        await this.hotPath();
        if (key !== this.key) return;
        if (this.cursor !== null) await this.reveal(this.cursor);
        if (key !== this.key) return;
        this.render();
        this.scrollToCursor();
        pane.dataset.state = 'ready';
      } catch (e) {
        if (key !== this.key) return;
        clear($('tree-body'));
        problem(note, pane, e);
      }
    },
    async expand(id, quiet) {
      const n = this.nodes.get(id);
      if (!n || !n.child_count) return true;
      if (n.children === null) {
        const key = this.key;
        try {
          const d = await PK.api(PK.url('tree', Object.assign(this.base(), { node: id, depth: 1 })));
          if (key !== this.key) return false;
          this.ingest(d.root, n.parent);
        } catch (e) {
          if (!quiet) problem($('tree-note'), $('pane-tree'), e);
          return false;
        }
      }
      this.nodes.get(id).open = true;
      return true;
    },
    async hotPath() {
      let n = this.nodes.get(this.rootId);
      for (let level = 0; n && level < HOT_PATH_MAX; level++) {
        if (!(await this.expand(n.id, true))) break;
        n = this.nodes.get(n.id);
        const next = (n.children || []).map((c) => this.nodes.get(c)).find((c) => c && c.hot);
        n = next;
      }
    },
    /* Open the way to node ID (a link's, a reload's): its document's path
     * from the root, each level expanded in turn. */
    async reveal(id) {
      const key = this.key;
      if (!this.nodes.has(id)) {
        let path = null;
        try {
          path = (await PK.api(PK.url('tree', Object.assign(this.base(), { node: id, depth: 1 })))).path;
        } catch (e) {
          return; /* gone, or not in this report: the tree opens as usual */
        }
        for (const a of path || []) if (key !== this.key || !(await this.expand(a, true))) return;
      }
      for (let n = this.nodes.get(id), p = n ? n.parent : null; p !== null && p !== undefined; p = this.nodes.get(p).parent)
        this.nodes.get(p).open = true;
    },
    scrollToCursor() {
      const row = this.cursor === null ? null : $('tree-body').querySelector('[data-id="' + this.cursor + '"]');
      if (row) row.scrollIntoView({ block: 'nearest' });
    },
    toHash(put) {
      if ($('tree-mode').value !== 'function') put('mode', $('tree-mode').value);
      const t = $('tree-threshold').value;
      if (t !== this.defaultThreshold()) put('threshold', t);
      if ($('tree-chains').checked) put('chains', 'show');
      if (this.cursor !== null) put('node', this.cursor);
    },
    fromHash(h) {
      const mode = h.get('mode'), t = parseFloat(h.get('threshold')), node = parseInt(h.get('node'), 10);
      $('tree-mode').value = mode === 'loops' || mode === 'lines' ? mode : 'function';
      $('tree-threshold').value = t >= 0 && t <= 100 ? String(t) : this.defaultThreshold();
      $('tree-chains').checked = h.get('chains') === 'show';
      this.cursor = node >= 0 ? node : null;
    },
    defaultThreshold() {
      return threshold() !== null ? String(threshold()) : '0.1';
    },
    visibleRows() {
      /* depth-first over open nodes without recursion; the children the
       * library's answer left out (below its threshold, past its limit)
       * are counted into one "hidden" row per parent */
      const out = [], stack = [[this.rootId, 0]];
      while (stack.length) {
        const [id, depth] = stack.pop();
        if (typeof id === 'object') {
          out.push(Object.assign({ depth }, id));
          continue;
        }
        const n = this.nodes.get(id);
        if (!n) continue;
        out.push({ node: n, depth });
        if (!n.open || !n.children) continue;
        const shown = n.children.map((c) => this.nodes.get(c)).filter((c) => c);
        const hidden = n.more + Math.max(0, n.child_count - shown.length - n.more);
        if (hidden > 0) stack.push([{ hidden, parent: n }, depth + 1]);
        for (let i = shown.length - 1; i >= 0; i--) stack.push([shown[i].id, depth + 1]);
      }
      return out;
    },
    render() {
      const body = clear($('tree-body'));
      if (this.rootId === null) return;
      this.visible = this.visibleRows();
      const frag = document.createDocumentFragment();
      const fn = selectedFunction();
      for (const v of this.visible) {
        if (v.hidden) {
          frag.append(el('div', { class: 'tnode more', style: 'padding-left:' + (v.depth * 1.1 + 1.4) + 'em',
            text: '… ' + v.hidden + ' more below the threshold or the 500 shown' }));
          continue;
        }
        const n = v.node;
        const tw = n.child_count ? (n.open && n.children ? '▾' : '▸') : '';
        const row = el('div', { class: 'tnode' + (n.hot ? ' hot' : ''), role: 'treeitem', 'data-id': n.id,
          'aria-expanded': n.child_count ? String(!!(n.open && n.children)) : null,
          style: 'padding-left:' + (v.depth * 1.1 + 0.4) + 'em' }, [
          el('span', { class: 'tw', text: tw }),
          el('span', { class: 'val', text: PK.fmt(n.inclusive, this.fmt) }),
          el('span', { class: 'pct', text: this.share ? pct(n.inclusive, this.total) : '' }),
          el('span', { class: 'nm' }, [n.name, n.via ? el('span', { class: 'via', text: viaText(n.via) }) : null]),
          n.kind !== 'function' && n.kind !== 'root' ? el('span', { class: 'kind', text: n.kind }) : null,
          n.module ? el('span', { class: 'mod', text: '[' + n.module + ']' }) : null,
        ]);
        row.title = [n.name + viaText(n.via), 'inclusive ' + withUnit(n.inclusive, this.fmt) + '  ' + (this.share ? pct(n.inclusive, this.total) : ''),
          'self ' + withUnit(n.exclusive, this.fmt), n.file ? n.file + (n.line ? ':' + n.line : '') : ''].filter((x) => x).join('\n');
        if ((fn && n.name === fn && n.kind === 'function') || this.cursor === n.id) row.classList.add('selected');
        row.firstChild.addEventListener('click', (ev) => {
          ev.stopPropagation();
          this.toggle(n.id);
        });
        row.addEventListener('click', () => this.choose(n));
        row.addEventListener('dblclick', () => this.toggle(n.id));
        frag.append(row);
      }
      body.append(frag);
    },
    choose(n) {
      if (n.kind === 'function') return frameSelect(n, n.id);
      this.cursor = n.id;
      PK.writeHash(true);
      this.render();
    },
    async toggle(id) {
      const n = this.nodes.get(id);
      if (!n || !n.child_count) return;
      if (n.open && n.children) n.open = false;
      else await this.expand(id, false);
      this.render();
    },
    collapseAll() {
      for (const n of this.nodes.values()) n.open = false;
      const r = this.nodes.get(this.rootId);
      if (r) r.open = true;
      this.render();
    },
    async key_(ev) {
      const ids = this.visible.filter((v) => v.node).map((v) => v.node.id);
      if (!ids.length) return;
      let i = ids.indexOf(this.cursor);
      const n = this.nodes.get(this.cursor);
      if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') i = Math.max(0, Math.min(ids.length - 1, i + (ev.key === 'ArrowDown' ? 1 : -1)));
      else if (ev.key === 'ArrowRight' && n) return ev.preventDefault(), (await this.expand(n.id, false)), this.render();
      else if (ev.key === 'ArrowLeft' && n) {
        if (n.open && n.children) n.open = false;
        else if (n.parent !== null) this.cursor = n.parent;
      } else if (ev.key === 'Enter' && n) return this.choose(n);
      else return;
      ev.preventDefault();
      if (i >= 0) this.cursor = ids[i];
      PK.writeHash(false);
      this.render();
      this.scrollToCursor();
    },
  };
  PK.tree = tree;

  /* ---- flame graph / icicle on a canvas: zoom, search, diff colours ---- */
  const ROW = 18;
  const flame = {
    root: null, zoom: null, want: null, key: '', rects: [], fmt: null, total: 0, diff: false, note: '',
    async load() {
      const key = PK.url('flame', viewParams({}));
      const pane = $('pane-flame');
      if (key === this.key) { /* loaded (or on its way): the zoom the state asks for */
        if (this.root && this.want !== null && (!this.zoom || this.zoom.id !== this.want)) await this.reveal(this.want);
        return this.draw();
      }
      this.key = key;
      pane.dataset.state = 'loading';
      try {
        const d = await PK.api(key);
        if (key !== this.key) return;
        this.root = this.adopt(d, null);
        this.zoom = this.root;
        this.total = d.total !== undefined ? d.total : this.root.inclusive;
        this.fmt = metricFormat(d.metric || S.metric, d.unit, this.total);
        this.diff = this.hasBase(this.root);
        $('flame-legend').hidden = !this.diff;
        this.note = d.pruned ? d.pruned + ' frames below ' + (d.min_share !== undefined ? d.min_share : 0.1) + ' % left out; click a frame to see more of it' : '';
        noteText($('flame-note'), this.note);
        if (this.want !== null) await this.reveal(this.want);
        if (key !== this.key) return;
        this.draw();
        pane.dataset.state = 'ready';
      } catch (e) {
        if (key !== this.key) return;
        this.root = null;
        this.draw();
        problem($('flame-note'), pane, e);
      }
    },
    /* The response's root frame, with parent links for the ancestors bar. */
    adopt(d, parent) {
      const root = d.root || d.node || d.frame || (Array.isArray(d.frames)
        ? { id: null, name: '<program root>', inclusive: d.frames.reduce((s, f) => s + (f.inclusive || 0), 0), self: 0, children: d.frames }
        : d);
      const stack = [[root, parent]];
      while (stack.length) {
        const [f, p] = stack.pop();
        f.parent = p;
        if (f.node !== undefined) f.id = f.node; /* the tree answer's node index */
        f.children = f.children || [];
        for (const c of f.children) stack.push([c, f]);
      }
      return root;
    },
    find(id) {
      const stack = this.root ? [this.root] : [];
      while (stack.length) {
        const f = stack.pop();
        if (f.id === id) return f;
        for (const c of f.children) stack.push(c);
      }
      return null;
    },
    /* Zoom to frame ID (a link's, a reload's): down its path from the
     * root, each frame on it fetched at its own scale when ID is too
     * narrow to be in the frames at hand. */
    async reveal(id) {
      const key = this.key;
      let f = this.find(id);
      if (!f) {
        let path = [];
        try {
          path = (await PK.api(PK.url('flame', viewParams({ node: id })))).path || [];
        } catch (e) {
          return; /* gone, or not in this report: the whole graph */
        }
        for (const a of path) {
          const g = this.find(a);
          if (!g || key !== this.key) break;
          if (a !== this.root.id) await this.refine(g);
          if ((f = this.find(id))) break;
        }
      }
      if (f && key === this.key) {
        this.zoom = f;
        await this.refine(f);
      }
    },
    toHash(put) {
      if ($('flame-icicle').checked) put('icicle', '1');
      put('highlight', $('flame-search').value.trim());
      const z = this.zoom && this.zoom !== this.root ? this.zoom.id : this.want;
      if (z !== null && z !== undefined) put('zoom', z);
    },
    fromHash(h) {
      const z = parseInt(h.get('zoom'), 10);
      $('flame-icicle').checked = h.get('icicle') === '1';
      $('flame-search').value = h.get('highlight') || '';
      this.want = z > 0 ? z : null;
      if (this.root && (this.want === null || !this.zoom || this.zoom.id !== this.want)) this.zoom = this.root;
    },
    hasBase(root) {
      return !!(S.profile.base && S.side !== 'b' && root && root.base_inclusive !== undefined);
    },
    /* frames of the zoomed view: ancestors full width, then the subtree */
    layout(width) {
      const out = [];
      if (!this.root) return out;
      const anc = [];
      for (let f = this.zoom.parent; f; f = f.parent) anc.unshift(f);
      anc.forEach((f, depth) => out.push({ f, x: 0, w: width, depth, anc: true }));
      const scale = this.zoom.inclusive ? width / this.zoom.inclusive : 0;
      const stack = [[this.zoom, 0, anc.length]];
      while (stack.length) {
        const [f, x, depth] = stack.pop();
        const w = f === this.zoom ? width : f.inclusive * scale;
        if (w < 0.5) continue;
        out.push({ f, x, w, depth });
        let cx = x;
        for (const c of f.children) {
          stack.push([c, cx, depth + 1]);
          cx += Math.max(0, c.inclusive) * scale;
        }
      }
      return out;
    },
    matcher() {
      const q = $('flame-search').value.trim();
      if (!q) return null;
      try {
        const re = new RegExp(q, 'i');
        return (n) => re.test(n);
      } catch (e) {
        return (n) => n.toLowerCase().includes(q.toLowerCase());
      }
    },
    colour(f, hit, match) {
      if (match) return hit ? 'rgb(220,60,220)' : 'rgba(160,160,160,.45)';
      if (this.diff) {
        /* shade by the library's change against the larger of the two values */
        const d = f.inclusive_change || 0, m = Math.max(Math.abs(f.inclusive || 0), Math.abs(f.base_inclusive || 0)) || 1;
        const t = Math.min(1, Math.abs(d) / m);
        if (Math.abs(d) <= 1e-9 * m) return 'rgb(200,200,200)';
        const s = Math.round(220 - 160 * t);
        return d > 0 ? 'rgb(240,' + s + ',' + s + ')' : 'rgb(' + s + ',' + s + ',240)';
      }
      return nameColour(f.name, true);
    },
    draw() {
      const canvas = $('flame-canvas'), wrap = $('flame-wrap');
      const width = Math.max(200, wrap.clientWidth - 2);
      const boxes = this.layout(width);
      const depth = boxes.reduce((m, b) => Math.max(m, b.depth), 0) + 1;
      const height = this.root ? depth * ROW : 0;
      const g = sizeCanvas(canvas, width, height);
      g.font = '12px system-ui, sans-serif';
      g.textBaseline = 'middle';
      const match = this.matcher(), icicle = $('flame-icicle').checked, fn = selectedFunction();
      this.rects = [];
      for (const b of boxes) {
        const y = icicle ? b.depth * ROW : height - (b.depth + 1) * ROW;
        const hit = !!match && match(String(b.f.name));
        g.fillStyle = this.colour(b.f, hit, match);
        g.fillRect(b.x, y, Math.max(0.5, b.w - 0.5), ROW - 1);
        if (fn && b.f.name === fn) {
          g.strokeStyle = cssVar('--fg') || '#000';
          g.lineWidth = 2;
          g.strokeRect(b.x + 1, y + 1, Math.max(0, b.w - 2.5), ROW - 3);
        }
        if (b.w > 28) {
          g.fillStyle = '#111';
          g.fillText(fit(g, String(b.f.name), b.w - 6), b.x + 3, y + ROW / 2);
        }
        this.rects.push({ f: b.f, x: b.x, y, w: b.w, h: ROW - 1, name: String(b.f.name), hit, anc: !!b.anc });
      }
      canvas.dataset.frames = String(this.rects.length);
      canvas.dataset.zoomed = this.zoom && this.zoom !== this.root ? String(this.zoom.name) : '';
      this.matched(match);
    },
    /* the share of the zoomed frame that matching frames take, each
     * subtree counted once (a match below a match is inside it) */
    matched(match) {
      const out = $('flame-matched');
      if (!match || !this.zoom) return (out.textContent = '');
      let sum = 0;
      const stack = [this.zoom];
      while (stack.length) {
        const f = stack.pop();
        if (match(String(f.name))) sum += f.inclusive || 0;
        else for (const c of f.children) stack.push(c);
      }
      out.textContent = 'Matched: ' + pct(sum, this.zoom.inclusive) + ' (' + withUnit(sum, this.fmt) + ')';
    },
    at(ev) {
      const r = $('flame-canvas').getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
      return this.rects.find((b) => x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + ROW) || null;
    },
    async click(ev) {
      const b = this.at(ev);
      if (!b) return;
      frameSelect(b.f.id !== null ? b.f : null);
      await this.zoomTo(b.f);
    },
    async zoomTo(f) {
      this.zoom = f;
      this.want = f === this.root ? null : f.id;
      PK.writeHash(false);
      await this.refine(f);
      this.draw();
    },
    /* frames pruned at the root's scale come back at this frame's scale */
    async refine(f) {
      noteText($('flame-note'), this.note);
      if (!f.refined && f.parent && f.id !== null && f.id !== undefined) {
        f.refined = true;
        const key = this.key;
        try {
          const d = await PK.api(PK.url('flame', viewParams({ node: f.id })));
          if (key !== this.key) return;
          const sub = this.adopt(d, f.parent);
          f.children = sub.children;
          for (const c of f.children) c.parent = f;
        } catch (e) {
          if (e.missing) noteText($('flame-note'), 'deeper frames of this one are not in this report (pruned at ' + threshold() + ' %)');
          else problem($('flame-note'), $('pane-flame'), e);
        }
      }
    },
    reset() {
      this.zoom = this.root;
      this.want = null;
      PK.writeHash(true);
      noteText($('flame-note'), this.note);
      this.draw();
    },
    hover(ev) {
      const b = this.at(ev);
      if (!b) return hideTip();
      const f = b.f, lines = [String(f.name),
        'total: ' + withUnit(f.inclusive, this.fmt) + '  (' + pct(f.inclusive, this.total) + ')',
        'self: ' + withUnit(f.self, this.fmt) + '  (' + pct(f.self, this.total) + ')',
        f.module ? 'module: ' + f.module : '', f.file ? 'file: ' + f.file + (f.line ? ':' + f.line : '') : ''];
      if (this.diff) {
        const d = f.inclusive_change || 0;
        lines.push('--base: ' + withUnit(f.base_inclusive || 0, this.fmt) + '  change: ' + (d > 0 ? '+' : '') + withUnit(d, this.fmt));
      }
      showTip(ev, lines);
    },
  };
  PK.flame = flame;
  /* a label cut to the width it has, with an ellipsis at the end or (for
   * location names, whose thread number is at the end) in the middle */
  function fit(g, s, w, middle) {
    if (g.measureText(s).width <= w) return s;
    const cut = (n) => (middle ? s.slice(0, Math.ceil(n / 2)) + '…' + (n > 1 ? s.slice(s.length - Math.floor(n / 2)) : '') : s.slice(0, n) + '…');
    let lo = 0, hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (g.measureText(cut(mid)).width <= w) lo = mid;
      else hi = mid - 1;
    }
    return lo ? cut(lo) : '';
  }

  /* ---- callers and callees of the selected function ---- */
  const calls = {
    key: '',
    async load() {
      const pane = $('pane-calls'), top = S.sel ? null : await flat.topFunction();
      const fn = selectedFunction() || top;
      const key = fn ? PK.url('callers', { function: fn, metric: S.metric }) : '';
      if (key === this.key && pane.dataset.state !== 'loading') return;
      this.key = key;
      for (const view of ['callers', 'callees']) {
        clear($(view + '-body'));
        noteText($(view + '-note'), fn ? '' : 'select a function (in the flat table, the tree or the flame graph)');
      }
      $('calls-of').textContent = top ? 'Nothing selected: the function at the top of the flat table, ' + top +
        ' (select another in the flat table, the tree or the flame graph).' : '';
      if (!fn) return void (pane.dataset.state = 'ready');
      pane.dataset.state = 'loading';
      const results = await Promise.all(['callers', 'callees'].map(async (view) => {
        try {
          const d = await PK.api(PK.url(view, { function: fn, metric: S.metric }));
          if (key === this.key) this.render(view, d);
          return 'ready';
        } catch (e) {
          if (key === this.key) problem($(view + '-note'), pane, e);
          return e.missing ? 'missing' : 'error';
        }
      }));
      if (key === this.key) pane.dataset.state = results.find((r) => r !== 'ready') || 'ready';
    },
    render(view, d) {
      const body = $(view + '-body');
      const fmt = metricFormat(d.metric || S.metric, d.unit, d.total);
      const table = el('table', { class: 'data fit' });
      table.append(el('thead', {}, [el('tr', {}, [el('th', { text: header('inclusive', fmt) }),
        el('th', { text: header('self', fmt) }), el('th', { text: '%' }), el('th', { text: 'calls' }),
        el('th', { class: 'name fill', text: view === 'callers' ? 'called from' : 'calls' })])]));
      const tb = el('tbody');
      const count = (n) => (n === null || n === undefined ? '' : PK.fmt(n));
      const row = (name, incl, self, depth, calls) => {
        const r = el('tr', {}, [el('td', { text: PK.fmt(incl, fmt) }), el('td', { text: PK.fmt(self, fmt) }),
          el('td', { text: pct(incl, d.total) }), el('td', { text: count(calls) }),
          el('td', { class: 'name fill', title: name }, [el('span', { style: 'padding-left:' + depth * 1.2 + 'em', text: (depth ? '↳ ' : '') + name })])]);
        if (depth) r.addEventListener('click', () => frameSelect({ name }));
        else r.classList.add('selected');
        tb.append(r);
      };
      /* one block per function: a call graph's own lists (exact, one
       * level), or the tree around the function */
      for (const f of d.functions || []) {
        if (!f.root) {
          row(f.name, f.inclusive, f.self, 0, f.called);
          for (const a of f.arcs || []) row(a.name, a.inclusive, null, 1, a.calls);
          continue;
        }
        const stack = [[f.root, 0]];
        while (stack.length) {
          const [n, depth] = stack.pop();
          row(n.name, n.inclusive, n.self, depth, n.calls);
          const kids = n.children || [];
          for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], depth + 1]);
        }
      }
      table.append(tb);
      body.append(table);
      const hidden = (d.functions || []).reduce((n, f) => n + (f.hidden || 0) + (f.hidden_arcs || 0), 0) + (d.hidden_functions || 0);
      noteText($(view + '-note'), [hidden ? hidden + ' below the threshold left out' : ''].concat(answerNotes(d)).filter((x) => x).join(' · '));
    },
  };

  /* ---- source with per-line costs ---- */
  const source = {
    key: '',
    async load() {
      const s = S.sel, pane = $('pane-source'), body = $('source-body'), note = $('source-note');
      /* nothing selected: the top functions that have source lines (`annotate PATH`) */
      const p = !s ? {} : s.kind === 'function' ? { function: s.name } : s.kind === 'file' ? { file: s.file } : s.file ? { file: s.file } : null;
      const key = p ? PK.url('source', Object.assign({ metric: S.metric }, p)) : '';
      if (key === this.key && pane.dataset.state !== 'loading') return this.scroll();
      this.key = key;
      clear(body);
      noteText(note, p ? '' : 'select a function or a file');
      $('source-of').textContent = s ? '' : 'Nothing selected: the top functions by self value that have source lines, as `profkit annotate` shows them.';
      if (!p) return void (pane.dataset.state = 'ready');
      await fetchInto(this, pane, note, key, (d) => this.render(d), (e) => {
        /* a function without source lines is an answer, not a failure */
        if (e.status !== 404 || e.missing) return false;
        noteText(note, e.message);
        pane.dataset.state = 'ready';
        return true;
      });
    },
    render(d) {
      const body = $('source-body'), fmt = metricFormat(d.metric || S.metric, d.unit, d.total);
      const msgs = [];
      if (d.found === false) msgs.push('source not readable' + (d.searched ? '; searched: ' + [].concat(d.searched).join(', ') : ''));
      for (const m of d.missing || []) msgs.push('no source line known for ' + m);
      const unread = new Set();
      for (const f of d.files || []) {
        const lines = f.lines || [];
        const max = lines.reduce((m, l) => Math.max(m, Math.abs(l.self || 0), Math.abs(l.inclusive || 0)), 0);
        body.append(el('h3', { text: (f.heading ? f.heading + ' — ' : '') + (f.source || f.file || '') }));
        if (!f.source) unread.add(f.file || 'a file');
        const hasCalls = lines.some((l) => l.calls !== undefined);
        const table = el('table', { class: 'data' }, [el('thead', {}, [el('tr', {}, [el('th', { text: 'line' }),
          el('th', { text: header('self', fmt) }), el('th', { text: header('inclusive', fmt) }),
          hasCalls ? el('th', { text: 'calls' }) : null, el('th', { class: 'name', text: 'source' })])])]);
        const tb = el('tbody');
        for (const l of lines) {
          const frac = max ? Math.abs(l.inclusive || l.self || 0) / max : 0;
          const r = el('tr', { 'data-line': l.line, class: frac >= 0.1 ? 'hot' : null }, [
            el('td', { class: 'ln', text: l.line }), el('td', { text: l.self ? PK.fmt(l.self, fmt) : '' }),
            el('td', { text: l.inclusive ? PK.fmt(l.inclusive, fmt) : '' }),
            hasCalls ? el('td', { text: l.calls ? PK.fmt(l.calls) : '' }) : null,
            el('td', { class: 'text', text: l.past_end ? '(past the end of the file)' : l.text !== undefined ? l.text : '' })]);
          if (frac > 0) r.style.background = heat(frac);
          if (l.self || l.inclusive) r.title = 'self ' + withUnit(l.self || 0, fmt) + ' (' + pct(l.self, d.total) + '), inclusive ' + withUnit(l.inclusive || 0, fmt);
          tb.append(r);
        }
        table.append(tb);
        body.append(table);
      }
      /* said once, however many listings share the file */
      if (unread.size) msgs.push([...unread].join(', ') + ' not found under the profile\'s src/ or the ' +
        'directories given (profkit view -I DIR): only the lines with a cost are shown');
      noteText($('source-note'), msgs.join(' · '));
      this.scroll();
    },
    /* to the selected function's line, else its listing's first costly line */
    scroll() {
      const body = $('source-body');
      const want = S.sel && S.sel.line ? body.querySelector('tr[data-line="' + Number(S.sel.line) + '"]') : null;
      const hot = want || body.querySelector('tr.hot') || body.querySelector('tr[data-line]');
      body.querySelectorAll('tr.target').forEach((r) => r.classList.remove('target'));
      if (hot) {
        hot.classList.add('target');
        hot.scrollIntoView({ block: 'center' });
      }
    },
  };

  /* ---- the selection across locations: stats, heat strip, sorted bars ---- */
  const BARS_MAX = 2000; /* rows drawn as bars; the strip shows every location */
  const locations = {
    key: '', data: null,
    async load() {
      /* nothing selected: each location's total (`threads`) */
      const fn = selectedFunction(), pane = $('pane-locations'), note = $('locations-note');
      const key = PK.url('locations', sideParams({ function: fn }));
      if (key === this.key && pane.dataset.state !== 'loading') return this.render();
      this.key = key;
      this.data = null;
      clear($('locations-body'));
      clear($('locations-stats'));
      noteText(note, '');
      $('loc-value').disabled = !fn; /* a location's total has no self value */
      this.strip();
      await fetchInto(this, pane, note, key, (d) => ((this.data = d), this.render()));
    },
    render() {
      const d = this.data;
      if (!d) return;
      const which = this.which(), fmt = metricFormat(d.metric || S.metric, d.unit, d.max || d.sum);
      const stats = clear($('locations-stats'));
      const stat = (label, v, text) => stats.append(el('span', {}, [label + ' ', el('b', { text: text !== undefined ? text : withUnit(v, fmt) })]));
      stat('of', null, d.function ? 'function ' + d.function : 'the program');
      stat('locations', null, PK.fmt(d.count));
      for (const k of ['sum', 'min', 'max', 'mean', 'stddev']) if (d[k] !== undefined) stat(k, d[k]);
      if (d.imbalance !== undefined && d.imbalance !== null) stat('imbalance (max/mean − 1)', null, (100 * d.imbalance).toFixed(1) + ' %');
      const rows = (d.locations || []).slice().sort((a, b) => (b[which] || 0) - (a[which] || 0));
      const max = rows.reduce((m, r) => Math.max(m, Math.abs(r[which] || 0)), 0);
      const body = clear($('locations-body'));
      const table = el('table', { class: 'data fit' }, [el('thead', {}, [el('tr', {}, [el('th', { text: '#' }),
        el('th', { class: 'name fill', text: 'location' }), el('th', { text: header(which, fmt) }), el('th', { class: 'name barcell', text: '' })])])]);
      const tb = el('tbody');
      for (const r of rows.slice(0, BARS_MAX)) {
        const w = max ? (Math.abs(r[which] || 0) / max) * 6 : 0;
        tb.append(el('tr', {}, [el('td', { text: r.index }), el('td', { class: 'name fill', text: r.name, title: r.name }),
          el('td', { text: PK.fmt(r[which], fmt) }), el('td', { class: 'name barcell' }, [el('span', { class: 'bar', style: 'width:' + w.toFixed(2) + 'em' })])]));
      }
      table.append(tb);
      body.append(table);
      const more = rows.length - Math.min(rows.length, BARS_MAX);
      noteText($('locations-note'), more > 0 ? more + ' more locations not drawn as bars' : '');
      this.strip();
    },
    /* the value shown: a location's total has no self part */
    which() {
      return this.data && this.data.function ? $('loc-value').value : 'inclusive';
    },
    toHash(put) {
      if ($('loc-value').value !== 'inclusive') put('value', $('loc-value').value);
    },
    fromHash(h) {
      $('loc-value').value = h.get('value') === 'exclusive' ? 'exclusive' : 'inclusive';
    },
    /* one cell per location in index order: imbalance at a glance */
    strip() {
      const c = $('locations-strip'), w = Math.max(100, c.clientWidth), h = 28;
      const g = sizeCanvas(c, w, h, true);
      const d = this.data, which = this.which();
      if (!d || !(d.locations || []).length) return;
      const rows = d.locations.slice().sort((a, b) => a.index - b.index);
      const max = rows.reduce((m, r) => Math.max(m, Math.abs(r[which] || 0)), 0) || 1;
      const cw = w / rows.length;
      rows.forEach((r, i) => {
        g.fillStyle = heat(Math.abs(r[which] || 0) / max);
        g.fillRect(i * cw, 0, Math.max(cw, 0.5), h);
      });
      c.pkRows = rows;
    },
    hover(ev) {
      const c = $('locations-strip'), rows = c.pkRows, d = this.data;
      if (!rows || !d) return hideTip();
      const r = c.getBoundingClientRect(), i = Math.floor(((ev.clientX - r.left) / r.width) * rows.length);
      const row = rows[Math.max(0, Math.min(rows.length - 1, i))], which = this.which();
      const fmt = metricFormat(d.metric || S.metric, d.unit, d.max || d.sum);
      showTip(ev, ['#' + row.index + ' ' + row.name, which + ': ' + withUnit(row[which], fmt)]);
    },
  };

  /* ---- diff against --base: B (before) -> A (after) ---- */
  const diff = {
    key: '',
    async load() {
      const pane = $('pane-diff'), note = $('diff-note');
      const key = PK.url('diff', { metric: S.metric });
      if (key === this.key) return;
      this.key = key;
      clear($('diff-body'));
      await fetchInto(this, pane, note, key, (d) => this.render(d));
    },
    render(d) {
      const body = $('diff-body'), fmt = metricFormat(d.metric || S.metric, d.unit, Math.max(Math.abs(d.a_total || 0), Math.abs(d.b_total || 0)));
      /* the document is `diff BASE PATH`: A the base (before), B PATH (after) */
      noteText($('diff-note'), 'PATH total ' + withUnit(d.b_total, fmt) + ' vs --base total ' + withUnit(d.a_total, fmt) +
        (d.b_metric && d.b_metric !== d.metric ? ' (PATH metric ' + d.b_metric + ')' : '') +
        (d.b_scale && d.b_scale !== 1 ? ', PATH values ×' + d.b_scale : ''));
      const section = (title, rows, self) => {
        body.append(el('h3', { text: title }));
        const table = el('table', { class: 'data fit' }, [el('thead', {}, [el('tr', {}, [el('th', { class: 'name fill', text: 'name' }),
          el('th', { text: 'status' }), el('th', { text: header('--base', fmt) }), el('th', { text: header('PATH', fmt) }),
          el('th', { text: header('change', fmt) }), el('th', { text: 'change %' }), el('th', { class: 'name barcell', text: '' })])])]);
        const tb = el('tbody');
        const maxd = rows.reduce((m, r) => Math.max(m, Math.abs(r.change || 0)), 0) || 1;
        for (const r of rows) {
          const dv = r.change || 0, pc = r.change_percent;
          const cls = dv > 0 ? 'worse' : dv < 0 ? 'better' : '';
          /* "added": only in B, PATH; "removed": only in A, the base */
          const only = r.status === 'added' ? 'onlya' : r.status === 'removed' ? 'onlyb' : null;
          const tr = el('tr', { class: only }, [
            el('td', { class: 'name fill', text: r.name, title: r.name }),
            el('td', { text: only === 'onlyb' ? 'only in --base' : only === 'onlya' ? 'only in PATH' : r.status }),
            el('td', { text: PK.fmt(r['a_' + self] || 0, fmt) }), el('td', { text: PK.fmt(r['b_' + self] || 0, fmt) }),
            el('td', { class: cls, text: (dv > 0 ? '+' : '') + PK.fmt(dv, fmt) }),
            el('td', { class: cls, text: pc === null || pc === undefined ? (dv ? 'new' : '') : (pc > 0 ? '+' : '') + pc.toFixed(1) + ' %' }),
            el('td', { class: 'name barcell' }, [el('span', { class: 'diffbar ' + cls, style: 'width:' + ((Math.abs(dv) / maxd) * 6).toFixed(2) + 'em' })])]);
          if (r.function || title === 'Functions') tr.addEventListener('click', () => frameSelect({ name: r.function || r.name }));
          tb.append(tr);
        }
        table.append(tb);
        body.append(table);
      };
      section('Functions', d.functions || [], 'self');
      /* against a call graph the library compares call arcs, not paths */
      section(d.paths_are === 'call_arcs' ? 'Call arcs (caller > callee)' : 'Paths', d.paths || [], 'inclusive');
    },
  };

  /* ---- timeline of traces: the library's trace answer (profkit.trace/1,
   * the document of `profkit trace --json --timeline PX`) for the
   * selection in the toolbar, which the URL shows as the CLI's options:
   * #pane=timeline&from=1.5s&to=2s&location=rank%3D3&focus=…&hide=…&first=N.
   * Times in the URL and the fields are after the traces' start, exact to
   * the nanosecond (the document's *_offset_ns); spans are absolute ns,
   * drawn relative to begin_ns. ---- */
  const LABELS = 190, ROW_H = 14, AXIS_H = 34, ROWS = 64; /* labels: a DOM column, LABELS px */
  const SEL_KEYS = ['from', 'to', 'focus', 'hide']; /* the rows' locations: the bar's Location */
  const SPECIALS = { '-1': ['idle (not running)', 'tl-idle'], '-2': ['gap (no samples)', 'tl-gap'],
    '-3': ['left out by focus/hide', 'tl-filtered'] };
  /* nanoseconds after the start as a time the CLI reads back exactly */
  function relText(ns) {
    const n = Math.max(0, Math.round(ns)), s = Math.floor(n / 1e9), r = n - s * 1e9;
    return r ? s + '.' + String(r).padStart(9, '0').replace(/0+$/, '') + 's' : s + 's';
  }
  function specialColour(f) {
    return cssVar('--' + SPECIALS[String(f)][1]) || '#ccc';
  }
  const timeline = {
    data: null, key: '', view: null, full: null, timer: 0, drag: null, spans: [], first: 0,
    sel: { from: '', to: '', focus: '', hide: '' },
    /* the URL's share of the state: the window, focus, hide, first row */
    toHash(put) {
      for (const k of SEL_KEYS) put(k, this.sel[k]);
      if (this.first) put('first', this.first);
    },
    fromHash(h) {
      for (const k of SEL_KEYS) this.sel[k] = h.get(k) || '';
      this.first = Math.max(0, parseInt(h.get('first') || '0', 10) || 0);
      this.zoomed = !!(this.sel.from || this.sel.to);
      this.fillForm();
    },
    fillForm() {
      for (const k of SEL_KEYS) $('tl-' + k).value = this.sel[k];
    },
    async load() {
      if (this.data && this.url() === this.key) return this.draw();
      await this.fetch();
    },
    /* the window (relative ns) when zoomed, else the selection as given */
    params(width) {
      const p = { first: this.first || null, location: S.location || null };
      for (const k of SEL_KEYS) p[k] = this.sel[k] || null;
      const plain = SEL_KEYS.every((k) => !this.sel[k]) && !this.first && !S.location;
      /* the overview is the route's defaults: what a report holds */
      if (!plain || this.zoomed) p.width = width;
      return p;
    },
    url() {
      const width = Math.max(100, Math.round($('timeline-wrap').clientWidth - LABELS - 4));
      return PK.url('trace', this.params(width));
    },
    async fetch() {
      const pane = $('pane-timeline'), note = $('timeline-note');
      const key = this.url();
      this.key = key;
      if (!this.data) pane.dataset.state = 'loading';
      try {
        const d = await PK.api(key);
        if (key !== this.key) return;
        this.data = d;
        this.view = [d.from_offset_ns, d.to_offset_ns];
        /* the whole trace, after its start: what zooming out stops at */
        this.full = [Math.min(0, d.from_offset_ns), Math.max(d.to_offset_ns, d.end_ns - d.begin_ns + 1)];
        noteText(note, '');
        this.draw();
        pane.dataset.state = 'ready';
      } catch (e) {
        if (key !== this.key) return;
        if (this.data && e.missing) noteText(note, 'this zoom is not in this report (pruned at ' + threshold() + ' %): the overview is stretched');
        else problem(note, pane, e);
      }
    },
    /* the toolbar's fields become the selection */
    apply() {
      for (const k of SEL_KEYS) this.sel[k] = $('tl-' + k).value.trim();
      this.first = 0;
      this.zoomed = !!(this.sel.from || this.sel.to);
      PK.writeHash(true);
      return this.fetch();
    },
    page(delta) {
      const d = this.data, tl = d && d.timeline;
      if (!tl) return;
      this.first = Math.max(0, Math.min(this.first + delta * ROWS, d.locations_total - 1));
      PK.writeHash(true);
      return this.fetch();
    },
    draw() {
      const c = $('timeline-canvas'), d = this.data;
      const w = Math.max(300, $('timeline-wrap').clientWidth - LABELS - 18); /* room for a scroll bar */
      const rows = d && d.timeline ? d.timeline.rows : [];
      const h = rows.length * ROW_H + AXIS_H;
      const g = sizeCanvas(c, w, h);
      this.spans = [];
      if (!d || !this.view) return;
      const [b, e] = this.view, plot = w, sx = plot / Math.max(1, e - b);
      const funcs = d.functions || [], sel = selectedFunction();
      const fn = funcs.some((f) => f.name === sel) ? sel : null;
      const seen = new Map();
      g.font = '11px system-ui, sans-serif';
      g.textBaseline = 'middle';
      this.labels(rows);
      rows.forEach((row, i) => {
        const y = i * ROW_H;
        if (i % 2) (g.fillStyle = cssVar('--head') || '#f3f5f7'), g.fillRect(0, y, w, ROW_H);
        for (const s of row.spans || []) {
          const t0 = s[0] - d.begin_ns, t1 = s[1] - d.begin_ns;
          if (t1 < b || t0 > e) continue;
          const x0 = Math.max(0, (t0 - b) * sx), x1 = Math.min(plot, (t1 - b) * sx);
          const special = s[2] < 0, name = special ? SPECIALS[String(s[2])][0] : funcs[s[2]] ? String(funcs[s[2]].name) : '?';
          if (s[2] === -1) continue; /* idle: the row's background */
          g.globalAlpha = fn && name !== fn ? 0.3 : 1;
          g.fillStyle = special ? specialColour(s[2]) : nameColour(name, false);
          g.fillRect(x0, y + 1, Math.max(0.7, x1 - x0), ROW_H - 2);
          this.spans.push({ x0, x1, y, h: ROW_H, name, loc: row.location, t0, t1 });
          const k = special ? 's' + s[2] : 'f' + s[2];
          seen.set(k, (seen.get(k) || 0) + Math.max(0.7, x1 - x0));
        }
        g.globalAlpha = 1;
      });
      this.axis(g, w, rows.length * ROW_H, b, e);
      this.legend(seen, funcs);
      this.caption(d, rows, b, e);
      c.dataset.spans = String(this.spans.length);
      c.dataset.rows = String(rows.length);
      c.dataset.view = Math.round(b) + '-' + Math.round(e);
    },
    /* ticks at 1, 2 or 5 times a power of ten, labelled after the start */
    axis(g, w, y, b, e) {
      const plot = w, span = Math.max(1, e - b), raw = span / 8;
      const p10 = Math.pow(10, Math.floor(Math.log10(raw)));
      const step = [1, 2, 5, 10].map((m) => m * p10).find((v) => v >= raw);
      g.strokeStyle = g.fillStyle = cssVar('--muted') || '#666';
      g.beginPath();
      g.moveTo(0, y + 0.5), g.lineTo(w, y + 0.5);
      g.textBaseline = 'top';
      g.textAlign = 'center';
      for (let t = Math.ceil(b / step) * step; t <= e; t += step) {
        const x = Math.round(((t - b) / span) * plot) + 0.5;
        g.moveTo(x, y), g.lineTo(x, y + 5);
        const text = timeText(t);
        if (x > 20 && w - x > 20) g.fillText(text, x, y + 7);
      }
      g.stroke();
      g.textAlign = 'left';
    },
    /* a label per row (the location's name, whole in its tooltip), and
     * under them what the axis counts from */
    labels(rows) {
      const box = clear($('timeline-labels'));
      /* the parts every row shares ("NODE 0 / ") are said once, in the tooltip */
      const parts = rows.map((r) => String(r.location).split(' / '));
      let common = parts.length > 1 ? Math.min(...parts.map((p) => p.length)) - 1 : 0;
      for (let k = 0; k < common; k++) if (parts.some((p) => p[k] !== parts[0][k])) common = k;
      rows.forEach((row, i) => box.append(el('div', { text: parts[i].slice(common).join(' / '), title: row.location })));
      box.append(el('div', { class: 'tl-axis', text: 'time after the start →', title: this.originText() }));
    },
    originText() {
      const d = this.data;
      return d ? new Date(d.begin_ns / 1e6).toISOString().replace('T', ' ').replace('Z', ' UTC') : '';
    },
    /* what the colours in view mean: the widest functions, then the rest */
    legend(seen, funcs) {
      const box = clear($('timeline-legend'));
      const items = [...seen.entries()].sort((x, y) => y[1] - x[1]);
      const fns = items.filter(([k]) => k[0] === 'f'), shown = fns.slice(0, 10);
      for (const [k] of shown) {
        const f = funcs[parseInt(k.slice(1), 10)], name = f ? String(f.name) : '?';
        const sw = el('span', { class: 'sw' });
        sw.style.background = nameColour(name, false);
        box.append(el('span', { class: 'tl-item', title: name + (f && f.module ? ' [' + f.module + ']' : '') }, [sw, el('span', { text: name })]));
      }
      if (fns.length > shown.length) box.append(el('span', { class: 'tl-more', text: '+' + (fns.length - shown.length) + ' more functions' }));
      for (const s of ['-2', '-3', '-1']) {
        if (s !== '-1' && !seen.has('s' + s)) continue;
        const sw = el('span', { class: 'sw ' + SPECIALS[s][1] });
        box.append(el('span', { class: 'tl-item' }, [sw, el('span', { text: SPECIALS[s][0] })]));
      }
      box.dataset.items = String(shown.length);
    },
    caption(d, rows, b, e) {
      const total = d.locations_total, first = d.timeline ? d.timeline.first : 0;
      $('timeline-rows').textContent = rows.length ? 'rows ' + (first + 1) + '–' + (first + rows.length) + ' of ' + total : 'no rows';
      $('timeline-prev').disabled = first <= 0;
      $('timeline-next').disabled = first + rows.length >= total;
      $('timeline-range').textContent = 'showing ' + timeText(b) + ' – ' + timeText(e) + ' (' + timeText(e - b) + ')' +
        (this.full ? ' of ' + timeText(this.full[1] - this.full[0]) : '');
      $('timeline-origin').textContent = '0 = start of the traces, ' + this.originText();
    },
    /* zoom by FACTOR around the time under pixel X, then ask for detail */
    zoomAt(x, factor) {
      if (!this.view) return;
      const [b, e] = this.view, plot = $('timeline-canvas').clientWidth;
      const t = b + (Math.max(0, x) / plot) * (e - b);
      this.setView(t - (t - b) * factor, t + (e - t) * factor);
    },
    setView(nb, ne) {
      const [fb, fe] = this.full || this.view;
      const span = Math.min(fe - fb, Math.max(1000, ne - nb));
      nb = Math.max(fb, Math.min(nb, fe - span));
      this.view = [nb, nb + span];
      this.draw();
      clearTimeout(this.timer);
      const whole = nb <= fb && nb + span >= fe;
      this.sel.from = whole ? '' : relText(nb);
      this.sel.to = whole ? '' : relText(nb + span);
      this.zoomed = !whole;
      this.fillForm();
      PK.writeHash(false);
      this.timer = setTimeout(() => this.fetch(), 200);
    },
    reset() {
      this.sel.from = this.sel.to = '';
      this.zoomed = false;
      this.fillForm();
      PK.writeHash(true);
      return this.fetch();
    },
    hover(ev) {
      const r = $('timeline-canvas').getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
      const s = this.spans.find((p) => x >= p.x0 && x <= Math.max(p.x1, p.x0 + 1) && y >= p.y && y < p.y + p.h);
      if (!s) return hideTip();
      showTip(ev, [s.name, s.loc, timeText(s.t0) + ' – ' + timeText(s.t1) + ' after the start (' + timeText(s.t1 - s.t0) + ')']);
    },
  };
  PK.timeline = timeline;

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
})();
