// The Data and Metrics tabs: irscore evaluate on A (and B), its tables and trec_eval's text.

// ---- Data and Metrics: irscore evaluate on A (and B) ----

function clearInputErrors() {
  for (const box of ['err-qrels', 'err-a', 'err-b', 'err-settings']) showError(box, null);
}

function refreshMetrics() {
  clearInputErrors();
  if (!$('qrels').value.trim() || !$('a').value.trim()) {
    $('status').textContent = 'Paste, open or drop the qrels and a run, or load an example.';
    return Promise.resolve();
  }
  $('status').textContent = 'evaluating…';
  delete $('status').dataset.of;
  return runTab('metrics', 'evaluate', inputs(), (reply) => {
    if (reply.error) {
      const field = reply.error.field;
      if (TEXTS.includes(field) || field === 'settings') showError(`err-${field}`, reply.error);
      $('status').textContent = `error: ${reply.error.message}`;
      state.results.metrics = null;
      document.dispatchEvent(new Event('irscore:metrics')); // learn: the P-R curves follow
      return;
    }
    state.results.metrics = reply.ok;
    $('status').textContent = `evaluated in ${reply.seconds.toFixed(2)} s`
      + (reply.ok.notes.length ? ` — ${reply.ok.notes.join('; ')}` : '');
    $('status').dataset.of = 'metrics'; // Data's and Metrics' news: the other tabs hide it
    $('command').textContent = reply.ok.command;
    drawMetrics();
    fillTopics();
    document.dispatchEvent(new Event('irscore:metrics')); // learn: the P-R curves follow
  });
}

function runName(key) {
  const given = $(`n${key}`).value.trim();
  const run = state.results.metrics && state.results.metrics.runs[key];
  return given || (run && run.name) || key.toUpperCase();
}

function means(key) {
  const run = state.results.metrics && state.results.metrics.runs[key];
  return new Map(run ? Object.entries(run.means) : []);
}

function perTopic(key, measure) {
  const run = state.results.metrics && state.results.metrics.runs[key];
  const out = new Map();
  if (run && run.values[measure]) {
    run.topics.forEach((topic, i) => {
      if (run.values[measure][i] !== null) out.set(topic, run.values[measure][i]);
    });
  }
  return out;
}

// A value as irscore explain writes it: whole numbers above 1 without decimals.
function fmt(value) {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value !== 'number') return String(value);
  return Number.isInteger(value) && Math.abs(value) > 1 ? String(value) : value.toFixed(4);
}

// A value of a table column: counts as whole numbers, the rest with four decimals.
function fixed(value, whole) {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value !== 'number') return String(value);
  return whole ? String(value) : value.toFixed(4);
}

function signed(diff, whole) {
  return (diff > 0 ? '+' : '') + (whole ? String(diff) : diff.toFixed(4));
}

const COUNTS = /^num_/; // the counts trec_eval prints as whole numbers

function cell(row, text, numeric, cls) {
  const td = row.insertCell();
  td.textContent = text;
  if (numeric) td.classList.add('num');
  if (cls) td.classList.add(cls);
  return td;
}

function drawMetrics() {
  const a = means('a');
  const b = means('b');
  const hasB = Boolean(state.results.metrics.runs.b);
  $('means-a').textContent = runName('a');
  $('means-b').textContent = hasB ? runName('b') : 'B';
  $('pq-a').textContent = runName('a');
  $('pq-b').textContent = hasB ? runName('b') : 'B';
  for (const option of $('trec-run').options) option.textContent = runName(option.value);
  $('trec-run').options[1].disabled = !hasB;
  for (const option of $('er').options) option.textContent = runName(option.value);
  const filter = $('filter').value.trim().toLowerCase();
  const body = $('means').tBodies[0];
  body.replaceChildren();
  for (const [measure, value] of a) {
    if (filter && !filter.split(/[ ,]+/).some((f) => measure.toLowerCase().includes(f))) continue;
    const row = body.insertRow();
    const whole = COUNTS.test(measure);
    cell(row, measure);
    cell(row, fixed(value, whole), true);
    const other = b.get(measure);
    cell(row, hasB ? fixed(other, whole) : '', true);
    const diff = hasB && typeof value === 'number' && typeof other === 'number' ? other - value : '';
    cell(row, diff === '' ? '' : signed(diff, whole), true,
      diff === '' ? null : diff > 0 ? 'up' : diff < 0 ? 'down' : null);
  }
  const select = $('pq-measure');
  const chosen = select.value || 'map';
  const topicMeasures = Object.entries(state.results.metrics.runs.a.values)
    .filter(([, values]) => values.some((v) => typeof v === 'number')).map(([m]) => m);
  select.replaceChildren(...topicMeasures.map((m) => new Option(m, m)));
  select.value = topicMeasures.includes(chosen) ? chosen : topicMeasures[0];
  drawPerQuery();
  drawTrec();
}

const sortBy = { key: 'topic', up: true };
function drawPerQuery() {
  const measure = $('pq-measure').value;
  const a = perTopic('a', measure);
  const b = perTopic('b', measure);
  const hasB = Boolean(state.results.metrics.runs.b);
  const rows = [...a.keys()].map((topic) => ({
    topic, a: a.get(topic), b: b.get(topic),
    d: hasB && b.has(topic) ? b.get(topic) - a.get(topic) : null,
  }));
  const numeric = (t) => (/^\d+$/.test(t) ? t.padStart(12, '0') : t);
  rows.sort((x, y) => {
    const [p, q] = sortBy.key === 'topic' ? [numeric(x.topic), numeric(y.topic)]
      : [x[sortBy.key] ?? -Infinity, y[sortBy.key] ?? -Infinity];
    return (p < q ? -1 : p > q ? 1 : 0) * (sortBy.up ? 1 : -1);
  });
  const body = $('pq').tBodies[0];
  body.replaceChildren();
  for (const r of rows) {
    const row = body.insertRow();
    row.classList.add('topic');
    row.dataset.topic = r.topic;
    const whole = COUNTS.test(measure);
    cell(row, r.topic);
    cell(row, fixed(r.a, whole), true);
    cell(row, hasB ? fixed(r.b, whole) : '', true);
    cell(row, r.d === null ? '' : signed(r.d, whole), true,
      r.d > 0 ? 'up' : r.d < 0 ? 'down' : null);
  }
}

// trec_eval's text; per query, asked for when shown (it can be long).
async function drawTrec() {
  const key = $('trec-run').value;
  const run = state.results.metrics && state.results.metrics.runs[key];
  if (!run || !$('trec-q').checked) {
    $('trec').textContent = run ? run.trec : '';
    return;
  }
  if (run.trec_q === undefined) {
    $('trec').textContent = 'running irscore evaluate -q…';
    const reply = await job('trec', { ...inputs(), run: key });
    run.trec_q = reply.error ? reply.error.message : reply.ok.trec_q;
  }
  if ($('trec-q').checked && $('trec-run').value === key) $('trec').textContent = run.trec_q;
}

// A query's ranking as coloured grades (what explain ranks), under its row.
async function openTopic(row) {
  const next = row.nextElementSibling;
  if (next && next.classList.contains('detail')) { next.remove(); return; }
  const detail = row.parentNode.insertRow(row.sectionRowIndex + 1);
  detail.classList.add('detail');
  const td = detail.insertCell();
  td.colSpan = 4;
  td.textContent = 'ranking…';
  const topic = row.dataset.topic;
  const lines = [];
  for (const key of state.results.metrics.runs.b ? ['a', 'b'] : ['a']) {
    const reply = await job('ranking',
      { ...inputs(), mode: 'data', run: key, topic, ek: '1000', brief: 'true' });
    const line = document.createElement('div');
    line.classList.add('grades-line');
    const label = document.createElement('span');
    label.classList.add('run-label');
    label.textContent = runName(key);
    line.append(label);
    if (reply.error) line.append(document.createTextNode(` ${reply.error.message}`));
    else line.append(gradeStrip(reply.ok.explain.ranks.map((r) => r.grade)));
    line.append(' ', rankingLink('One ranking', topic, key));
    lines.push(line);
  }
  td.replaceChildren(...lines);
}

function gradeStrip(grades) {
  const strip = document.createElement('span');
  strip.classList.add('strip');
  for (const grade of grades) {
    const g = document.createElement('span');
    g.classList.add('grade', grade === '?' ? 'gq' : `g${Math.max(0, Math.min(3, Number(grade)))}`);
    g.textContent = grade;
    strip.append(g);
  }
  return strip;
}

function fillTopics() {
  const topics = state.results.metrics.runs.a.topics;
  const select = $('topic');
  const chosen = select.value;
  select.replaceChildren(...topics.map((t) => new Option(t, t)));
  if (topics.includes(chosen)) select.value = chosen;
}
