/*
 * src/view/assets/js/tree.js — the top-down tree: lazy children, the hot path, the threshold.
 *
 * One part of the view's script: the build joins the parts, in the order
 * src/CMakeLists.txt lists them, into app.js inside one function, so
 * they share its names (docs/view-panes.md, "The script").
 */
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
    return String(threshold() !== null ? threshold() : S.profile.page_threshold);
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
