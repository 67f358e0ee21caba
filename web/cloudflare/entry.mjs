// Entry module of the schedplay Cloudflare Worker.
//
// Workers assets answer every path that names a file in the bundle without
// running this code. What is left reaches fetch below: the share routes go to the
// Go handler (main.go, built to build/app.wasm), anything else is a 404 answered
// here, so a stray /favicon.ico never wakes Go. The Go routes are /api/*, /s/*
// (share pages, their preview cards and charts) and /oembed.
//
// One Go instance serves every request of an isolate. Starting Go (a
// WebAssembly.Instance, the runtime, package init, main) costs tens of
// milliseconds of CPU; a request on a running instance costs a few.
// syumai/workers' generated build/worker.mjs starts a new instance for every
// request, so it is not used; its runtime.mjs and wasm_exec.js are.
import "./build/wasm_exec.js"; // defines globalThis.Go
import { createRuntimeContext } from "./build/runtime.mjs";
import goModule from "./build/app.wasm"; // compiled once, when this module loads

// running is the isolate's Go instance, { go, context }, or undefined until the
// first share request.
let running;

// start runs a new Go instance. All of it up to main's workers.Ready call runs
// synchronously inside go.run, so start needs no await: concurrent first
// requests cannot start two, and no request waits on a promise that another
// request made (workerd cancels such a continuation once that request ends).
function start() {
  const go = new Go();
  // Go reads this object as its global `context` for the instance's whole life:
  // the shim puts its request handler in binding; fetch sets env and ctx.
  const context = createRuntimeContext({ env: undefined, ctx: undefined, binding: {} });
  let ready = false;
  const instance = new WebAssembly.Instance(goModule, {
    ...go.importObject,
    workers: { ready: () => { ready = true; } },
  });
  go.run(instance, context); // its promise settles only if the program exits
  if (!ready) {
    throw new Error("cloudflare: Go's main did not call workers.Ready before it first waited");
  }
  return { go, context };
}

// goInstance returns the running Go instance, starting one if there is none or
// the last one has exited (a crash: main never returns).
function goInstance() {
  if (running === undefined || running.go.exited) {
    running = start();
  }
  return running;
}

function goRoute(pathname) {
  return pathname.startsWith("/api/") || pathname.startsWith("/s/") || pathname === "/oembed";
}

export default {
  async fetch(request, env, ctx) {
    if (!goRoute(new URL(request.url).pathname)) {
      return new Response("not found\n", {
        status: 404,
        headers: {
          "Content-Type": "text/plain; charset=utf-8",
          "X-Content-Type-Options": "nosniff",
        },
      });
    }
    const { context } = goInstance();
    // Hand this request's env and ctx to the running instance. Go runs the
    // handler's start, where main.go reads its bindings, within handleRequest's
    // call, so concurrent requests never see each other's.
    context.env = env;
    context.ctx = ctx;
    return context.binding.handleRequest(request);
  },
};
