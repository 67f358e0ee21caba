// schedplay trace download: one button per arm saves the last simulated
// milliseconds before the moment shown as the Chrome trace JSON `schedplay run
// --trace` writes, for Perfetto. The model says what each button offers (the
// snapshot's trace section) and writes the job (playground/trace.go); a worker of
// its own (engine-worker.js?job=trace, wasm/worker/trace_js.go) re-runs the arm
// from zero and writes the trace; this script moves the bytes and saves the file.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const box = $('trace-buttons');
  const status = $('trace-status');
  let running = null; // {worker, arm}
  let note = ''; // what the last download came to
  let ui = null; // the snapshot's trace section, as last given

  window.schedplayPage.on('trace', (u) => { ui = u; render(); });

  // render draws the buttons from the model's section and this script's own
  // state (a download under way, what the last one came to).
  function render() {
    if (!ui) return;
    while (box.children.length > ui.arms.length) box.lastChild.remove();
    ui.arms.forEach((a, i) => {
      let b = box.children[i];
      if (!b) {
        b = document.createElement('button');
        b.type = 'button';
        b.addEventListener('click', () => download(i));
        box.append(b);
      }
      b.textContent = (running && running.arm === i) ? 'Cancel' : '⤓ ' + a.label;
      b.title = a.disabled || 'Save ' + a.window + ' of simulated time as a Chrome trace (open it at ui.perfetto.dev).';
      b.disabled = !!(a.disabled || (running && running.arm !== i));
    });
    $('trace-window').textContent = ui.arms.length ? 'last 10 ms' : '';
    if (!running) status.textContent = ui.disabled || note;
  }

  function finish(msg) {
    if (running) running.worker.terminate();
    running = null;
    note = msg;
    render();
  }

  function download(arm) {
    if (running) { finish('Cancelled.'); return; }
    const res = window.schedplayCore.traceJob(arm);
    if (res.error) { note = res.error; render(); return; }
    const worker = new Worker('/engine-worker.js?job=trace' + (res.policy ? '&policy=1' : ''));
    running = { worker, arm };
    status.textContent = 'Preparing the trace: re-running the arm…';
    worker.onmessage = (e) => {
      const d = e.data;
      if (d instanceof ArrayBuffer) {
        const url = URL.createObjectURL(new Blob([d], { type: 'application/json' }));
        const a = document.createElement('a');
        a.href = url;
        a.download = res.file;
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60000);
        finish('Saved ' + res.file + ' (' + (d.byteLength / 1e6).toFixed(1) + ' MB): open it at ui.perfetto.dev.');
      } else if (d && d.ended) {
        // The program ended; after an answer the worker is already gone.
        finish('The trace failed: the worker writing it stopped without an answer (the browser console has the reason).');
      } else if (d && d.progress !== undefined) {
        status.textContent = 'Preparing the trace: ' + Math.round(100 * d.progress) + '%';
      } else {
        finish('The trace failed: ' + ((d && d.error) || 'no answer'));
      }
    };
    worker.onerror = (e) => finish('The worker writing the trace failed: ' + e.message);
    const job = res.job;
    worker.postMessage(job.buffer, [job.buffer]);
    render();
  }
})();
