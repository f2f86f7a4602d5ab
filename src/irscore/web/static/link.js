// The share link and the address bar: every setting that differs from its default, the
// inputs (packed past PACK_OVER characters, left out past LINK_MAX), the tab.

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
