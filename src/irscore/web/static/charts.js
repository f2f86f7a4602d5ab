// The workbench's own small SVG charts (Compare's per-query differences and A-against-B
// scatter): axes with ticks and labels, a legend beside the data, every mark inside its
// frame. The figures of the commands (--plot) come drawn from the server.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';

function svgElement(name, attributes) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, v);
  return el;
}

function chartFrame(box, width, height) {
  const svg = svgElement('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img' });
  box.replaceChildren(svg);
  return svg;
}

// The plotting area's outline (a path: every rect of a chart is one of its data marks).
function frame(svg, x, y, width, height) {
  svg.append(svgElement('path', { d: `M${x},${y}h${width}v${height}h${-width}Z`, class: 'frame' }));
}

function label(svg, x, y, text, anchor = 'middle', cls = 'axis') {
  const t = svgElement('text', { x, y, 'text-anchor': anchor, class: cls });
  t.textContent = text;
  svg.append(t);
  return t;
}

// Round tick values from lo to hi (about `count` of them), as numbers and as text.
function ticks(lo, hi, count = 5) {
  const raw = (hi - lo) / Math.max(1, count - 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) || raw;
  const digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9) + (step / power === 2.5 ? 1 : 0));
  const out = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
    out.push([v, (Math.abs(v) < step * 1e-9 ? 0 : v).toFixed(digits)]);
  }
  return out;
}

// A marker of one kind (circle, square, diamond) centred on x, y.
function marker(kind, x, y, r, cls) {
  if (kind === 'circle') return svgElement('circle', { cx: x, cy: y, r, class: cls });
  if (kind === 'square') {
    return svgElement('rect', { x: x - r * 0.9, y: y - r * 0.9, width: r * 1.8, height: r * 1.8, class: cls });
  }
  const d = `M${x},${y - r * 1.2}L${x + r * 1.2},${y}L${x},${y + r * 1.2}L${x - r * 1.2},${y}Z`;
  return svgElement('path', { d, class: cls });
}

// The per-query differences B − A, sorted: one bar each, green up (B better), red down.
function drawBars(box, values, caption) {
  const W = 400; const H = 250; const L = 50; const R = 10; const T = 12; const B = 44;
  const svg = chartFrame(box, W, H);
  const top = Math.max(0.001, ...values.map(Math.abs));
  const y = (v) => T + (H - T - B) * (1 - (v + top) / (2 * top));
  const step = (W - L - R) / Math.max(1, values.length);
  frame(svg, L, T, W - L - R, H - T - B);
  for (const [v, text] of ticks(-top, top, 5)) {
    svg.append(svgElement('line', { x1: L - 4, x2: L, y1: y(v), y2: y(v), class: 'tick' }));
    label(svg, L - 6, y(v) + 4, v > 0 ? `+${text}` : text.replace('-', '−'), 'end');
  }
  svg.append(svgElement('line', { x1: L, x2: W - R, y1: y(0), y2: y(0), class: 'zero' }));
  values.forEach((v, i) => {
    svg.append(svgElement('rect', {
      x: L + i * step + step * 0.1, width: Math.max(1, step * 0.8),
      y: Math.min(y(v), y(0)), height: Math.max(0.5, Math.abs(y(v) - y(0))),
      class: v > 0 ? 'bar up' : 'bar down',
    }));
  });
  const rotated = label(svg, 12, T + (H - T - B) / 2, caption);
  rotated.setAttribute('transform', `rotate(-90 12 ${T + (H - T - B) / 2})`);
  label(svg, L + (W - L - R) / 2, H - B + 16, `${values.length} queries, sorted by B − A`);
  label(svg, L + (W - L - R) / 2, H - 8, 'green: B better · red: A better', 'middle', 'axis note');
}

// Each query as a point (A's value, B's value) on equal axes, with the diagonal; a
// click on a point calls onPick(topic). Marker and colour say which run is better.
function drawScatter(box, points, nameA, nameB, measure, onPick) {
  const W = 400; const H = 300; const L = 50; const T = 12; const B = 44; const RADIUS = 4;
  const svg = chartFrame(box, W, H);
  const values = points.flatMap((p) => [p.a, p.b]);
  const lo = Math.min(0, ...values);
  const top = Math.max(lo + 1e-9, ...values);
  const hi = top <= 1 && lo >= 0 ? 1 : top; // a measure of at most 1 keeps its scale 0..1
  const size = H - T - B;
  const pad = RADIUS + 2; // a point at the edge stays inside the frame
  const x = (v) => L + pad + (size - 2 * pad) * ((v - lo) / (hi - lo));
  const y = (v) => T + size - pad - (size - 2 * pad) * ((v - lo) / (hi - lo));
  frame(svg, L, T, size, size);
  svg.append(svgElement('line', { x1: x(lo), y1: y(lo), x2: x(hi), y2: y(hi), class: 'zero' }));
  for (const [v, text] of ticks(lo, hi, 5)) {
    svg.append(svgElement('line', { x1: L - 4, x2: L, y1: y(v), y2: y(v), class: 'tick' }));
    label(svg, L - 6, y(v) + 4, text, 'end');
    svg.append(svgElement('line', { x1: x(v), x2: x(v), y1: T + size, y2: T + size + 4, class: 'tick' }));
    label(svg, x(v), T + size + 16, text);
  }
  label(svg, L + size / 2, H - 8, `A = ${nameA} (${measure})`);
  const side = label(svg, 12, T + size / 2, `B = ${nameB}`);
  side.setAttribute('transform', `rotate(-90 12 ${T + size / 2})`);
  const kinds = { up: ['circle', 'dot up'], down: ['square', 'dot down'], same: ['diamond', 'dot same'] };
  // queries at the same point share one mark, which names them all
  const at = new Map();
  for (const p of points) {
    const key = `${p.a},${p.b}`;
    if (!at.has(key)) at.set(key, { ...p, topics: [] });
    at.get(key).topics.push(p.topic);
  }
  for (const p of at.values()) {
    const which = p.b > p.a ? 'up' : p.b < p.a ? 'down' : 'same';
    const mark = marker(kinds[which][0], x(p.a), y(p.b), RADIUS, kinds[which][1]);
    mark.dataset.topic = p.topics[0];
    mark.dataset.topics = p.topics.join(' ');
    const title = svgElement('title', {});
    const named = p.topics.length > 1 ? `queries ${p.topics.join(', ')}` : `query ${p.topic}`;
    title.textContent = `${named}: A ${p.a.toFixed(4)}, B ${p.b.toFixed(4)} (click: `
      + `the ranking of query ${p.topic})`;
    mark.append(title);
    if (onPick) mark.addEventListener('click', () => onPick(p.topic));
    svg.append(mark);
  }
  // the legend, in the room right of the square plot
  const lx = L + size + 14;
  const entries = [['up', 'B better'], ['down', 'A better'], ['same', 'equal']];
  entries.forEach(([which, text], i) => {
    svg.append(marker(kinds[which][0], lx + 5, T + 14 + i * 18, RADIUS, kinds[which][1]));
    label(svg, lx + 14, T + 18 + i * 18, text, 'start');
  });
  label(svg, lx, T + 80, 'above the', 'start', 'axis note');
  label(svg, lx, T + 94, 'diagonal:', 'start', 'axis note');
  label(svg, lx, T + 108, 'B better', 'start', 'axis note');
}
