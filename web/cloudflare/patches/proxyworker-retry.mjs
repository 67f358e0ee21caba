// Patches wrangler dev's ProxyWorker (wrangler-dist/ProxyWorker.js in the
// pinned wrangler) so that a request whose forwarding to the Worker loses its
// connection is sent again on a fresh one, instead of being parked for ever
// (a GET) or failed (a request with a body). It runs as web/cloudflare's npm
// postinstall, so `npm ci` applies it.
//
// Why: wrangler dev puts a proxy (the ProxyWorker, a Durable Object in its own
// workerd) in front of the Worker's workerd and forwards each request over a
// pooled keep-alive connection. The Worker's workerd drops a connection that
// sat idle for about 5 s, or whose request it did not read in time while the
// isolate was busy (as it is while a burst of share previews runs), and the
// request fails with "Network connection lost" without the Worker seeing it.
// wrangler's catch then asks whether the Worker was restarted by comparing the
// forwarded URL, path included, with the Worker's base URL (path "/"). For every
// path but "/" it decides "restarted": it parks a GET in a retry queue that only
// a later request or a reload drains, so with no later request the GET waits for
// ever, and it answers a POST 503 "Your worker restarted mid-request".
//
// The patch makes three changes:
//   - the restart check compares origins, the question the code means to ask;
//   - a request's body is read before it is forwarded, so that it can be sent
//     again (wrangler streams it once; this is a local dev proxy, and the
//     bodies it carries here are scenarios of a few kilobytes);
//   - when the Worker has not changed, a lost connection is retried after a
//     pause that doubles from 100 ms, up to seven times (about 13 s in all),
//     before the error is reported as wrangler reports it. Retried at once, a
//     request failed the same way three times in a row (it takes another
//     connection from the same pool before the pool has seen the closes);
//     after 100 ms the first retry was answered in every case seen.
// A share is content-addressed, so a share the Worker did see being sent again
// stores the same record. The later ProxyWorker (cloudflare/workers-sdk#15252)
// retries bodyless requests on a fresh connection; that wrangler needs Node 22,
// and this repository pins the last wrangler that runs on Node 20.
//
// The patch is idempotent and refuses a file it does not recognise, so a
// wrangler upgrade fails `npm ci` loudly instead of running unpatched;
// cloudflare_test.go refuses to start an unpatched wrangler dev.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const marker = "schedplay patch (web/cloudflare/patches/proxyworker-retry.mjs)";
const wanted = "4.86.0";

const require = createRequire(import.meta.url);
const pkgPath = require.resolve("wrangler/package.json");
const version = JSON.parse(readFileSync(pkgPath, "utf8")).version;
if (version !== wanted) {
  fail(`written for wrangler ${wanted}, found ${version}: check whether it still needs the patch, then update or drop it`);
}
const file = join(dirname(pkgPath), "wrangler-dist", "ProxyWorker.js");
let source = readFileSync(file, "utf8");
if (source.includes(marker)) {
  process.exit(0);
}

const edits = [
  {
    what: "read a request's body before queueing it",
    from: `    const deferred = createDeferred();
    this.requestQueue.set(request, deferred);
    this.processQueue();
    return deferred.promise;`,
    to: `    const deferred = createDeferred();
    // ${marker}: keep the body so that the request can be sent again.
    if (request.body === null) {
      this.requestQueue.set(request, deferred);
      this.processQueue();
    } else {
      request.arrayBuffer().then((body) => {
        (this.schedplayBodies ??= /* @__PURE__ */ new WeakMap()).set(request, body);
        this.requestQueue.set(request, deferred);
        this.processQueue();
      }, (error) => deferred.reject(error));
    }
    return deferred.promise;`,
  },
  {
    what: "forward the kept body",
    from: `      void fetch(userWorkerUrl, new Request(request, { headers })).then(`,
    to: `      const schedplayBody = this.schedplayBodies?.get(request);
      void fetch(userWorkerUrl, new Request(request, schedplayBody === void 0 ? { headers } : { headers, body: schedplayBody })).then(`,
  },
  {
    what: "compare origins, and retry a lost connection on the same Worker",
    from: `        const newUserWorkerUrl = this.proxyData && urlFromParts(this.proxyData.userWorkerUrl);
        if (userWorkerUrl.href === newUserWorkerUrl?.href) {`,
    to: `        const newUserWorkerUrl = this.proxyData && urlFromParts(this.proxyData.userWorkerUrl);
        // ${marker}: the same Worker is the same origin; retry it.
        const sameUserWorker = userWorkerUrl.origin === newUserWorkerUrl?.origin;
        const attempts = this.schedplayAttempts ??= /* @__PURE__ */ new WeakMap();
        const attempt = attempts.get(request) ?? 1;
        if (sameUserWorker && attempt < 8) {
          attempts.set(request, attempt + 1);
          setTimeout(() => {
            this.requestRetryQueue.set(request, deferredResponse);
            this.processQueue();
          }, 50 * 2 ** attempt);
        } else if (sameUserWorker) {`,
  },
];
for (const { what, from, to } of edits) {
  const at = source.indexOf(from);
  if (at < 0 || source.indexOf(from, at + 1) >= 0) {
    fail(`${file} does not contain the text to change exactly once (${what})`);
  }
  source = source.replace(from, to);
}
writeFileSync(file, source);
console.log(`patched ${file}: a lost connection to the Worker is retried`);

function fail(message) {
  console.error(`patches/proxyworker-retry.mjs: ${message}`);
  process.exit(1);
}
