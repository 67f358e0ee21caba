// schedplay's trace panel ("Your own → Trace"): a recorded Linux trace
// (Perfetto, ftrace text, trace.dat) replayed as the scenario's workload.
// The file is read in the browser by the trace worker (trace-worker.js,
// static/schedplay-trace-worker.wasm, started when the panel first gets a
// file: the page itself has no decoders), which lists the processes and
// threads found and builds the replay model of the window and processes
// chosen; Run hands the model to the page (core.setTrace), which replays it
// in the arms from time zero. The replay section (playground/replay.go) sets
// each process's figures as recorded beside each arm's.
'use strict';
(() => {
  const page = window.schedplayPage;
  const mk = (tag, props = {}, ...kids) => {
    const e = Object.assign(document.createElement(tag), props);
    e.append(...kids.filter((k) => k !== null && k !== undefined));
    return e;
  };
  const card = document.getElementById('trace-panel');
  if (!page || !card) return;

  // maxFileBytes is the trace worker's limit (tracefile.MaxFileBytes),
  // checked here too so a huge file is refused before it is read.
  const maxFileBytes = 64 << 20;
  const mib = (n) => (n / (1 << 20)).toFixed(n >= 10 << 20 ? 0 : 1) + ' MiB';
  const size = (n) => (n >= 1 << 20 ? mib(n) : Math.max(1, Math.round(n / 1024)) + ' KiB');
  const ms = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  const us = (v) => (v < 0 ? '–' : v >= 1000 ? (v / 1000).toFixed(v >= 10000 ? 1 : 2) + ' ms' : v.toFixed(v >= 100 ? 0 : 1) + ' µs');
  const cpu = (v) => (v < 0 ? '–' : ms(v) + ' ms');

  // ---- The panel's parts ----------------------------------------------------
  const file = mk('input', { type: 'file', id: 'trace-file', className: 'sr-only',
    accept: '.pftrace,.perfetto-trace,.pb,.trace,.txt,.dat,.html,.json,.gz,application/octet-stream,text/plain' });
  const run = mk('button', { type: 'button', id: 'trace-run', className: 'primary', textContent: '▶ Run', disabled: true,
    title: 'Replay the chosen window and processes under this page\'s scheduler, from time zero.' });
  const head = mk('div', { className: 'editor-head' },
    mk('h2', { className: 'editor-title', id: 'replay-title' }, 'Your trace ', mk('small', { textContent: 'Perfetto, ftrace text or trace.dat' })),
    mk('label', { className: 'button-like', htmlFor: 'trace-file', textContent: 'Upload…', title: 'Open a trace file from your computer.' }), file,
    mk('a', { className: 'editor-api', href: '/notes/mechanisms.html#replaying-a-recorded-trace', target: '_blank', rel: 'noopener',
      textContent: 'How it replays ↗', title: 'The replay model: run segments, wake edges, timed sleeps, and what is cut.' }),
    mk('span', { className: 'editor-spacer' }), run);
  const drop = mk('div', { className: 'trace-drop', id: 'trace-drop' },
    mk('strong', { textContent: 'Drop a trace file here' }), ' or use Upload. ', mk('span', { className: 'again', textContent: '(another one replaces this one)' }),
    mk('span', { className: 'dim', textContent: 'Perfetto protobuf, ftrace text (tracefs, trace-cmd report, systrace, perf script) or trace.dat, up to ' +
      mib(maxFileBytes) + '. It is read in your browser; Share stores the replay (up to 4 MiB) so its link replays it.' }));
  const status = mk('div', { className: 'editor-status', id: 'replay-status', role: 'status', ariaLive: 'polite' });
  const facts = mk('p', { className: 'trace-facts', id: 'trace-facts' });
  const from = mk('input', { type: 'number', id: 'trace-from', min: '0', step: 'any', value: '0', inputMode: 'decimal' });
  const to = mk('input', { type: 'number', id: 'trace-to', min: '0', step: 'any', inputMode: 'decimal' });
  const span = mk('span', { className: 'dim', id: 'trace-span' });
  const timed = mk('input', { type: 'checkbox', id: 'trace-timed' });
  const filters = mk('div', { className: 'trace-filters' },
    mk('label', { htmlFor: 'trace-from', textContent: 'Window from' }), from, mk('label', { htmlFor: 'trace-to', textContent: 'to' }), to,
    mk('span', { textContent: 'ms' }), span,
    mk('label', { className: 'trace-check', title: 'Replay every wakeup as a sleep of its recorded length (as LinSched does), instead of a dependency on its waker (as perf sched replay does): workload.trace_all_timed.' },
      timed, ' every wakeup timed'));
  const all = mk('input', { type: 'checkbox', id: 'trace-all', checked: true, title: 'All processes' });
  const procBody = mk('tbody', {});
  const procs = mk('div', { className: 'trace-table', id: 'trace-procs' }, mk('table', {},
    mk('thead', {}, mk('tr', {}, mk('th', { scope: 'col' }, all), mk('th', { scope: 'col', textContent: 'process · pid · threads' }),
      mk('th', { scope: 'col', textContent: 'CPU recorded' }))),
    procBody));
  const chosen = mk('div', { className: 'trace-chosen', hidden: true }, facts, filters,
    mk('p', { className: 'trace-caption', textContent: 'Processes and threads found, busiest first. Untick one to leave it out: the wakeups it made become timed sleeps.' }), procs);
  const results = mk('div', { className: 'trace-table', id: 'trace-results' });
  card.setAttribute('aria-labelledby', 'replay-title');
  card.replaceChildren(head, drop, status, chosen, results);

  // ---- The trace worker -------------------------------------------------------
  // One worker, started with the first file; each message gets one answer,
  // in order.
  let worker = null;
  const waiting = [];
  const send = (msg, transfer) => new Promise((resolve, reject) => {
    if (!worker) {
      worker = new Worker('/trace-worker.js');
      worker.onmessage = (e) => {
        const d = e.data;
        if (d.op === 'fatal') { while (waiting.length) waiting.shift().reject(new Error(d.error)); worker.terminate(); worker = null; return; }
        const w = waiting.shift();
        if (w) (d.error ? w.reject(new Error(d.error)) : w.resolve(d));
      };
      worker.onerror = (e) => { while (waiting.length) waiting.shift().reject(new Error('the trace worker failed: ' + e.message)); };
    }
    waiting.push({ resolve, reject });
    worker.postMessage(msg, transfer || []);
  });

  // ---- State and drawing ------------------------------------------------------
  let sum = null; // the open file's summary
  let sec = null; // the model's replay section
  let busy = false;
  let note = null; // {cls, text}

  const say = (cls, text) => { note = cls ? { cls, text } : null; drawStatus(); };
  function drawStatus() {
    const kids = [];
    if (note) kids.push(mk('div', { className: note.cls, textContent: note.text }));
    if (sec && sec.runs && !(note && note.cls === 'err')) {
      kids.push(mk('div', { className: 'ok', textContent: '✓ Replaying ' + sec.name + ': ' + sec.threads + ' threads, ' + ms(sec.window_ms) +
        ' ms recorded on ' + sec.cpus + ' CPUs' + (sec.all_timed ? ', every wakeup timed' : '') + '.' }));
      if (!sum) kids.push(mk('div', { className: 'pending', textContent: 'This link replays a trace; upload the file to choose another window or other processes.' }));
      kids.push(mk('div', { className: 'pending', textContent: 'Share stores the replay (up to ' + sec.share_limit_text + ') and copies a link that replays it.' }));
    }
    status.replaceChildren(...kids);
    run.disabled = !sum || busy;
  }

  function drawSummary() {
    chosen.hidden = !sum;
    drop.classList.toggle('compact', !!sum);
    if (!sum) return;
    facts.replaceChildren(mk('b', { textContent: sum.name }), ' · ' + sum.format + ' · ' + size(sum.bytes) + ' · ' + sum.cpus + ' CPUs' +
      (sum.too_many_cpus ? ' (replayed on 128)' : '') + ' · ' + ms(sum.duration_ms) + ' ms · ' + sum.events.toLocaleString('en') + ' events · ' +
      sum.threads + ' threads in ' + (sum.processes.length + (sum.more_processes || 0)) + ' processes' +
      (sum.lost_events ? ' · ' + sum.lost_events + ' CPU buffers lost events' : ''));
    from.value = '0';
    to.value = ms(sum.duration_ms);
    from.max = to.max = String(sum.duration_ms);
    span.textContent = '(of ' + ms(sum.duration_ms) + ')';
    all.checked = true;
    const rows = [];
    for (const p of sum.processes) {
      const box = mk('input', { type: 'checkbox', checked: true, value: String(p.pid), className: 'trace-pick', title: 'Replay ' + p.name + ' (' + p.pid + ')' });
      box.addEventListener('change', () => { all.checked = [...procBody.querySelectorAll('.trace-pick')].every((b) => b.checked); });
      const threads = mk('details', { className: 'trace-threads' }, mk('summary', {}, mk('span', { className: 'trace-name', textContent: p.name || '?' }),
        mk('span', { className: 'dim', textContent: ' ' + p.pid + ' · ' + p.threads.length + (p.threads.length === 1 ? ' thread' : ' threads') })),
      mk('ul', {}, ...p.threads.map((t) => mk('li', {}, mk('span', { textContent: t.name || '?' }), mk('span', { className: 'dim', textContent: ' tid ' + t.tid }),
        mk('span', { className: 'num', textContent: cpu(t.cpu_ms) })))));
      rows.push(mk('tr', {}, mk('td', {}, box), mk('td', {}, threads), mk('td', { className: 'num', textContent: cpu(p.cpu_ms) })));
    }
    if (sum.more_processes) rows.push(mk('tr', {}, mk('td'), mk('td', { className: 'dim', colSpan: 2, textContent: '… and ' + sum.more_processes + ' more: replayed while every listed one is ticked' })));
    procBody.replaceChildren(...rows);
  }
  all.addEventListener('change', () => { for (const b of procBody.querySelectorAll('.trace-pick')) b.checked = all.checked; });

  // drawResults: each process's CPU time and wake-to-run p99, as recorded and
  // as each arm replayed it.
  function drawResults() {
    if (!sec || !sec.runs || !(sec.processes || []).length) { results.replaceChildren(); return; }
    const cols = sec.columns;
    const sub = (start) => cols.map((c, i) => mk('th', { scope: 'col', className: i === 0 ? 'rec' + start : '', textContent: c, title: sec.titles[i] }));
    const head = [mk('tr', {}, mk('th', { scope: 'col', rowSpan: 2, textContent: 'process' }),
      mk('th', { scope: 'colgroup', colSpan: cols.length, className: 'group', textContent: 'CPU time' }),
      mk('th', { scope: 'colgroup', colSpan: cols.length, className: 'group group-start', textContent: 'wake-to-run p99' })),
    mk('tr', {}, ...sub(''), ...sub(' group-start'))];
    const rows = sec.processes.map((p) => mk('tr', {}, mk('th', { scope: 'row' }, p.name || '?', mk('span', { className: 'dim', textContent: ' ' + p.pid })),
      ...p.cpu_ms.map((v, i) => mk('td', { className: i === 0 ? 'rec' : '', textContent: cpu(v) })),
      ...p.p99_us.map((v, i) => mk('td', { className: i === 0 ? 'rec group-start' : '', textContent: us(v) }))));
    results.replaceChildren(mk('table', {}, mk('caption', { textContent: sec.caption }), mk('thead', {}, ...head), mk('tbody', {}, ...rows)));
  }

  // ---- Opening a file and running it ------------------------------------------------
  async function openFile(f) {
    if (!f || busy) return;
    open();
    if (f.size > maxFileBytes) {
      say('err', f.name + ' is ' + size(f.size) + ', above the page\'s limit of ' + mib(maxFileBytes) + ' for a trace file: cut a window of it with the CLI (schedplay run --window).');
      return;
    }
    busy = true;
    say('pending', 'Reading ' + f.name + ' (' + size(f.size) + ')…');
    try {
      const data = await f.arrayBuffer();
      const r = await send({ op: 'open', name: f.name, data }, [data]);
      sum = JSON.parse(r.summary);
      say('pending', 'Choose the window and processes, then Run.');
    } catch (e) {
      sum = null;
      say('err', 'Not opened: ' + e.message);
    }
    busy = false;
    drawSummary();
    drawStatus();
  }

  async function doRun() {
    const core = page.core();
    if (!core || !sum || busy) return;
    const picks = [...procBody.querySelectorAll('.trace-pick')];
    const chosenPids = picks.filter((b) => b.checked).map((b) => Number(b.value));
    if (!chosenPids.length) { say('err', 'Not run: no process is chosen.'); return; }
    const fromMs = Number(from.value) || 0;
    let toMs = Number(to.value) || 0;
    if (toMs >= sum.duration_ms) toMs = 0; // to the end
    const choice = { from_ms: fromMs, to_ms: toMs };
    if (!all.checked) choice.pids = chosenPids;
    busy = true;
    say('pending', 'Building the replay…');
    try {
      const r = await send({ op: 'model', choice: JSON.stringify(choice) });
      const refusal = core.setTrace(r.model, sum.name, timed.checked);
      if (refusal) throw new Error(refusal);
      say(null);
      page.refresh();
    } catch (e) {
      say('err', 'Not run: ' + e.message);
    }
    busy = false;
    drawStatus();
  }
  run.addEventListener('click', doRun);
  file.addEventListener('change', () => { const f = file.files && file.files[0]; file.value = ''; openFile(f); });

  // Drop: anywhere on the panel.
  for (const t of ['dragenter', 'dragover']) {
    card.addEventListener(t, (e) => { if ([...(e.dataTransfer?.types || [])].includes('Files')) { e.preventDefault(); drop.classList.add('over'); } });
  }
  card.addEventListener('dragleave', (e) => { if (!card.contains(e.relatedTarget)) drop.classList.remove('over'); });
  card.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    openFile(e.dataTransfer && e.dataTransfer.files[0]);
  });

  let opened = false;
  function open() {
    opened = true;
    card.hidden = false;
  }

  page.on('settings', (s) => { if (s.embed) card.hidden = true; });
  page.on('replay', (r) => {
    sec = r;
    if (r.runs && !opened && !document.body.classList.contains('embed')) open();
    drawStatus();
    drawResults();
  });
  // "Your own → Trace", after the editors' buttons.
  page.on('meta', () => {
    const ctl = document.querySelector('.own-group .own-ctl');
    if (!ctl || ctl.querySelector('#trace-open')) return;
    const b = mk('button', { type: 'button', className: 'own-open', id: 'trace-open', textContent: '⇪ Trace (Perfetto, ftrace, trace.dat)',
      title: 'Open a recorded Linux trace and replay its processes and threads under this page\'s scheduler.' });
    b.addEventListener('click', () => { open(); card.scrollIntoView({ behavior: 'smooth', block: 'nearest' }); });
    ctl.append(b);
  });
  drawStatus();
})();
