/**
 * The dashboard's single page: a live worker table fed by Server-Sent
 * Events from `/events` (one NDJSON-shaped event per message; `synced` once
 * the initial state is complete: until then the page says "Loading workers…",
 * after it an empty pool says "No workers."). The "Seen" column is how long
 * the page has seen the worker (not the worker's age), as the terminal
 * table's SEEN. Rows are
 * built with `textContent` (a record cannot inject markup); added rows
 * flash green, dropped rows flash red before leaving; counts by tag below.
 */
export const dashboardPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>woolrx dashboard</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d2330; background: #f7f8fa; }
  h1 { font-size: 1.2rem; margin: 0 0 .25rem; }
  #meta { color: #5b6475; margin-bottom: 1rem; }
  #status.live { color: #1a7f37; } #status.down { color: #b42318; }
  table { border-collapse: collapse; width: 100%; background: #fff; box-shadow: 0 1px 2px #0002; }
  th, td {
    text-align: left; padding: .35rem .6rem; border-bottom: 1px solid #e4e7ec;
    font-family: ui-monospace, monospace; font-size: 13px;
  }
  th { background: #eef1f5; font-family: system-ui, sans-serif; }
  td.num { text-align: right; }
  tr.added { animation: added 2.5s ease-out; }
  tr.updated { animation: updated 1.5s ease-out; }
  tr.dropped { background: #fde2e1; text-decoration: line-through; color: #8a1c14; }
  @keyframes added { from { background: #c9f2d3; } to { background: #fff; } }
  @keyframes updated { from { background: #fff3c4; } to { background: #fff; } }
  .tag {
    display: inline-block; padding: 0 .4rem; margin-right: .25rem; border-radius: .6rem;
    background: #e0e7ff; color: #1e3a8a;
  }
  #counts { margin-top: .75rem; color: #323a49; }
  #empty { color: #5b6475; padding: 1rem 0; }
</style>
</head>
<body>
<h1>woolrx dashboard</h1>
<div id="meta">
  namespace <b id="namespace"></b> · <span id="status">connecting…</span> · <span id="total">0 workers</span>
</div>
<table>
  <thead><tr>
    <th>UID</th><th>Address</th><th>PID</th><th>Version</th><th>Tags</th><th>Extra</th>
    <th title="How long this page has seen the worker (not its age)">Seen</th><th>Last event</th>
  </tr></thead>
  <tbody id="rows"></tbody>
</table>
<div id="empty">Loading workers…</div>
<div id="counts"></div>
<script>
(() => {
  const rows = document.getElementById('rows');
  const workers = new Map();
  let synced = false;
  const words = { 'worker-added': 'added', 'worker-updated': 'updated', 'worker-dropped': 'dropped' };
  const duration = (ms) => {
    const s = Math.max(0, Math.floor(ms / 1000));
    return s < 60 ? s + 's' : Math.floor(s / 60) + 'm' + String(s % 60).padStart(2, '0') + 's';
  };
  function cell(tr, text, cls) {
    const td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }
  function fill(entry) {
    const { tr, worker } = entry;
    tr.replaceChildren();
    tr.dataset.uid = worker.uid;
    cell(tr, worker.uid.slice(0, 8)).title = worker.uid;
    cell(tr, worker.address);
    cell(tr, String(worker.pid), 'num');
    cell(tr, worker.version);
    const tags = cell(tr, '');
    for (const tag of worker.tags) {
      const span = document.createElement('span');
      span.className = 'tag';
      span.textContent = tag;
      tags.appendChild(span);
    }
    cell(tr, Object.entries(worker.extra).map(([k, v]) => k + '=' + v).join(', ') || '-');
    entry.seenCell = cell(tr, '', 'num');
    entry.lastCell = cell(tr, '');
    tick(entry, Date.now());
  }
  function tick(entry, now) {
    entry.seenCell.textContent = duration(now - entry.seenAt);
    const why = entry.reason ? ' (' + entry.reason + ')' : '';
    entry.lastCell.textContent = words[entry.lastType] + why + ' ' + duration(now - entry.lastAt) + ' ago';
  }
  function flash(tr, cls) { tr.classList.remove('added', 'updated'); void tr.offsetWidth; tr.classList.add(cls); }
  function summary() {
    const live = [...workers.values()].filter((e) => !e.dropped);
    document.getElementById('total').textContent = live.length + (live.length === 1 ? ' worker' : ' workers');
    const empty = document.getElementById('empty');
    empty.hidden = workers.size > 0;
    empty.textContent = synced ? 'No workers.' : 'Loading workers…';
    const counts = new Map();
    for (const { worker } of live) {
      for (const tag of (worker.tags.length ? worker.tags : ['(no tag)'])) counts.set(tag, (counts.get(tag) || 0) + 1);
    }
    document.getElementById('counts').textContent = [...counts]
      .sort(([a], [b]) => a < b ? -1 : 1)
      .map(([t, n]) => t + ' ' + n)
      .join(' · ');
  }
  function apply({ type, worker, reason }) {
    const now = Date.now();
    let entry = workers.get(worker.uid);
    if (type === 'worker-dropped') {
      if (!entry) return;
      entry.dropped = true;
      entry.worker = worker; entry.lastType = type; entry.lastAt = now; entry.reason = reason;
      fill(entry);
      entry.tr.className = 'dropped';
      setTimeout(() => {
        if (workers.get(worker.uid) === entry) {
          workers.delete(worker.uid);
          entry.tr.remove();
          summary();
        }
      }, 2500);
    } else {
      if (!entry || entry.dropped) {
        if (entry) entry.tr.remove();
        entry = { tr: document.createElement('tr'), seenAt: now };
        workers.set(worker.uid, entry);
        rows.appendChild(entry.tr);
      }
      entry.worker = worker; entry.lastType = type; entry.lastAt = now;
      fill(entry);
      flash(entry.tr, type === 'worker-added' ? 'added' : 'updated');
    }
    summary();
  }
  const status = document.getElementById('status');
  const source = new EventSource('events');
  source.addEventListener('hello', (e) => {
    document.getElementById('namespace').textContent = JSON.parse(e.data).namespace;
    trouble = null;
    showStatus();
  });
  let trouble = null;
  const showStatus = () => {
    if (trouble) {
      status.textContent = trouble;
      status.className = 'down';
    } else {
      status.textContent = synced ? 'live' : 'loading…';
      status.className = synced ? 'live' : '';
    }
  };
  source.addEventListener('synced', () => { synced = true; showStatus(); summary(); });
  source.addEventListener('status', (e) => { trouble = JSON.parse(e.data).message; showStatus(); });
  source.onmessage = (e) => apply(JSON.parse(e.data));
  source.addEventListener('failure', (e) => {
    status.textContent = 'stream failed: ' + JSON.parse(e.data).message;
    status.className = 'down';
    source.close();
  });
  source.onerror = () => {
    if (source.readyState !== EventSource.OPEN) {
      status.textContent = 'reconnecting…';
      status.className = 'down';
      synced = false;
      for (const e of workers.values()) e.tr.remove();
      workers.clear();
      summary();
    }
  };
  setInterval(() => { const now = Date.now(); for (const e of workers.values()) if (!e.dropped) tick(e, now); }, 1000);
  summary();
})();
</script>
</body>
</html>
`;
