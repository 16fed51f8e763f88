/*
 * src/view/assets/js/flame.js — the flame graph (or icicle) on a canvas: zoom, search, diff colours.
 *
 * One part of the view's script: the build joins the parts, in the order
 * src/CMakeLists.txt lists them, into app.js inside one function, so
 * they share its names (docs/view-panes.md, "The script").
 */
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
      /* what is left out, then the answer's own notes (a reconstructed
       * tree says it is approximate), as the tree pane shows them */
      const pruned = d.pruned ? d.pruned + ' frames below ' + (d.min_share !== undefined ? d.min_share : S.profile.page_threshold) + ' % left out; click a frame to see more of it' : '';
      this.note = [pruned].concat(answerNotes(d)).filter((x) => x).join(' · ');
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
