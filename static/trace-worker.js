// schedplay trace worker: starts static/schedplay-trace-worker.wasm (the trace
// decoders, see wasm/tracedecoder) in this dedicated worker, which the trace
// panel (editors.js) starts when it first opens a file. Messages that arrive
// while it loads wait in self.schedplayQueue; the Go program takes them and
// then handles self.onmessage itself. A failure to start, or the program
// ending, is posted as {op: 'fatal', error}.
'use strict';
importScripts('/wasm_exec.js');
self.schedplayQueue = [];
self.onmessage = (e) => { self.schedplayQueue.push(e.data); };
(async () => {
  const go = new Go();
  const url = '/schedplay-trace-worker.wasm';
  let inst;
  try {
    inst = (await WebAssembly.instantiateStreaming(fetch(url), go.importObject)).instance;
  } catch (streamErr) {
    const resp = await fetch(url);
    if (!resp.ok) throw new Error(url + ': HTTP ' + resp.status + ' (' + streamErr.message + ')');
    inst = (await WebAssembly.instantiate(await resp.arrayBuffer(), go.importObject)).instance;
  }
  await go.run(inst);
  self.postMessage({ op: 'fatal', error: 'the trace worker stopped (the browser console has the reason)' });
})().catch((e) => self.postMessage({ op: 'fatal', error: 'the trace worker failed to start: ' + e.message }));
