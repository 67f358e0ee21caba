// schedplay engine worker: starts static/schedplay-worker.wasm (the engine and a
// runner.Server, see wasm/worker) in this dedicated worker. Messages that arrive
// while it loads wait in self.schedplayQueue; the Go program takes them and then
// handles self.onmessage itself. A failure to start, or the program ending (an
// engine panic), is posted to the page as {error}, which it shows instead of
// waiting.
'use strict';
importScripts('/wasm_exec.js');
self.schedplayQueue = [];
self.onmessage = (e) => { self.schedplayQueue.push(e.data); };
(async () => {
  const go = new Go();
  let inst;
  try {
    inst = (await WebAssembly.instantiateStreaming(fetch('/schedplay-worker.wasm'), go.importObject)).instance;
  } catch (e) {
    // A server without the application/wasm type: fall back to a plain fetch.
    const buf = await (await fetch('/schedplay-worker.wasm')).arrayBuffer();
    inst = (await WebAssembly.instantiate(buf, go.importObject)).instance;
  }
  // The program never returns on its own: if it does, the engine panicked.
  await go.run(inst);
  self.postMessage({ error: 'the engine worker stopped (the browser console has the reason)' });
})().catch((e) => self.postMessage({ error: 'the engine worker failed to start: ' + e.message }));
