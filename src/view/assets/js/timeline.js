/*
 * src/view/assets/js/timeline.js — the timeline of traces, from the library's trace answer.
 *
 * One part of the view's script: the build joins the parts, in the order
 * src/CMakeLists.txt lists them, into app.js inside one function, so
 * they share its names (docs/view-panes.md, "The script").
 */
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
