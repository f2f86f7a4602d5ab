// One ranking (irscore explain), Compare (irscore compare) and Interleaving (irscore
// interleave): each tab's job and what it draws.

// ---- One ranking: irscore explain ----

const RANK_COLUMNS = ['rank', 'docno', 'grade', 'P@i', 'recall@i', 'AP term', 'AP@i', 'gain',
  'discount', 'DCG@i', 'IDCG@i', 'nDCG@i', 'ERR stop', 'ERR@i'];
// The columns a phone leaves out (every value is still in the explain text below).
const EXTRA_COLUMNS = new Set(['docno', 'recall@i', 'AP term', 'gain', 'discount', 'DCG@i',
  'IDCG@i', 'ERR stop']);

function refreshRanking() {
  const mode = fieldValue('mode');
  const request = { settings: settings(), mode, ek: $('ek').value };
  if (mode === 'data') {
    Object.assign(request, inputs(), { run: $('er').value, topic: $('topic').value });
    request.settings = settings();
  } else Object.assign(request, { grades: $('grades').value, extra: $('extra').value });
  showError('err-ranking', null);
  return runTab('ranking', 'ranking', request, (reply) => {
    if (reply.error) {
      showError('err-ranking', reply.error);
      return;
    }
    const e = reply.ok.explain;
    $('ranking-grades').replaceChildren(gradeStrip(e.ranks.map((r) => r.grade)));
    $('finals').replaceChildren(...e.final.map((f) => {
      const li = document.createElement('li');
      const value = document.createElement('strong');
      value.textContent = `${f.label} = ${fmt(f.value)}`;
      const formula = document.createElement('span');
      formula.classList.add('formula');
      formula.textContent = f.formula;
      li.append(value, ' ', formula);
      return li;
    }));
    $('explain-chart').src = svgData(reply.ok.svg);
    const columns = RANK_COLUMNS.filter((c) => e.ranks.length && c in e.ranks[0]);
    const head = document.createElement('tr');
    for (const c of columns) {
      const th = document.createElement('th');
      th.textContent = c;
      if (c !== 'docno' && c !== 'grade') th.classList.add('num');
      if (EXTRA_COLUMNS.has(c)) th.classList.add('extra');
      head.append(th);
    }
    $('ranks').tHead.replaceChildren(head);
    const body = $('ranks').tBodies[0];
    body.replaceChildren();
    for (const r of e.ranks) {
      const row = body.insertRow();
      for (const c of columns) {
        const text = c === 'docno' || c === 'grade' || c === 'rank' ? String(r[c]) : fixed(r[c]);
        cell(row, text, c !== 'docno' && c !== 'grade', EXTRA_COLUMNS.has(c) ? 'extra' : null);
      }
    }
    drawTies(e);
    $('explain-text').textContent = reply.ok.text;
    $('explain-command').textContent = reply.ok.command;
  });
}

// The tie groups explain prints, and each measure's range over their orders (its table).
function drawTies(e) {
  const box = $('tie-groups');
  box.replaceChildren();
  if (!e.ties.length) return;
  box.append(Object.assign(document.createElement('h2'), { textContent: 'ties (equal scores)' }));
  for (const t of e.ties) box.append(Object.assign(document.createElement('p'), { textContent: t }));
  const range = e.tie_range;
  if (!range) return;
  const orders = ['pessimistic', 'expected', 'optimistic'];
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  for (const h of ['measure', ...orders]) {
    const th = document.createElement('th');
    th.textContent = h;
    if (h !== 'measure') th.classList.add('num');
    head.append(th);
  }
  const body = table.createTBody();
  for (const measure of Object.keys(range.pessimistic)) {
    const row = body.insertRow();
    cell(row, measure);
    for (const order of orders) cell(row, fixed(range[order][measure]), true);
  }
  box.append(table);
}

function svgData(svg) {
  return svg ? `data:image/svg+xml;base64,${btoa(unescape(encodeURIComponent(svg)))}` : '';
}

// ---- Compare: irscore compare on one measure ----

function needsB(box) {
  if ($('b').value.trim()) return false;
  showError(box, { message: 'Compare and Interleaving need run B: paste or open it in Data.' });
  return true;
}

function refreshCompare() {
  showError('err-compare', null);
  if (needsB('err-compare')) return Promise.resolve();
  const request = { ...inputs(), metric: $('metric').value, B: $('B').value,
    seed: $('seed').value, alpha: $('alpha').value, correction: $('correction').value };
  return checkMeasure($('metric').value).then((checked) => {
    if (checked.error) {
      showError('err-compare', checked.error);
      clearCompare();
      return undefined;
    }
    return showCompare(request);
  });
}

// An error leaves no earlier measure's table, charts or text on screen.
function clearCompare() {
  $('tests').tBodies[0].replaceChildren();
  for (const id of ['diffs', 'scatter']) $(id).replaceChildren();
  $('compare-chart').removeAttribute('src');
  for (const id of ['compare-correction', 'compare-text', 'compare-command']) $(id).textContent = '';
}

// A query picked on a chart: shown where the page shows one query, One ranking's
// "a query of the data", on run A's ranking.
function showQuery(topic, run = 'a') {
  setField('mode', 'data');
  setField('topic', topic);
  setField('er', run);
  state.dirty.add('ranking');
  location.hash = 'ranking';
}

// a link to One ranking on this query of run `key` (a or b)
function rankingLink(text, topic, key) {
  const link = document.createElement('a');
  link.href = '#ranking';
  link.textContent = text;
  link.addEventListener('click', (event) => {
    event.preventDefault();
    showQuery(topic, key);
  });
  return link;
}

// the measure box's name, checked by the server as the command line's -m reads it
async function checkMeasure(name) {
  return (await fetch(`/api/measure?metric=${encodeURIComponent(name)}`)).json();
}

function showCompare(request) {
  return runTab('compare', 'compare', request, (reply) => {
    if (reply.error) {
      showError('err-compare', reply.error);
      clearCompare();
      return;
    }
    const body = $('tests').tBodies[0];
    body.replaceChildren();
    for (const t of reply.ok.tests) {
      const row = body.insertRow();
      cell(row, t.test);
      cell(row, String(t.n), true, 'extra');
      cell(row, fixed(t.mean_a), true);
      cell(row, fixed(t.mean_b), true);
      cell(row, (t.diff > 0 ? '+' : '') + t.diff.toFixed(4), true);
      cell(row, String(Number(Number(t.p).toPrecision(4))), true, 'extra'); // the CLI's %.4g
      cell(row, String(Number(Number(t.p_adjusted).toPrecision(4))), true);
      cell(row, t.ci_low === null ? '' : `[${t.ci_low.toFixed(4)}, ${t.ci_high.toFixed(4)}]`,
        false, 'extra');
      cell(row, t.significant ? 'yes' : 'no');
    }
    const a = new Map(reply.ok.values.a.map((r) => [r.topic, r.value]));
    const b = new Map(reply.ok.values.b.map((r) => [r.topic, r.value]));
    const common = [...a.keys()].filter((t) => typeof a.get(t) === 'number' && typeof b.get(t) === 'number');
    drawBars($('diffs'), common.map((t) => b.get(t) - a.get(t)).sort((x, y) => x - y),
      `${$('metric').value}, B − A`);
    drawScatter($('scatter'), common.map((t) => ({ topic: t, a: a.get(t), b: b.get(t) })),
      runName('a'), runName('b'), $('metric').value, showQuery);
    $('compare-chart').src = svgData(reply.ok.svg);
    $('compare-correction').textContent = reply.ok.correction
      ? `sig.: after the correction, p adjusted: ${reply.ok.correction}` : '';
    $('compare-text').textContent = reply.ok.text;
    $('compare-command').textContent = reply.ok.command;
  }, 'compare');
}

// ---- Interleaving: irscore interleave ----

function refreshInterleave() {
  showError('err-interleave', null);
  if (needsB('err-interleave')) return Promise.resolve();
  const request = { ...inputs(), method: $('method').value, clicks: $('clicks').value,
    imps: $('imps').value, ilen: $('ilen').value, iseed: $('iseed').value, alpha: $('alpha').value };
  return runTab('interleave', 'interleave', request, (reply) => {
    if (reply.error) {
      showError('err-interleave', reply.error);
      return;
    }
    const f = reply.ok.figures;
    const items = [
      [`wins ${runName('a')} (A)`, f.wins_a], [`wins ${runName('b')} (B)`, f.wins_b],
      ['ties', f.ties], ["B's share of decided", f.share_b], ['sign test p', f.p],
      ['verdict', f.verdict],
    ];
    $('verdict').replaceChildren(...items.flatMap(([term, value]) => [
      Object.assign(document.createElement('dt'), { textContent: term }),
      Object.assign(document.createElement('dd'), { textContent: value ?? '' }),
    ]));
    $('interleave-chart').src = svgData(reply.ok.svg);
    const body = $('impressions').tBodies[0];
    body.replaceChildren();
    for (const [number, query, docs, teams, grades, clicks, winner] of reply.ok.impressions) {
      const row = body.insertRow();
      cell(row, number, true);
      cell(row, query);
      const list = row.insertCell();
      const d = docs.split(','); const t = teams.split(','); const g = grades.split(',');
      const c = clicks.split(',');
      d.forEach((_, i) => {
        const item = document.createElement('span');
        item.classList.add('shown', t[i] === 'A' ? 'team-a' : t[i] === 'B' ? 'team-b' : 'team-ab');
        if (c[i] === '1') item.classList.add('clicked');
        const grade = gradeStrip([g[i]]).firstChild;
        if (Number(g[i]) < 0) {
          grade.textContent = `${g[i].replace('-', '−')}→0`; // as the click model reads it
          grade.classList.add('gneg');
        }
        item.append(`${t[i]} `, grade, c[i] === '1' ? ' ✓' : '');
        item.title = `${d[i]}: team ${t[i]}, grade ${g[i]}`
          + `${Number(g[i]) < 0 ? ' (counts as 0 for the click model)' : ''}`
          + `${c[i] === '1' ? ', clicked' : ''}`;
        list.append(item);
      });
      cell(row, winner);
    }
    $('interleave-text').textContent = reply.ok.text;
    $('interleave-command').textContent = reply.ok.command;
  }, 'interleave');
}
