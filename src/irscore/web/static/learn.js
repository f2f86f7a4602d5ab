// The workbench's teaching views (issue 47, "learn"): the P-R curve tab (the averaged
// 11-point interpolated precision-recall curve of A and B, and one query's sawtooth), the
// Definitions tab, and a (?) with its help beside each control. Every number drawn is one
// the server's jobs computed: irscore evaluate's iprec_at_recall (its all_trec, the
// Metrics job) and irscore explain's P@i and recall@i; the step over the sawtooth is the
// running maximum of those points. It uses app.js's state, job, inputs and tab lists.
'use strict';

(() => {
  const LEVELS = ['0.00', '0.10', '0.20', '0.30', '0.40', '0.50', '0.60', '0.70', '0.80',
    '0.90', '1.00'];
  // distinct colour, marker and line per run (blue circles, solid; orange squares, dashed)
  const STYLE = {
    a: { colour: '#0b5cad', marker: 'circle', dash: '' },
    b: { colour: '#c2410c', marker: 'square', dash: '7 4' },
  };
  const STEP = '#8c959f'; // the interpolated step, under the sawtooth's colour
  const NS = 'http://www.w3.org/2000/svg';
  const drawn = { explain: null }; // the last explain reply drawn, redrawn on a resize
  let asked = 0; // the latest sawtooth request: an older reply is not drawn

  TABS.push('curves', 'learn');
  state.dirty.add('curves');
  REFRESH.curves = showCurves;
  REFRESH.learn = () => state.dirty.delete('learn');

  // ---- the charts: a frame with axes from 0 to 1, ticks, labels and a legend above ----

  function svgNode(name, attributes, text) {
    const node = document.createElementNS(NS, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The legend's items laid out left to right, wrapped into rows where the width ends.
  function legendRows(legend, left, right) {
    let x = left;
    let row = 0;
    return legend.map((item) => {
      const label = item.label.length > 40 ? `${item.label.slice(0, 39)}…` : item.label;
      const size = 40 + 7 * label.length;
      if (x > left && x + size > right) {
        x = left;
        row += 1;
      }
      const place = { item, label, x, row };
      x += size + 12;
      return place;
    });
  }

  // An SVG of the box's width (readable text at any width), its plot area, axes and legend.
  function frame(box, xLabel, yLabel, legend) {
    const width = Math.round(Math.max(300, Math.min(760, box.clientWidth || 520)));
    const m = { left: 52, right: 16, top: 0, bottom: 46 };
    const places = legendRows(legend, m.left, width - m.right);
    const rows = places.length ? places[places.length - 1].row + 1 : 0;
    m.top = 16 + 20 * rows;
    const height = Math.round(Math.max(280, Math.min(440, width * 0.62)) + 20 * (rows - 1));
    const svg = svgNode('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img',
      class: 'learn-svg', 'aria-label': `${yLabel} against ${xLabel}` });
    const area = { x: m.left, y: m.top, w: width - m.left - m.right, h: height - m.top - m.bottom };
    const x = (v) => area.x + area.w * v;
    const y = (v) => area.y + area.h * (1 - v);
    svg.append(svgNode('rect', { x: area.x, y: area.y, width: area.w, height: area.h,
      class: 'plot-area' }));
    for (let i = 0; i <= 10; i += 1) {
      const v = i / 10;
      const major = i % 2 === 0;
      svg.append(svgNode('line', { x1: x(v), x2: x(v), y1: area.y, y2: area.y + area.h,
        class: major ? 'grid' : 'grid minor' }));
      svg.append(svgNode('line', { x1: area.x, x2: area.x + area.w, y1: y(v), y2: y(v),
        class: major ? 'grid' : 'grid minor' }));
      svg.append(svgNode('line', { x1: x(v), x2: x(v), y1: area.y + area.h,
        y2: area.y + area.h + 4, class: 'tick' }));
      svg.append(svgNode('line', { x1: area.x - 4, x2: area.x, y1: y(v), y2: y(v), class: 'tick' }));
      if (major) {
        svg.append(svgNode('text', { x: x(v), y: area.y + area.h + 17, 'text-anchor': 'middle',
          class: 'tick-label' }, v.toFixed(1)));
        svg.append(svgNode('text', { x: area.x - 7, y: y(v) + 4, 'text-anchor': 'end',
          class: 'tick-label' }, v.toFixed(1)));
      }
    }
    svg.append(svgNode('text', { x: area.x + area.w / 2, y: height - 8, 'text-anchor': 'middle',
      class: 'axis-label' }, xLabel));
    svg.append(svgNode('text', { x: 14, y: area.y + area.h / 2, 'text-anchor': 'middle',
      class: 'axis-label', transform: `rotate(-90 14 ${area.y + area.h / 2})` }, yLabel));
    for (const { item, label, x: left, row } of places) {
      const middle = 12 + 20 * row;
      const group = svgNode('g', { class: 'legend', 'data-run': item.key || '' });
      const thick = item.width ?? 2; // 0: a marker alone
      if (thick) {
        group.append(svgNode('line', { x1: left, x2: left + 26, y1: middle, y2: middle,
          stroke: item.colour, 'stroke-width': thick, 'stroke-dasharray': item.dash || '' }));
      }
      if (item.marker) group.append(marker(item.marker, left + 13, middle, item.colour, item.hollow, 4));
      group.append(svgNode('text', { x: left + 32, y: middle + 4, class: 'legend-label' }, label));
      svg.append(group);
    }
    box.replaceChildren(svg);
    return { svg, x, y };
  }

  function marker(shape, cx, cy, colour, hollow, size) {
    const paint = { fill: hollow ? '#fff' : colour, stroke: colour, 'stroke-width': 1.5 };
    if (shape === 'square') {
      return svgNode('rect', { x: cx - size, y: cy - size, width: 2 * size, height: 2 * size, ...paint });
    }
    return svgNode('circle', { cx, cy, r: size, ...paint });
  }

  function runLabel(key) {
    return `${key.toUpperCase()}: ${runName(key)}`;
  }

  function say(box, message) {
    showError(box, message ? { message } : null);
  }

  // ---- the averaged curve: each run's mean iprec_at_recall, as irscore evaluate prints it ----

  function runsOf(metrics) {
    return metrics ? ['a', 'b'].filter((key) => metrics.runs[key]) : [];
  }

  function drawAverage() {
    const metrics = state.results.metrics;
    const box = $('pr-average');
    const body = $('pr-table').tBodies[0];
    if (!metrics) {
      box.replaceChildren();
      body.replaceChildren();
      say('err-curves', $('qrels').value.trim() && $('a').value.trim()
        ? 'irscore evaluate has no result for these inputs: see the Data tab.'
        : 'Load an example or paste the qrels and a run in the Data tab first.');
      return;
    }
    say('err-curves', null);
    const keys = runsOf(metrics);
    const legend = keys.map((key) => ({ key, label: runLabel(key), ...STYLE[key] }));
    const { svg, x, y } = frame(box, 'recall', 'interpolated precision', legend);
    for (const key of keys) {
      const means = metrics.runs[key].means;
      const points = LEVELS.map((level) => [Number(level), means[`iprec_at_recall_${level}`]]);
      const { colour, dash } = STYLE[key];
      svg.append(svgNode('polyline', { points: points.map(([r, p]) => `${x(r)},${y(p)}`).join(' '),
        fill: 'none', stroke: colour, 'stroke-width': 2, 'stroke-dasharray': dash,
        class: 'pr-line', 'data-run': key }));
      for (const [r, p] of points) {
        const dot = marker(STYLE[key].marker, x(r), y(p), colour, false, 4.5);
        Object.assign(dot.dataset, { run: key, recall: r.toFixed(2), precision: String(p) });
        dot.classList.add('pr-point');
        dot.append(svgNode('title', {}, `${runName(key)}: recall ${r.toFixed(1)}, precision ${p.toFixed(4)}`));
        svg.append(dot);
      }
    }
    $('pr-table-a').textContent = runName('a');
    $('pr-table-b').textContent = keys.includes('b') ? runName('b') : 'B';
    body.replaceChildren(...LEVELS.map((level) => {
      const row = document.createElement('tr');
      const cells = [level, ...['a', 'b'].map((key) => (metrics.runs[key]
        ? metrics.runs[key].means[`iprec_at_recall_${level}`].toFixed(4) : ''))];
      for (const [i, text] of cells.entries()) {
        const td = row.insertCell();
        td.textContent = text;
        if (i) td.classList.add('num');
      }
      return row;
    }));
  }

  // ---- one query: the sawtooth from irscore explain, the step and trec_eval's 11 points ----

  function fillQueries() {
    const metrics = state.results.metrics;
    const select = $('pr-topic');
    const chosen = select.value;
    const topics = metrics ? metrics.runs.a.topics : [];
    select.replaceChildren(...topics.map((t) => new Option(t, t)));
    if (topics.includes(chosen)) select.value = chosen;
    const run = $('pr-run');
    run.options[1].disabled = !(metrics && metrics.runs.b);
    if (run.options[1].disabled) run.value = 'a';
    for (const option of run.options) option.textContent = runLabel(option.value);
  }

  // A query's value of one measure for one run (per-topic values of the Metrics job).
  function topicValue(key, measure, topic) {
    const run = state.results.metrics.runs[key];
    const i = run.topics.indexOf(topic);
    return i < 0 || !run.values[measure] ? null : run.values[measure][i];
  }

  async function drawSawtooth() {
    const metrics = state.results.metrics;
    const topic = $('pr-topic').value;
    const key = $('pr-run').value;
    const ticket = ++asked;
    drawn.explain = null;
    delete $('pr-sawtooth').dataset.shown;
    if (!metrics || !topic) {
      $('pr-sawtooth').replaceChildren();
      return;
    }
    const retrieved = topicValue(key, 'num_ret', topic);
    if (!retrieved) {
      $('pr-sawtooth').replaceChildren();
      say('err-sawtooth', `${runName(key)} retrieved no document for query ${topic}.`);
      return;
    }
    say('err-sawtooth', null);
    const reply = await job('ranking', { ...inputs(), mode: 'data', run: key, topic,
      ek: String(Math.min(100000, retrieved)), brief: 'true' });
    if (ticket !== asked) return;
    if (reply.error) {
      $('pr-sawtooth').replaceChildren();
      say('err-sawtooth', reply.error.message);
      return;
    }
    drawn.explain = { key, topic, explain: reply.ok.explain, command: reply.ok.command };
    plotSawtooth();
  }

  // The interpolated precision as steps: at each recall a relevant document reaches, the
  // highest P@i at that recall or beyond; 0 past the last relevant document retrieved.
  function steps(ranks) {
    const out = [];
    let best = 0;
    for (let i = ranks.length - 1; i >= 0; i -= 1) {
      best = Math.max(best, ranks[i]['P@i']);
      const recall = ranks[i]['recall@i'];
      const previous = i ? ranks[i - 1]['recall@i'] : 0;
      if (recall > previous) out.unshift([recall, best]);
    }
    return out;
  }

  function plotSawtooth() {
    const { key, topic, explain, command } = drawn.explain;
    const { colour, dash } = STYLE[key];
    const legend = [
      { key, label: `${runName(key)}: P@i, recall@i`, colour, marker: STYLE[key].marker, width: 1 },
      { label: 'interpolated', colour: STEP, width: 3 },
      { label: 'trec_eval 11 points', colour: '#1b1f24', marker: 'circle', hollow: true, width: 0 },
    ];
    const { svg, x, y } = frame($('pr-sawtooth'), 'recall@i', 'P@i', legend);
    const ranks = explain.ranks;
    const step = steps(ranks);
    let path = `M${x(0)},${y(step.length ? step[0][1] : 0)}`;
    for (const [i, [recall, best]] of step.entries()) {
      path += ` V${y(best)} H${x(recall)}`;
      if (i === step.length - 1 && recall < 1) path += ` V${y(0)} H${x(1)}`;
    }
    if (!step.length) path += ` H${x(1)}`;
    svg.append(svgNode('path', { d: path, fill: 'none', stroke: STEP, 'stroke-width': 3,
      class: 'pr-step', 'data-steps': JSON.stringify(step) }));
    svg.append(svgNode('polyline', {
      points: ranks.map((r) => `${x(r['recall@i'])},${y(r['P@i'])}`).join(' '),
      fill: 'none', stroke: colour, 'stroke-width': 1.2, 'stroke-dasharray': dash, class: 'pr-saw' }));
    const size = ranks.length > 200 ? 1.8 : 3;
    for (const r of ranks) {
      const dot = marker(STYLE[key].marker, x(r['recall@i']), y(r['P@i']), colour, false, size);
      Object.assign(dot.dataset, { rank: r.rank, recall: String(r['recall@i']),
        precision: String(r['P@i']) });
      dot.classList.add('saw-point');
      dot.append(svgNode('title', {}, `rank ${r.rank} (${r.docno}, grade ${r.grade}): `
        + `P@i ${r['P@i'].toFixed(4)}, recall@i ${r['recall@i'].toFixed(4)}`));
      svg.append(dot);
    }
    for (const level of LEVELS) {
      const value = topicValue(key, `iprec_at_recall_${level}`, topic);
      if (value === null) continue;
      const dot = marker('circle', x(Number(level)), y(value), '#1b1f24', true, 4);
      Object.assign(dot.dataset, { recall: level, precision: String(value) });
      dot.classList.add('eleven-point');
      dot.append(svgNode('title', {}, `iprec_at_recall_${level} = ${value.toFixed(4)}`));
      svg.append(dot);
    }
    $('pr-sawtooth-caption').textContent = `query ${topic}, ${runName(key)}: ${ranks.length} `
      + 'ranks; x: recall@i, y: P@i';
    $('pr-command').textContent = command;
    $('pr-sawtooth').dataset.shown = `${key} ${topic}`;
  }

  async function showCurves() {
    state.dirty.delete('curves');
    drawAverage();
    fillQueries();
    await drawSawtooth();
  }

  function curvesShown() {
    return !$('tab-curves').hidden;
  }

  // ---- help: a (?) beside each control, its text the Definitions tab's row ----

  function control(id) {
    return [...document.querySelectorAll(`[id="${id}"]`)]
      .find((el) => el.matches('input, select, textarea'));
  }

  // Where the (?) goes: after the label's words, after a box's title (a text box) or its
  // name field, or after the control; where its text shows when opened.
  function helpPlace(el) {
    const label = el.closest('label');
    if (label && !label.classList.contains('check')) {
      const words = [...label.childNodes]
        .find((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
      if (!words) return { after: el, tipInto: label };
      const head = document.createElement('span');
      head.className = 'label-head';
      label.insertBefore(head, words);
      head.append(words.textContent.trim(), ' ');
      words.remove();
      return { into: head, tipInto: label };
    }
    if (label) return { into: label, tipInto: label };
    const box = el.closest('.input');
    const head = box && box.querySelector('.input-head');
    if (head && el.tagName === 'TEXTAREA') return { after: head.querySelector('strong'), tipInto: head };
    return { after: el, tipInto: head || el.parentElement };
  }

  function addHelp(row) {
    const id = row.dataset.control;
    const el = control(id);
    if (!el) return;
    const name = row.cells[0].textContent.trim();
    const text = row.cells[2].textContent.trim().replace(/\s+/g, ' ');
    const { into, after, tipInto } = helpPlace(el);
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'help';
    button.textContent = '?';
    button.title = text;
    button.dataset.for = id;
    button.setAttribute('aria-label', `help: ${name}`);
    button.setAttribute('aria-expanded', 'false');
    const tip = document.createElement('span');
    tip.className = 'help-tip';
    tip.id = `help-${id}`;
    tip.setAttribute('role', 'note');
    tip.textContent = text;
    tip.hidden = true;
    button.setAttribute('aria-controls', tip.id);
    el.setAttribute('aria-describedby', tip.id);
    button.addEventListener('click', (event) => {
      event.preventDefault();
      tip.hidden = !tip.hidden;
      button.setAttribute('aria-expanded', String(!tip.hidden));
    });
    if (into) into.append(button);
    else after.after(button);
    tipInto.append(tip);
  }

  function wireLearn() {
    for (const row of document.querySelectorAll('#learn-controls tr[data-control]')) addHelp(row);
    $('pr-topic').addEventListener('change', drawSawtooth);
    $('pr-run').addEventListener('change', drawSawtooth);
    document.addEventListener('irscore:metrics', () => {
      state.dirty.add('curves');
      if (curvesShown()) showCurves();
    });
    let resized = null;
    window.addEventListener('resize', () => {
      clearTimeout(resized);
      resized = setTimeout(() => {
        if (!curvesShown() || !state.results.metrics) return;
        drawAverage();
        if (drawn.explain) plotSawtooth();
      }, 120);
    });
  }

  document.addEventListener('DOMContentLoaded', wireLearn);
})();
