// schedplay engine worker: starts static/schedplay-worker.wasm (the engine and a
// runner.Server, see wasm/worker) in this dedicated worker. Messages that arrive
// while it loads wait in self.schedplayQueue; the Go program takes them and then
// handles self.onmessage itself. A failure to start, or the program ending (an
// engine panic), is posted to the page as {error}, which it shows instead of
// waiting. Started as engine-worker.js?job=trace, the same program writes one
// Chrome trace for the page's download and ends (wasm/worker/trace_js.go).
// With policy=1 it starts static/schedplay-policy-worker.wasm instead: the same
// program with the Starlark interpreter, for arms that run a sched_ext policy
// of the user's (sched.scx.source); the default one carries none.
'use strict';
importScripts('/wasm_exec.js');
const params = new URLSearchParams(self.location.search);
self.schedplayJob = params.get('job') || 'engine';
const wasmURL = params.get('policy') === '1' ? '/schedplay-policy-worker.wasm' : '/schedplay-worker.wasm';
self.schedplayQueue = [];
self.onmessage = (e) => { self.schedplayQueue.push(e.data); };
(async () => {
  const go = new Go();
  let inst;
  try {
    inst = (await WebAssembly.instantiateStreaming(fetch(wasmURL), go.importObject)).instance;
  } catch (streamErr) {
    // A server without the application/wasm type: fall back to a plain fetch,
    // and if that fails too, say both why.
    const resp = await fetch(wasmURL);
    if (!resp.ok) throw new Error(wasmURL + ': HTTP ' + resp.status + ' (' + streamErr.message + ')');
    try {
      inst = (await WebAssembly.instantiate(await resp.arrayBuffer(), go.importObject)).instance;
    } catch (e) {
      throw new Error(e.message + ' (streaming: ' + streamErr.message + ')');
    }
  }
  // An engine worker's program never returns on its own: if it does, the engine
  // panicked. A trace job's returns after posting its answer, or without one if
  // it panicked: {ended} comes after whatever it posted, so the page knows.
  await go.run(inst);
  if (self.schedplayJob === 'trace') self.postMessage({ ended: true });
  else self.postMessage({ error: 'the engine worker stopped (the browser console has the reason)' });
})().catch((e) => self.postMessage({ error: 'the engine worker failed to start: ' + e.message }));
