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
