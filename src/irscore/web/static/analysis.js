// The Per query tab: A against B query by query for one measure (a scatter, one mark per
// query), and the two top-10 lists of the query chosen, side by side with their grades.
// Every number is the server's: the values are the Metrics tab's evaluate job (what
// `irscore evaluate -q` prints), the lists its ranking job (what `irscore explain
// --topic T -k 10` ranks: score descending, ties by docno descending).
'use strict';

(() => {
  const TAB = 'queries';
  const DEPTH = 10; // the length of each list
  const COUNT = /^num_/; // the measures trec_eval prints as whole numbers
  const NS = 'http://www.w3.org/2000/svg';
  // The marks: B better above the diagonal, A better below, equal on it.
  const KINDS = {
    b: { cls: 'b-better', words: 'above the diagonal: B better' },
    a: { cls: 'a-better', words: 'below the diagonal: A better' },
    same: { cls: 'same', words: 'on it: equal' },
  };
  const KEYS = ['b', 'a', 'same'];

  // registered with the page's tabs, links and refreshes (app.js)
  TABS.push(TAB);
  Object.assign(FIELDS, { 'vs-measure': 'map', 'vs-topic': '' });
  REFRESH[TAB] = refresh;

  let drawn = null; // what the tab shows: { measure, points, chosen }
  let asked = 0; // the latest request for lists: older answers are not shown

  function say(text) {
    $('vs-note').textContent = text;
  }

  // Redraw from the Metrics tab's evaluate job; the lists of the chosen query.
  function refresh() {
    showError('err-queries', null);
    if (!$('b').value.trim() || !$('qrels').value.trim() || !$('a').value.trim()) {
      clear();
      showError('err-queries', { message: 'Per query compares two runs: paste or open run B '
        + '(and the qrels and run A) in Data, or load an example with two runs.' });
      return Promise.resolve();
    }
    if (state.dirty.has('metrics')) {
      clear();
      say('evaluating… (the values are the Metrics tab’s)');
      return Promise.resolve(); // drawn when the evaluate job answers
    }
    if (!state.results.metrics) {
      clear();
      say('irscore evaluate refused the inputs: its message is in Data.');
      return Promise.resolve();
    }
    state.dirty.delete(TAB);
    const runs = state.results.metrics.runs;
    if (!runs.b) {
      clear();
      say('');
      return Promise.resolve();
    }
    fillMeasures(runs);
    draw();
    return showLists();
  }

  function clear() {
    drawn = null;
    $('vs-chart').replaceChildren();
    $('vs-lists').replaceChildren();
    $('vs-topic').replaceChildren();
    $('vs-lists').removeAttribute('data-topic');
  }

  // The measures with a number per query in both runs; the one asked for, else map.
  function fillMeasures(runs) {
    const select = $('vs-measure');
    const wanted = select.value;
    const numeric = (run, m) => (run.values[m] || []).some((v) => typeof v === 'number');
    const names = Object.keys(runs.a.values).filter((m) => numeric(runs.a, m) && numeric(runs.b, m));
    select.replaceChildren(...names.map((m) => new Option(m, m)));
    select.value = names.includes(wanted) ? wanted : names.includes('map') ? 'map' : names[0];
  }

  function values(key, measure) {
    const run = state.results.metrics.runs[key];
    const out = new Map();
    run.topics.forEach((topic, i) => {
      const v = (run.values[measure] || [])[i];
      if (typeof v === 'number') out.set(topic, v);
    });
    return out;
  }

  function shown(value, measure) {
    return COUNT.test(measure) ? String(value) : value.toFixed(4);
  }

  // The query where |B − A| is largest; the first of equal ones, in evaluate's order.
  function widest(points) {
    let best = null;
    for (const p of points) if (best === null || Math.abs(p.b - p.a) > Math.abs(best.b - best.a)) best = p;
    return best;
  }

  function draw() {
    const measure = $('vs-measure').value;
    const a = values('a', measure);
    const b = values('b', measure);
    const points = [...a.keys()].filter((t) => b.has(t))
      .map((topic) => ({ topic, a: a.get(topic), b: b.get(topic) }));
    const alone = new Set([...a.keys(), ...b.keys()]).size - points.length;
    if (!points.length) {
      clear();
      say(`No query has a value of ${measure} in both runs.`);
      return;
    }
    const most = widest(points);
    const tied = points.filter((p) => Math.abs(p.b - p.a) === Math.abs(most.b - most.a)).length;
    const select = $('vs-topic');
    const wanted = select.value;
    const first = new Option(`where they differ most: ${most.topic}`, '');
    select.replaceChildren(first, ...points.map((p) => {
      const d = p.b - p.a;
      return new Option(`${p.topic} (B − A = ${d > 0 ? '+' : ''}${shown(d, measure)})`, p.topic);
    }));
    select.value = points.some((p) => p.topic === wanted) ? wanted : '';
    const chosen = select.value || most.topic;
    drawn = { measure, points, chosen };
    say(`${points.length} queries; ${counts(points)}. The query shown first is the one where `
      + `|B − A| is largest (${most.topic}: ${shown(Math.abs(most.b - most.a), measure)})`
      + (tied > 1 ? `; ${tied} queries share that difference, and the first of them in `
        + 'irscore evaluate -q’s order is taken' : '')
      + '.' + (alone ? ` ${alone} queries with a value in one run only are not drawn.` : '')
      + hidden(points));
    scatter(measure, points, chosen);
  }

  // Marks drawn on the same place hide one another: how many, said.
  function hidden(points) {
    const places = new Map();
    for (const p of points) places.set(`${p.a} ${p.b}`, (places.get(`${p.a} ${p.b}`) || 0) + 1);
    const shared = [...places.values()].filter((n) => n > 1).reduce((sum, n) => sum + n, 0);
    return shared ? ` ${shared} queries share their place with another (choose them in the list).` : '';
  }

  function kind(p) {
    return p.b > p.a ? 'b' : p.b < p.a ? 'a' : 'same';
  }

  // How many queries each kind of mark has.
  function tally(points) {
    const n = { a: 0, b: 0, same: 0 };
    for (const p of points) n[kind(p)] += 1;
    return n;
  }

  function counts(points) {
    const n = tally(points);
    return `B better on ${n.b}, A better on ${n.a}, equal on ${n.same}`;
  }

  // ---- the scatter: an SVG at the width of its box (its text stays readable) ----

  function el(name, attributes, text) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // Ticks over [lo, hi] at a round step: about five of them.
  function ticks(lo, hi) {
    const raw = (hi - lo) / 5;
    const power = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw);
    const top = Math.ceil(hi / step - 1e-9) * step;
    const bottom = Math.floor(lo / step + 1e-9) * step;
    const out = [];
    for (let v = bottom; v <= top + step / 2; v += step) out.push(Number(v.toPrecision(12)));
    const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9)) + (String(step / power).includes('.') ? 1 : 0);
    return { values: out, lo: bottom, hi: top, label: (v) => v.toFixed(decimals) };
  }

  function marker(k, x, y) {
    const r = 5.5;
    if (k === 'b') return `M${x} ${y - r * 1.2}L${x + r * 1.1} ${y + r * 0.8}L${x - r * 1.1} ${y + r * 0.8}Z`;
    if (k === 'same') return `M${x} ${y - r}L${x + r} ${y}L${x} ${y + r}L${x - r} ${y}Z`;
    return `M${x - r} ${y}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0Z`;
  }

  function scatter(measure, points, chosen) {
    const box = $('vs-chart');
    const W = Math.round(Math.max(300, Math.min(560, box.clientWidth || 560)));
    const L = 52; const R = 14; const T = 14; const B = 44; const KEY = 3 * 19 + 6;
    const side = W - L - R;
    const H = T + side + B + KEY;
    const all = points.flatMap((p) => [p.a, p.b]);
    let lo = Math.min(0, ...all); let hi = Math.max(...all);
    if (hi <= lo) hi = lo + 1;
    const scale = ticks(lo, hi);
    [lo, hi] = [scale.lo, scale.hi];
    const pad = 8; // the marks at the ends stay inside the frame
    const x = (v) => L + pad + (side - 2 * pad) * ((v - lo) / (hi - lo));
    const y = (v) => T + side - pad - (side - 2 * pad) * ((v - lo) / (hi - lo));
    const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img',
      id: 'vs-svg', 'aria-label': `${measure} per query: A on the x axis, B on the y axis` });
    svg.append(el('rect', { x: L, y: T, width: side, height: side, class: 'vs-frame' }));
    for (const v of scale.values) {
      svg.append(el('line', { x1: x(v), x2: x(v), y1: T, y2: T + side, class: 'vs-grid' }));
      svg.append(el('line', { x1: L, x2: L + side, y1: y(v), y2: y(v), class: 'vs-grid' }));
      svg.append(el('line', { x1: x(v), x2: x(v), y1: T + side, y2: T + side + 4, class: 'vs-tick' }));
      svg.append(el('line', { x1: L - 4, x2: L, y1: y(v), y2: y(v), class: 'vs-tick' }));
      svg.append(el('text', { x: x(v), y: T + side + 16, 'text-anchor': 'middle', class: 'vs-label' }, scale.label(v)));
      svg.append(el('text', { x: L - 7, y: y(v) + 4, 'text-anchor': 'end', class: 'vs-label' }, scale.label(v)));
    }
    svg.append(el('line', { x1: x(lo), y1: y(lo), x2: x(hi), y2: y(hi), class: 'vs-diagonal' }));
    svg.append(el('text', { x: L + side / 2, y: T + side + 34, 'text-anchor': 'middle', class: 'vs-axis' },
      clip(`A = ${runName('a')}: ${measure}`, side)));
    const middle = T + side / 2;
    svg.append(el('text', { x: 14, y: middle, 'text-anchor': 'middle', class: 'vs-axis',
      transform: `rotate(-90 14 ${middle})` }, clip(`B = ${runName('b')}: ${measure}`, side)));
    const n = tally(points);
    KEYS.forEach((k, i) => {
      const at = T + side + B + 14 + i * 19;
      svg.append(el('path', { d: marker(k, L + 6, at - 4), class: `vs-key ${KINDS[k].cls}` }));
      svg.append(el('text', { x: L + 18, y: at, class: 'vs-label' }, `${KINDS[k].words} (${n[k]})`));
    });
    const last = [...points.filter((p) => p.topic !== chosen), ...points.filter((p) => p.topic === chosen)];
    for (const p of last) {
      const k = kind(p);
      const mark = el('path', { d: marker(k, x(p.a), y(p.b)), class: `vs-dot ${KINDS[k].cls}`,
        'data-topic': p.topic, 'data-a': String(p.a), 'data-b': String(p.b) });
      mark.append(el('title', {}, `query ${p.topic}: A ${shown(p.a, measure)}, B ${shown(p.b, measure)}`));
      if (p.topic === chosen) {
        svg.append(el('circle', { cx: x(p.a), cy: y(p.b), r: 10, class: 'vs-chosen' }));
        mark.classList.add('chosen');
      }
      svg.append(mark);
    }
    box.replaceChildren(svg);
  }

  // A label cut to the room it has (about 7 px a character).
  function clip(text, room) {
    const most = Math.floor(room / 7);
    return text.length > most ? `${text.slice(0, most - 1)}…` : text;
  }

  // ---- the two top-10 lists: the ranking job of each run (irscore explain) ----

  async function showLists() {
    if (!drawn) return;
    const { chosen: topic, measure, points } = drawn;
    const mine = ++asked;
    const box = $('vs-lists');
    box.removeAttribute('data-topic');
    box.setAttribute('aria-busy', 'true');
    const lists = {};
    for (const key of ['a', 'b']) {
      const reply = await job('ranking',
        { ...inputs(), mode: 'data', run: key, topic, ek: String(DEPTH), brief: 'true' });
      if (mine !== asked) return;
      lists[key] = reply;
    }
    const point = points.find((p) => p.topic === topic);
    const docs = (key) => new Set(lists[key].error ? [] : lists[key].ok.explain.ranks.map((r) => r.docno));
    const [inA, inB] = [docs('a'), docs('b')];
    box.replaceChildren(...['a', 'b'].map((key) => {
      const other = key === 'a' ? inB : inA;
      return list(key, topic, measure, point[key], lists[key], other);
    }));
    box.dataset.topic = topic;
    box.removeAttribute('aria-busy');
  }

  function list(key, topic, measure, value, reply, other) {
    const part = document.createElement('div');
    part.classList.add('vs-list', `vs-run-${key}`);
    const head = document.createElement('h3');
    head.textContent = `${key.toUpperCase()} = ${runName(key)}: query ${topic}, `
      + `${measure} ${shown(value, measure)}`;
    part.append(head);
    if (reply.error) {
      part.append(Object.assign(document.createElement('p'),
        { className: 'error shown', textContent: reply.error.message }));
      return part;
    }
    const table = document.createElement('table');
    table.id = `vs-list-${key}`;
    const row = table.createTHead().insertRow();
    for (const [text, numeric] of [['rank', true], ['docno', false], ['score', true],
      ['grade', false], ['both', false]]) {
      const th = document.createElement('th');
      th.textContent = text;
      if (numeric) th.classList.add('num');
      if (text === 'both') th.title = `also in the other run's top ${DEPTH}`;
      row.append(th);
    }
    const body = table.createTBody();
    for (const r of reply.ok.explain.ranks) {
      const tr = body.insertRow();
      tr.dataset.docno = r.docno;
      tr.dataset.grade = r.grade;
      if (r.relevant === 'yes') tr.classList.add('rel');
      const shared = other.has(r.docno);
      if (shared) tr.classList.add('shared');
      addCell(tr, String(r.rank), true);
      addCell(tr, r.docno);
      addCell(tr, String(r.score), true);
      const grade = document.createElement('span');
      grade.classList.add('grade', r.grade === '?' ? 'gq' : `g${Math.max(0, Math.min(3, Number(r.grade)))}`);
      grade.textContent = r.grade;
      addCell(tr, '').append(grade);
      addCell(tr, shared ? '◆' : '').title = shared ? `also in the other run's top ${DEPTH}` : '';
    }
    const scroll = document.createElement('div');
    scroll.classList.add('scroll');
    scroll.append(table);
    part.append(scroll, rankingLink('every measure down this ranking: One ranking', topic, key));
    return part;
  }

  function addCell(row, text, numeric) {
    const td = row.insertCell();
    td.textContent = text;
    if (numeric) td.classList.add('num');
    return td;
  }

  function choose(topic) {
    if (!drawn) return;
    $('vs-topic').value = topic;
    draw();
    writeURL();
    showLists();
  }

  function wire() {
    $('vs-measure').addEventListener('change', () => {
      if (!drawn) return;
      draw();
      writeURL();
      showLists();
    });
    $('vs-topic').addEventListener('change', () => choose($('vs-topic').value));
    $('vs-chart').addEventListener('click', (event) => {
      const mark = event.target.closest('.vs-dot');
      if (mark) choose(mark.dataset.topic);
    });
    // the Metrics tab's evaluate job answered: the values to draw
    document.addEventListener('irscore:shown', (event) => {
      if (event.detail.tab !== 'metrics') return;
      state.dirty.add(TAB);
      if (!$('tab-queries').hidden) refresh(); // else when the tab is shown (at its width)
    });
    let resized = null;
    window.addEventListener('resize', () => {
      clearTimeout(resized);
      resized = setTimeout(() => {
        if (drawn && !$('tab-queries').hidden) scatter(drawn.measure, drawn.points, drawn.chosen);
      }, 150);
    });
  }

  document.addEventListener('DOMContentLoaded', wire);
})();
