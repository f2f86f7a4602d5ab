// The irscore workbench page: the state in the URL, jobs run by the server (the irscore
// commands themselves), and the tables and charts drawn from what they return.
'use strict';

const $ = (id) => document.getElementById(id);
const TABS = ['data', 'metrics', 'ranking', 'compare', 'interleave',
  'playground']; // playground: its tab (static/playground.js)
const TEXTS = ['qrels', 'a', 'b'];
// Every setting kept in the URL: its element and its default (a default is left out of links).
const FIELDS = {
  na: '', nb: '', k: '5,10', rl: '1', gmax: '4', M: '', c: false, J: false,
  tie_break: 'docno_desc', ties: 'ordered', score_precision: 'float32', gain: 'linear',
  interpolation: 'trec_eval9', grades_map: 'raw', duplicates: 'error', no_relevant_topics: 'zero',
  compat: '',
  metric: 'map', B: '', seed: '0', alpha: '0.05', correction: '', // set from the page
  mode: 'grades', grades: '3,2,3,0,1,2', extra: '', ek: '', topic: '', er: 'a',
  method: 'team_draft', clicks: 'perfect', imps: '10000', ilen: '10', iseed: '0',
  pg: '', // playground: its settings in the link (static/playground.js)
};
const CONVENTION = ['tie_break', 'ties', 'score_precision', 'gain', 'interpolation',
  'duplicates', 'no_relevant_topics', 'compat'];
const PACK_OVER = 1500; // characters of input beyond which a link packs them into `z`
// A link is at most LINK_MAX characters: past it, it carries the settings and `nodata`
// (the inputs' size), and says on opening that the data must be loaded again. Inputs
// past PACK_MAX characters are not even packed: no deflate brings them under LINK_MAX.
const LINK_MAX = 8192;
const PACK_MAX = 64 * LINK_MAX;
const POLL_MS = 150;

const state = { example: '', data: { qrels: '', a: '', b: '' }, dataFromExample: false,
  dropped: '', results: {}, dirty: new Set(TABS) };

function element(name) {
  return $(name);
}

function fieldValue(name) {
  if (name === 'mode') return $('mode-data').checked ? 'data' : 'grades';
  const el = element(name);
  return el.type === 'checkbox' ? el.checked : el.value;
}

function setField(name, value) {
  if (name === 'mode') {
    $(value === 'data' ? 'mode-data' : 'mode-grades').checked = true;
    showMode();
    return;
  }
  const el = element(name);
  if (el.type === 'checkbox') el.checked = value === true || value === '1' || value === 'true';
  else if (el.tagName === 'SELECT' && ![...el.options].some((o) => o.value === String(value))) {
    el.append(new Option(value, value)); // a topic not listed yet: kept until the data says
    el.value = value;
  } else el.value = value;
}

function settings() {
  const out = {};
  for (const name of ['k', 'rl', 'gmax', 'M', 'c', 'J', ...CONVENTION]) out[name] = fieldValue(name);
  out.grades = fieldValue('grades_map');
  return out;
}

// ---- the URL: every setting that differs from its default, the inputs, the tab ----

async function pack(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function unpack(packed) {
  const base64 = packed.replace(/-/g, '+').replace(/_/g, '/');
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Response(stream).text();
}

// The link of the view: the example or the inputs, every setting off its default, the
// tab; never over LINK_MAX characters (the inputs left out then, and `nodata` said).
async function shareLink() {
  const settingsOnly = new URLSearchParams();
  if (state.example) settingsOnly.set('example', state.example);
  for (const [name, fallback] of Object.entries(FIELDS)) {
    const value = fieldValue(name);
    if (value !== fallback) settingsOnly.set(name, value === true ? '1' : value);
  }
  const link = (params) => `${location.origin}${location.pathname}?${params}#${currentTab()}`;
  const texts = Object.fromEntries(TEXTS.map((t) => [t, $(t).value]));
  const size = TEXTS.reduce((n, t) => n + texts[t].length, 0);
  if (state.dataFromExample || !size) {
    if (state.dropped) settingsOnly.set('nodata', state.dropped);
    return link(settingsOnly);
  }
  const withData = new URLSearchParams();
  if (size > PACK_MAX) withData.set('nodata', String(size));
  else if (size > PACK_OVER) withData.set('z', await pack(JSON.stringify(texts)));
  else for (const t of TEXTS) if (texts[t]) withData.set(t, texts[t]);
  for (const [name, value] of settingsOnly) withData.set(name, value);
  if (!withData.has('nodata') && link(withData).length <= LINK_MAX) return link(withData);
  settingsOnly.set('nodata', String(size));
  return link(settingsOnly);
}

let urlTimer = null;
function writeURL() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(async () => {
    const url = new URL(await shareLink());
    history.replaceState(null, '', `${url.pathname}${url.search}${url.hash}`);
  }, 200);
}

// What a link that left its inputs out says when opened.
function sayDropped(size) {
  showError('notice', { message: `This link carries the settings only: its data (qrels and `
    + `runs, ${Number(size).toLocaleString('en')} characters) was too large for a link of at most `
    + `${LINK_MAX.toLocaleString('en')}. Paste, open or drop the files again in Data.` });
}

// The inputs packed into a link's `z`; null, and a message on the page, when the
// link was cut short or changed (the page starts without them).
async function unpacked(packed) {
  try {
    const texts = JSON.parse(await unpack(packed));
    if (texts && typeof texts === 'object') return texts;
    throw new Error('not the inputs of a link');
  } catch (failed) {
    showError('notice', { message: `This link's inputs (z=…) cannot be read: was it cut `
      + `short or changed? The page starts without them. (${failed.message})` });
    return null;
  }
}

async function readURL() {
  const params = new URLSearchParams(location.search);
  const example = params.get('example');
  if (example) await loadPreset(example, false);
  let texts = null;
  if (params.has('nodata')) {
    state.dropped = params.get('nodata').replace(/[^0-9]/g, '').slice(0, 15) || '0';
    sayDropped(state.dropped);
  }
  if (params.has('z')) texts = await unpacked(params.get('z'));
  else if (TEXTS.some((t) => params.has(t))) {
    texts = Object.fromEntries(TEXTS.map((t) => [t, params.get(t) || '']));
  }
  if (texts) {
    for (const t of TEXTS) $(t).value = texts[t] || '';
    state.dataFromExample = false;
  }
  for (const name of Object.keys(FIELDS)) if (params.has(name)) setField(name, params.get(name));
  return Boolean(example || texts || [...params.keys()].length);
}

// ---- jobs: POST the request, then ask for its state until it is done ----

// (A refused request, 503 when the server is busy, answers its message at once.)
async function job(kind, request, onWait, onStart) {
  try {
    const response = await fetch(`/api/jobs/${kind}`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    const started = await response.json();
    if (!response.ok) return started;
    if (onStart) onStart(started.id);
    for (;;) {
      const reply = await (await fetch(`/api/jobs/${started.id}`)).json();
      if (reply.state !== 'running' && reply.state !== 'queued') return reply;
      if (onWait) onWait(reply);
      await new Promise((done) => setTimeout(done, POLL_MS));
    }
  } catch (failed) {
    return { error: { message: `irscore serve does not answer (stopped?): ${failed.message}` } };
  }
}

function inputs() {
  return { qrels: $('qrels').value, a: $('a').value, b: $('b').value, settings: settings() };
}

// Run one tab's job. One job per tab at a time: a request made while one runs waits,
// and only the latest waiting one runs next (typing into a large input piles up no
// jobs); a result already replaced by a newer request is not shown. While it waits
// for the server's worker, its place in the queue shows; while it runs, its time and
// command; Cancel ends it (and drops the request waiting behind it).
const running = {};
async function runTab(tab, kind, request, show, progress) {
  if (running[tab]) {
    running[tab].next = [kind, request, show, progress];
    return null;
  }
  running[tab] = { next: null, id: null };
  const wait = progress && setTimeout(() => {
    $(`${progress}-progress`).hidden = false;
    $(`${progress}-cancel`).hidden = false;
  }, 300);
  const reply = await job(kind, request, (now) => {
    const said = now.state === 'queued'
      ? `waiting: ${ordinal(now.place)} in the queue for ${now.seconds.toFixed(1)} s`
      : `running for ${now.seconds.toFixed(1)} s`
        + (now.step ? ` — command ${now.step}: ${now.command}` : '');
    if (progress) $(`${progress}-wait`).textContent = said;
    else if (tab === 'metrics') $('status').textContent = `evaluating… ${said}`;
  }, (id) => { running[tab].id = id; });
  if (progress) {
    clearTimeout(wait);
    $(`${progress}-progress`).hidden = true;
    $(`${progress}-cancel`).hidden = true;
    $(`${progress}-wait`).textContent = '';
  }
  const { next } = running[tab];
  running[tab] = null;
  if (next) return runTab(tab, ...next);
  if (reply.state === 'done' && !reply.cancelled) state.dirty.delete(tab);
  show(reply);
  // analysis: a tab's job answered and shown (the Per query tab redraws from Metrics')
  document.dispatchEvent(new CustomEvent('irscore:shown', { detail: { tab, reply } }));
  return reply;
}

function ordinal(n) {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : { 1: 'st', 2: 'nd', 3: 'rd' }[n % 10];
  return `${n}${suffix || 'th'}`;
}

async function cancelTab(tab) {
  const now = running[tab];
  if (!now || !now.id) return;
  now.next = null;
  await fetch(`/api/jobs/${now.id}`, { method: 'DELETE',
    headers: { 'content-type': 'application/json' } });
}

function showError(box, error) {
  const el = $(box);
  el.textContent = error ? error.message : '';
  el.classList.toggle('shown', Boolean(error));
}

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
    const link = document.createElement('a');
    link.href = '#ranking';
    link.textContent = 'One ranking';
    link.addEventListener('click', (event) => {
      event.preventDefault();
      setField('mode', 'data');
      setField('topic', topic);
      setField('er', key);
      state.dirty.add('ranking');
      showTab('ranking');
    });
    line.append(' ', link);
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
function showQuery(topic) {
  setField('mode', 'data');
  setField('topic', topic);
  setField('er', 'a');
  state.dirty.add('ranking');
  location.hash = 'ranking';
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

// ---- tabs, presets, input events ----

const REFRESH = { metrics: refreshMetrics, ranking: refreshRanking, compare: refreshCompare,
  interleave: refreshInterleave,
  playground: () => playground.render() }; // playground: drawn in the page (static/playground.js)

function currentTab() {
  const tab = location.hash.slice(1);
  return TABS.includes(tab) ? tab : 'data';
}

function showTab(tab) {
  document.body.dataset.tab = tab;
  for (const t of TABS) {
    $(`tab-${t}`).hidden = t !== tab;
    document.querySelector(`nav a[data-tab="${t}"]`).classList.toggle('active', t === tab);
  }
  if (location.hash.slice(1) !== tab) history.replaceState(null, '', `${location.pathname}${location.search}#${tab}`);
  if (tab !== 'data' && tab !== 'metrics' && state.dirty.has(tab)) REFRESH[tab]();
  writeURL();
}

function changed(tabs) {
  for (const t of tabs) state.dirty.add(t);
  const tab = currentTab();
  if (tabs.includes('metrics')) scheduleMetrics();
  if (tab !== 'data' && tab !== 'metrics' && state.dirty.has(tab)) schedule(tab);
  writeURL();
}

const timers = {};
function schedule(tab) {
  clearTimeout(timers[tab]);
  timers[tab] = setTimeout(() => REFRESH[tab](), 350);
}
function scheduleMetrics() {
  clearTimeout(timers.metrics);
  timers.metrics = setTimeout(() => refreshMetrics(), 350);
}

async function loadPreset(name, refresh = true) {
  if (![...$('preset').options].some((o) => o.value === name)) {  // a link's unknown example
    showError('notice', { message: `This link's example "${name}" is not one of the page's: `
      + 'choose one under Load an example. The page starts without it.' });
    return;
  }
  const response = await fetch(`/api/presets/${encodeURIComponent(name)}`);
  const preset = await response.json();
  if (!response.ok) {
    $('status').textContent = preset.error.message;
    return;
  }
  state.example = name;
  for (const [key, fallback] of Object.entries(FIELDS)) setField(key, fallback);
  if (preset.pool) await generatePool(preset.pool.seed);
  else {
    for (const t of TEXTS) $(t).value = preset.data[t];
    setField('na', preset.data.na);
    setField('nb', preset.data.nb);
  }
  for (const [key, value] of Object.entries(preset.state || {})) setField(key, value);
  state.dataFromExample = true;
  $('preset').value = name;
  if (refresh) {
    location.hash = preset.tab;
    changed(TABS);
  } else history.replaceState(null, '', `${location.pathname}${location.search}#${location.hash.slice(1) || preset.tab}`);
}

async function generatePool(seed) {
  $('status').textContent = 'drawing the pooled collection…';
  const reply = await job('pool', { seed: String(seed) });
  if (reply.error) {
    $('status').textContent = `error: ${reply.error.message}`;
    return;
  }
  for (const t of TEXTS) $(t).value = reply.ok[t];
  setField('na', reply.ok.na);
  setField('nb', reply.ok.nb);
  $('pool-seed').value = seed;
}

function dataEdited() {
  state.example = '';
  state.dataFromExample = false;
  state.dropped = '';
  changed(TABS);
}

function readFile(key, file) {
  const reader = new FileReader();
  reader.onload = () => {
    $(key).value = reader.result;
    if (key !== 'qrels' && !$(`n${key}`).value) $(`n${key}`).value = file.name;
    dataEdited();
  };
  reader.readAsText(file);
}

function wire() {
  for (const t of TEXTS) {
    $(t).addEventListener('input', dataEdited);
    $(`file-${t}`).addEventListener('change', (event) => {
      if (event.target.files[0]) readFile(t, event.target.files[0]);
    });
    $(t).addEventListener('dragover', (event) => event.preventDefault());
    $(t).addEventListener('drop', (event) => {
      event.preventDefault();
      if (event.dataTransfer.files[0]) readFile(t, event.dataTransfer.files[0]);
    });
  }
  const groups = {
    metrics: ['na', 'nb', 'k', 'rl', 'gmax', 'M', 'c', 'J', ...CONVENTION, 'grades_map'],
    ranking: ['mode', 'grades', 'extra', 'ek', 'topic', 'er'],
    compare: ['metric', 'B', 'seed', 'alpha', 'correction'],
    interleave: ['method', 'clicks', 'imps', 'ilen', 'iseed'],
  };
  for (const [group, names] of Object.entries(groups)) {
    const affected = group === 'metrics' ? TABS : [group];
    for (const name of names) {
      const elements = name === 'mode' ? [$('mode-grades'), $('mode-data')] : [element(name)];
      for (const el of elements) {
        el.addEventListener(el.tagName === 'SELECT' || el.type === 'checkbox' || el.type === 'radio' ? 'change' : 'input', () => {
          if (name === 'mode') showMode();
          changed(name === 'alpha' ? ['compare', 'interleave'] : affected);
        });
      }
    }
  }
  $('filter').addEventListener('input', () => state.results.metrics && drawMetrics());
  $('pq-measure').addEventListener('change', drawPerQuery);
  $('trec-run').addEventListener('change', drawTrec);
  $('trec-q').addEventListener('change', drawTrec);
  $('copy-trec').addEventListener('click', () => navigator.clipboard.writeText($('trec').textContent));
  for (const th of document.querySelectorAll('#pq th[data-sort]')) {
    th.addEventListener('click', () => {
      sortBy.up = sortBy.key === th.dataset.sort ? !sortBy.up : true;
      sortBy.key = th.dataset.sort;
      drawPerQuery();
    });
  }
  $('pq').tBodies[0].addEventListener('click', (event) => {
    const row = event.target.closest('tr.topic');
    if (row) openTopic(row);
  });
  $('compare-cancel').addEventListener('click', () => cancelTab('compare'));
  $('interleave-cancel').addEventListener('click', () => cancelTab('interleave'));
  $('load-preset').addEventListener('click', () => loadPreset($('preset').value));
  $('pool-button').addEventListener('click', async () => {
    await generatePool($('pool-seed').value || '1');
    dataEdited();
  });
  $('share').addEventListener('click', async () => {
    const url = await shareLink();
    $('share-url').value = url;
    $('share-url').hidden = false;
    $('share-url').select();
  });
  window.addEventListener('hashchange', () => showTab(currentTab()));
}

function showMode() {
  const data = $('mode-data').checked;
  $('by-grades').hidden = data;
  $('by-data').hidden = !data;
}

async function start() {
  FIELDS.correction = $('correction').value; // the server's page: irscore compare's default
  wire();
  const fromURL = await readURL();
  if (!fromURL) {
    const given = await (await fetch('/api/start')).json();
    for (const t of TEXTS) if (given[t]) $(t).value = given[t];
    if (given.na) setField('na', given.na);
    if (given.nb) setField('nb', given.nb);
  }
  showMode();
  document.body.dataset.ready = '1';
  await refreshMetrics();
  showTab(currentTab());
}

document.addEventListener('DOMContentLoaded', start);
