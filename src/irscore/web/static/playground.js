// The Playground tab: precision and recall at k on a ranking you judge by clicking, and
// "be the assessor" (two systems, one set of judgments, accuracy beside P and R).
// Computed here, in the page, by trec_eval's rules as irscore explain applies them
// (relevant: grade >= 1; P@k divides by k; AP, RR and R-precision over the whole
// ranking; nDCG@k's ideal from every judged document); tests/test_page_playground.py
// checks every number against the command line.
'use strict';

const playground = (() => {
  const el = (id) => document.getElementById(id);
  const MAX_RANKS = 20;
  const LEVELS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]; // trec_eval's literals
  const DOCS = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8'];
  const SYSTEMS = { A: ['d1', 'd2', 'd3', 'd4', 'd5'], B: ['d6', 'd3', 'd7', 'd1', 'd8'] };
  const DEFAULT = {
    grades: [1, 0, 1, 1, 0, 0, 1, 0, 0, 0, ...Array(MAX_RANKS - 10).fill(0)],
    n: 10, k: 5, missed: 2, missedGrade: 1, graded: false,
    judged: [1, 1, 0, 0, 0, 1, 0, 0], N: 1000, neither: 0,
  };
  const LINK = /^([0-3]{1,20})\.(\d{1,2})\.(\d{1,2})\.([1-3])\.([01])\.([0-3]{8})\.(\d{1,9})\.(\d{1,2})$/;
  let s = structuredClone(DEFAULT);
  let written = ''; // the #pg value last written or read: another one came from a link

  // ---- the measures (one ranking of grades, the grades of the relevant ones missed) ----

  /** P@k, R@k, AP, AP@k, RR, R-prec, nDCG@k (linear, exponential) as irscore explain. */
  function measures(grades, missed, k) {
    const rel = grades.map((g) => g >= 1);
    const R = rel.filter(Boolean).length + missed.filter((g) => g >= 1).length;
    const top = rel.slice(0, k).filter(Boolean).length;
    let hits = 0; let sum = 0; let sumK = 0; let firstRel = 0;
    const precision = []; const recall = [];
    rel.forEach((r, i) => {
      if (r) {
        hits += 1;
        sum += hits / (i + 1);
        if (i < k) sumK += hits / (i + 1);
        if (!firstRel) firstRel = i + 1;
      }
      precision.push(hits / (i + 1));
      recall.push(R ? hits / R : 0);
    });
    const dcg = (gs, gain) => gs.slice(0, k).reduce((d, g, i) => d + (g > 0 ? gain(g) / Math.log2(i + 2) : 0), 0);
    const ideal = [...grades, ...missed].filter((g) => g > 0).sort((x, y) => y - x);
    const ndcg = (gain) => { const i = dcg(ideal, gain); return i > 0 ? dcg(grades, gain) / i : 0; };
    const inR = rel.slice(0, R).filter(Boolean).length;
    return {
      R, top, hits, firstRel, inR, precision, recall,
      P: top / k, recall_k: R ? top / R : 0, map: R ? sum / R : 0, map_cut: R ? sumK / R : 0,
      recip_rank: firstRel ? 1 / firstRel : 0, Rprec: R ? inR / R : 0,
      ndcg_cut: ndcg((g) => g), ndcg_exp_cut: ndcg((g) => 2 ** g - 1),
      ndcg: (() => { const i = dcgAll(ideal); return i > 0 ? dcgAll(grades) / i : 0; })(),
      iprec: iprec(rel, R),
    };
  }

  function dcgAll(gs) {
    return gs.reduce((d, g, i) => d + (g > 0 ? g / Math.log2(i + 2) : 0), 0);
  }

  /** How many relevant documents recall level r asks for, by trec_eval 9: (long)(r * R + 0.9),
   *  in doubles (0.7 * 3 + 0.9 is just below 3: 2). */
  const count = (level, R) => Math.trunc(level * R + 0.9);

  /** iprec_at_recall by trec_eval 9's count, c = (long)(r * R + 0.9): the highest
   *  precision at or below the c-th relevant document's rank, 0 past the last found. */
  function iprec(rel, R) {
    const atRel = []; // precision at each relevant rank
    let hits = 0;
    rel.forEach((r, i) => { if (r) { hits += 1; atRel.push(hits / (i + 1)); } });
    return LEVELS.map((level) => {
      const c = count(level, R);
      if (c > atRel.length) return 0;
      return Math.max(0, ...atRel.slice(Math.max(0, c - 1)));
    });
  }

  // ---- the state in the share link: pg=<grades>.<k>.<missed>.<grade>.<graded>.<judged>.<N>.<neither> ----

  function encode() {
    const text = [s.grades.slice(0, s.n).join(''), s.k, s.missed, s.missedGrade, s.graded ? 1 : 0,
      s.judged.join(''), s.N, s.neither].join('.');
    const plain = [DEFAULT.grades.slice(0, DEFAULT.n).join(''), DEFAULT.k, DEFAULT.missed,
      DEFAULT.missedGrade, 0, DEFAULT.judged.join(''), DEFAULT.N, DEFAULT.neither].join('.');
    return text === plain ? '' : text;
  }

  function decode(text) {
    const next = structuredClone(DEFAULT);
    if (!text) return next;
    const m = LINK.exec(text);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > MAX_RANKS || Number(m[3]) > 10 || Number(m[8]) > 20) {
      el('err-playground').textContent = `This link's playground settings (pg=${text.slice(0, 60)}) `
        + 'cannot be read; the playground starts from its own.';
      el('err-playground').classList.add('shown');
      return next;
    }
    const grades = [...m[1]].map(Number);
    Object.assign(next, {
      grades: [...grades, ...DEFAULT.grades.slice(grades.length)], n: grades.length, k: Number(m[2]),
      missed: Number(m[3]), missedGrade: Number(m[4]), graded: m[5] === '1' || /[23]/.test(m[1] + m[6]),
      judged: [...m[6]].map(Number), N: Number(m[7]), neither: Number(m[8]),
    });
    return next;
  }

  function changed() {
    el('err-playground').textContent = ''; // a link's message is stale once the user acts
    el('err-playground').classList.remove('shown');
    written = encode();
    el('pg').value = written;
    draw();
    if (typeof writeURL === 'function') writeURL(); // app.js: the address bar follows
  }

  // ---- drawing ----

  const fix = (v) => v.toFixed(4);
  const nextGrade = (g) => (s.graded ? (g + 1) % 4 : g >= 1 ? 0 : 1);

  function gradeButton(grade, label, onClick) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `pg-doc g${grade}`;
    b.setAttribute('aria-label', `${label}: grade ${grade}${grade >= 1 ? ', relevant' : ''}; press to change`);
    b.addEventListener('click', onClick);
    return b;
  }

  function drawRanks(m) {
    const list = el('pg-ranks');
    const items = s.grades.slice(0, s.n).map((g, i) => {
      const li = document.createElement('li');
      if (i >= s.k) li.classList.add('beyond');
      const b = gradeButton(g, `rank ${i + 1}`, () => {
        s.grades[i] = nextGrade(s.grades[i]);
        changed();
        el('pg-ranks').children[i].querySelector('button').focus();
      });
      b.dataset.rank = String(i + 1);
      b.innerHTML = `<span class="pg-rank">${i + 1}</span><span class="pg-grade">${g}</span>`;
      li.append(b);
      return li;
    });
    for (let j = 0; j < s.missed; j += 1) {
      const li = document.createElement('li');
      li.className = 'missed';
      li.innerHTML = `<span class="pg-doc g${s.missedGrade}" title="relevant, never retrieved">`
        + `<span class="pg-rank">—</span><span class="pg-grade">${s.missedGrade}</span></span>`;
      items.push(li);
    }
    list.replaceChildren(...items);
    el('pg-n-out').textContent = s.n;
    el('pg-k-out').textContent = s.k;
    el('pg-missed-out').textContent = s.missed;
    el('pg-summary').textContent = `R = ${m.R} relevant (${m.hits} ranked, ${m.R - m.hits} never `
      + `retrieved); ${m.top} of them in the top k = ${s.k}`
      + (s.k > s.n ? ` (k is beyond the ${s.n} ranked: P@k still divides by ${s.k})` : '') + '.';
  }

  function row(body, name, label, value, how) {
    const tr = body.insertRow();
    tr.dataset.measure = name;
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = label;
    const td = tr.insertCell();
    td.className = 'num value';
    td.dataset.value = String(value);
    td.textContent = Number.isInteger(value) && label === 'R' ? String(value) : fix(value);
    tr.prepend(th);
    const note = tr.insertCell();
    note.className = 'formula';
    note.textContent = how;
  }

  function drawMeasures(m) {
    const k = s.k;
    const body = el('pg-measures').tBodies[0];
    body.replaceChildren();
    const rels = s.grades.slice(0, s.n).map((g, i) => (g >= 1 ? i + 1 : 0)).filter(Boolean);
    row(body, 'num_rel', 'R', m.R, 'relevant documents, ranked or not');
    row(body, 'P', `P@${k}`, m.P, `${m.top} relevant in the top ${k} / ${k}`);
    row(body, 'recall', `R@${k}`, m.recall_k, `${m.top} relevant in the top ${k} / R = ${m.R}`);
    const terms = rels.map((r, j) => `${j + 1}/${r}`);
    row(body, 'map', 'AP', m.map, `(${terms.join(' + ') || '0'}) / ${m.R}`);
    row(body, 'map_cut', `AP@${k}`, m.map_cut, `(${terms.filter((_, j) => rels[j] <= k).join(' + ') || '0'}) / ${m.R}`);
    row(body, 'recip_rank', 'RR', m.recip_rank, m.firstRel ? `1 / ${m.firstRel}` : 'no relevant document ranked: 0');
    row(body, 'Rprec', 'R-prec', m.Rprec, `${m.inR} relevant in the top R = ${m.R} / ${m.R}`);
    row(body, 'ndcg_cut', `nDCG@${k}`, m.ndcg_cut, 'gain = grade, discount 1/log2(i + 1); ideal: every judged grade, best first');
    row(body, 'ndcg_exp_cut', `nDCG@${k} exp`, m.ndcg_exp_cut, 'the same with gain 2^grade − 1');
    const eleven = el('pg-11').tBodies[0];
    eleven.replaceChildren();
    LEVELS.forEach((level, i) => {
      const tr = eleven.insertRow();
      const h = document.createElement('th');
      h.scope = 'row';
      h.textContent = level.toFixed(1);
      tr.append(h);
      const c = tr.insertCell();
      c.className = 'num';
      c.textContent = String(count(level, m.R));
      const td = tr.insertCell();
      td.className = 'num';
      td.dataset.value = String(m.iprec[i]);
      td.textContent = fix(m.iprec[i]);
    });
  }

  // ---- charts (SVG, drawn in a viewBox that scales with the page) ----

  const NS = 'http://www.w3.org/2000/svg';
  function svg(name, attributes, text) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /** A frame with y from 0 to 1 (ticks every 0.2), the plot's x and y scales. */
  function axes(box, { W, H, L, T, B, R, xLabel, yLabel, xTicks }) {
    const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'pg-chart' });
    const x = (v) => L + (W - L - R) * v;
    const y = (v) => T + (H - T - B) * (1 - v);
    chart.append(svg('rect', { x: L, y: T, width: W - L - R, height: H - T - B, class: 'pg-frame' }));
    for (let v = 0; v <= 5; v += 1) {
      const t = v / 5;
      chart.append(svg('line', { x1: L, x2: W - R, y1: y(t), y2: y(t), class: 'pg-grid' }));
      chart.append(svg('text', { x: L - 5, y: y(t) + 4, 'text-anchor': 'end', class: 'pg-tick' }, t.toFixed(1)));
    }
    for (const [v, text] of xTicks) {
      chart.append(svg('line', { x1: x(v), x2: x(v), y1: H - B, y2: H - B + 4, class: 'pg-axis' }));
      chart.append(svg('text', { x: x(v), y: H - B + 16, 'text-anchor': 'middle', class: 'pg-tick' }, text));
    }
    chart.append(svg('text', { x: L + (W - L - R) / 2, y: H - 5, 'text-anchor': 'middle', class: 'pg-label' }, xLabel));
    chart.append(svg('text', { x: 12, y: T + (H - T - B) / 2, 'text-anchor': 'middle', class: 'pg-label',
      transform: `rotate(-90 12 ${T + (H - T - B) / 2})` }, yLabel));
    box.replaceChildren(chart);
    return { chart, x, y };
  }

  /** The legend in the band above the frame, one entry after the other. */
  function legend(chart, entries, left, top) {
    let at = left;
    for (const [draw, text, width] of entries) {
      const key = svg('g', { class: 'pg-key' });
      key.append(draw(at, top), svg('text', { x: at + 22, y: top + 4, class: 'pg-legend' }, text));
      chart.append(key);
      at += width;
    }
  }

  function marker(shape, cx, cy, cls) {
    if (shape === 'square') return svg('rect', { x: cx - 3.5, y: cy - 3.5, width: 7, height: 7, class: cls });
    if (shape === 'ring') return svg('circle', { cx, cy, r: 6.5, class: cls });
    return svg('circle', { cx, cy, r: 3, class: cls });
  }

  function drawCurve(m) {
    const ticks = LEVELS.filter((_, i) => i % 2 === 0).map((v) => [v, v.toFixed(1)]);
    const { chart, x, y } = axes(el('pg-curve'), { W: 440, H: 300, L: 44, T: 34, B: 40, R: 12,
      xLabel: 'recall', yLabel: 'precision', xTicks: ticks });
    // interpolated: the highest precision at any recall >= r, a falling staircase
    const pts = m.recall.map((r, i) => [r, m.precision[i]]);
    const levels = [...new Set(m.recall.filter((r, i) => r > 0 && s.grades[i] >= 1))];
    const best = (r) => Math.max(0, ...pts.filter(([rr]) => rr >= r).map(([, p]) => p));
    let d = `M${x(0)},${y(best(0))}`;
    for (const [j, level] of levels.entries()) {
      d += ` H${x(level)}`;
      d += ` V${y(j + 1 < levels.length ? best(levels[j + 1]) : 0)}`;
    }
    d += ` H${x(1)}`;
    chart.append(svg('path', { d, class: 'pg-envelope' }));
    if (pts.length) {
      chart.append(svg('path', { d: pts.map(([r, p], i) => `${i ? 'L' : 'M'}${x(r)},${y(p)}`).join(' '), class: 'pg-saw' }));
      for (const [r, p] of pts) chart.append(marker('dot', x(r), y(p), 'pg-saw-dot'));
      if (s.k <= pts.length) chart.append(marker('ring', x(pts[s.k - 1][0]), y(pts[s.k - 1][1]), 'pg-k-ring'));
    }
    LEVELS.forEach((level, i) => chart.append(marker('square', x(level), y(m.iprec[i]), 'pg-eleven')));
    legend(chart, [
      [(a, t) => svg('path', { d: `M${a},${t} h16`, class: 'pg-saw' }), 'rank by rank', 116],
      [(a, t) => svg('path', { d: `M${a},${t} h16`, class: 'pg-envelope' }), 'interpolated', 106],
      [(a, t) => marker('square', a + 8, t, 'pg-eleven'), '11-point', 80],
      [(a, t) => marker('ring', a + 8, t, 'pg-k-ring'), 'k', 30],
    ], 48, 16);
  }

  // ---- be the assessor ----

  function systemGrades(name) {
    return SYSTEMS[name].map((d) => s.judged[DOCS.indexOf(d)]);
  }

  /** One system's measures and confusion counts under the shared judgments. */
  function assess(name) {
    const grades = systemGrades(name);
    const others = DOCS.filter((d) => !SYSTEMS[name].includes(d)).map((d) => s.judged[DOCS.indexOf(d)]);
    const missed = [...others.filter((g) => g >= 1), ...Array(s.neither).fill(1)];
    const m = measures(grades, missed, grades.length);
    const tp = m.top; const fp = grades.length - tp; const fn = m.R - tp;
    const tn = s.N - tp - fp - fn;
    return { ...m, tp, fp, fn, tn, accuracy: (tp + tn) / s.N };
  }

  function drawAssessor() {
    for (const name of ['A', 'B']) {
      el(`pg-${name.toLowerCase()}`).replaceChildren(...SYSTEMS[name].map((d, i) => {
        const li = document.createElement('li');
        const g = s.judged[DOCS.indexOf(d)];
        const b = gradeButton(g, `${name} rank ${i + 1}, ${d}`, () => {
          const j = DOCS.indexOf(d);
          s.judged[j] = nextGrade(s.judged[j]);
          changed();
          el(`pg-${name.toLowerCase()}`).children[i].querySelector('button').focus();
        });
        b.dataset.doc = d;
        b.innerHTML = `<span class="pg-rank">${d}</span><span class="pg-grade">${g}</span>`;
        li.append(b);
        return li;
      }));
    }
    const least = DOCS.length + s.neither;
    const bad = !Number.isInteger(s.N) || s.N < least;
    el('err-assessor').textContent = bad ? `The collection holds at least the ${DOCS.length} documents shown`
      + ` and the ${s.neither} relevant ones neither retrieved: N ≥ ${least}.` : '';
    el('err-assessor').classList.toggle('shown', bad);
    const a = assess('A'); const b = assess('B');
    const body = el('pg-vs').tBodies[0];
    body.replaceChildren();
    const rows = [['P', 'precision (P@5)', 'P'], ['recall', 'recall', 'recall_k'],
      ['accuracy', 'accuracy (TP + TN) / N', 'accuracy'], ['map', 'AP', 'map'], ['ndcg', 'nDCG', 'ndcg']];
    for (const [name, label, key] of rows) {
      const tr = body.insertRow();
      tr.dataset.measure = name;
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = label;
      tr.append(th);
      const shown = name === 'accuracy' && bad ? [null, null] : [a[key], b[key]];
      const better = shown[0] === null || shown[0] === shown[1] ? '' : shown[0] > shown[1] ? 'A' : 'B';
      shown.forEach((v, i) => {
        const td = tr.insertCell();
        td.className = `num value-${'ab'[i]}`;
        td.dataset.value = v === null ? '' : String(v);
        td.textContent = v === null ? '' : fix(v);
        if (better === 'AB'[i]) td.classList.add('pg-better');
      });
      const verdict = tr.insertCell();
      verdict.className = 'better';
      verdict.textContent = shown[0] === null ? '' : better ? `${better} ▲` : 'tie';
    }
    const none = (s.N - a.R) / s.N;
    el('pg-confusion').textContent = bad ? '' : `A: TP ${a.tp}, FP ${a.fp}, FN ${a.fn}, TN ${a.tn}; `
      + `B: TP ${b.tp}, FP ${b.fp}, FN ${b.fn}, TN ${b.tn}.`;
    el('pg-nothing').dataset.value = bad ? '' : String(none);
    el('pg-nothing').textContent = bad ? '?' : fix(none);
    drawBars(a, b, bad);
  }

  function drawBars(a, b, bad) {
    const names = [['P', 'P'], ['recall_k', 'recall'], ['accuracy', 'accuracy'], ['map', 'AP'], ['ndcg', 'nDCG']];
    const ticks = names.map((_, i) => [(i + 0.5) / names.length, names[i][1]]);
    const { chart, x, y } = axes(el('pg-bars'), { W: 440, H: 260, L: 44, T: 34, B: 40, R: 12,
      xLabel: 'measure', yLabel: 'value', xTicks: ticks });
    const defs = svg('defs', {});
    const hatch = svg('pattern', { id: 'pg-hatch', width: 5, height: 5, patternUnits: 'userSpaceOnUse',
      patternTransform: 'rotate(45)' });
    hatch.append(svg('rect', { width: 5, height: 5, class: 'pg-b-fill' }));
    hatch.append(svg('line', { x1: 0, y1: 0, x2: 0, y2: 5, class: 'pg-b-line' }));
    defs.append(hatch);
    chart.prepend(defs);
    const slot = 1 / names.length;
    names.forEach(([key], i) => {
      [a, b].forEach((sys, j) => {
        const v = key === 'accuracy' && bad ? 0 : sys[key];
        const left = x(i * slot + slot * (0.15 + 0.35 * j));
        chart.append(svg('rect', { x: left, width: x(slot * 0.35) - x(0), y: y(v), height: y(0) - y(v),
          class: j ? 'pg-bar-b' : 'pg-bar-a' }));
      });
    });
    legend(chart, [
      [(l, t) => svg('rect', { x: l, y: t - 6, width: 16, height: 12, class: 'pg-bar-a' }), 'A', 50],
      [(l, t) => svg('rect', { x: l, y: t - 6, width: 16, height: 12, class: 'pg-bar-b' }), 'B', 50],
    ], 48, 16);
  }

  function draw() {
    const m = measures(s.grades.slice(0, s.n), Array(s.missed).fill(s.missedGrade), s.k);
    drawRanks(m);
    drawMeasures(m);
    drawCurve(m);
    drawAssessor();
  }

  /** The tab is shown (app.js's REFRESH): take a link's settings, then draw. */
  function render() {
    const given = el('pg').value;
    if (given !== written) {
      el('err-playground').textContent = '';
      el('err-playground').classList.remove('shown');
      s = decode(given);
      written = given;
    }
    el('pg-graded').checked = s.graded;
    el('pg-n').value = s.n;
    el('pg-k').value = s.k;
    el('pg-missed').value = s.missed;
    el('pg-missed-grade').value = String(s.missedGrade);
    el('pg-missed-grade').disabled = !s.graded;
    el('pg-N').value = s.N;
    el('pg-neither').value = s.neither;
    draw();
    return Promise.resolve();
  }

  function wire() {
    const number = (id, key) => el(id).addEventListener('input', () => {
      const v = Number(el(id).value);
      if (el(id).value === '' || !Number.isInteger(v)) return;
      s[key] = Math.min(Number(el(id).max), Math.max(Number(el(id).min), v));
      changed();
    });
    number('pg-n', 'n');
    number('pg-k', 'k');
    number('pg-missed', 'missed');
    number('pg-N', 'N');
    number('pg-neither', 'neither');
    el('pg-missed-grade').addEventListener('change', () => {
      s.missedGrade = Number(el('pg-missed-grade').value);
      changed();
    });
    el('pg-graded').addEventListener('change', () => {
      s.graded = el('pg-graded').checked;
      if (!s.graded) { // back to relevant or not: every grade above 1 becomes 1
        s.grades = s.grades.map((g) => Math.min(g, 1));
        s.judged = s.judged.map((g) => Math.min(g, 1));
        s.missedGrade = 1;
        el('pg-missed-grade').value = '1';
      }
      el('pg-missed-grade').disabled = !s.graded;
      changed();
    });
  }

  document.addEventListener('DOMContentLoaded', wire);
  return { render };
})();
