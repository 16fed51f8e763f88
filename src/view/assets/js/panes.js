/*
 * src/view/assets/js/panes.js — the smaller panes: callers and callees of the selection, source with
 * per-line costs, the selection across locations, and the diff against
 * --base.
 *
 * One part of the view's script: the build joins the parts, in the order
 * src/CMakeLists.txt lists them, into app.js inside one function, so
 * they share its names (docs/view-panes.md, "The script").
 */
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
