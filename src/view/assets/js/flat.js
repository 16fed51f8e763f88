/*
 * src/view/assets/js/flat.js — the flat table: several metrics, sortable, searchable.
 *
 * One part of the view's script: the build joins the parts, in the order
 * src/CMakeLists.txt lists them, into app.js inside one function, so
 * they share its names (docs/view-panes.md, "The script").
 */
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
