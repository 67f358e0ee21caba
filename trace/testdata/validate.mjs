// A second, independent check of a schedplay trace (Chrome trace-event JSON),
// in JavaScript with only Node's standard library, the language the viewers are
// written in. Usage: node validate.mjs TRACE.json
//
// It checks what Perfetto's legacy JSON importer and chrome://tracing need:
// the object form with a traceEvents array, required members per phase, no
// arrays inside events, B/E pairs that never overlap on a track, timestamps in
// order per track, every flow start matched by one flow end bound to an instant
// at the same time on its track, and decisions with a reason.
// Prints "ok: N events ..." and exits 0, or prints the first problem and exits 1.
import { readFileSync } from "node:fs";
import { argv, exit } from "node:process";

function fail(msg) {
  console.error("invalid trace: " + msg);
  exit(1);
}

const path = argv[2];
if (!path) fail("usage: node validate.mjs TRACE.json");
let doc;
try {
  doc = JSON.parse(readFileSync(path, "utf8"));
} catch (e) {
  fail("not JSON: " + e.message);
}
if (doc === null || typeof doc !== "object" || Array.isArray(doc)) fail("top level is not an object");
if (!Array.isArray(doc.traceEvents)) fail("traceEvents is not an array");
if (doc.displayTimeUnit !== "ns" && doc.displayTimeUnit !== "ms") fail("displayTimeUnit is " + doc.displayTimeUnit);

function hasArray(v) {
  if (Array.isArray(v)) return true;
  if (v && typeof v === "object") return Object.values(v).some(hasArray);
  return false;
}

const open = new Map(); // tid -> open slice name
const last = new Map(); // track -> last ts
const prev = new Map(); // tid -> previous event on the track
const flows = new Map(); // id -> {ended, cat, name}
const names = new Map(); // tid -> thread_name
const counts = {};
doc.traceEvents.forEach((e, i) => {
  const where = `event ${i} (${JSON.stringify(e).slice(0, 120)})`;
  if (e === null || typeof e !== "object" || Array.isArray(e)) fail(`${where}: not an object`);
  if (hasArray(e)) fail(`${where}: holds an array`);
  if (typeof e.ph !== "string") fail(`${where}: no ph`);
  if (typeof e.ts !== "number" || e.ts < 0) fail(`${where}: ts is not a number >= 0`);
  if (e.pid !== 1) fail(`${where}: pid is not 1`);
  const needTid = e.ph !== "C" && !(e.ph === "M" && e.name === "process_name");
  if (needTid && !(Number.isInteger(e.tid) && e.tid > 0)) fail(`${where}: no positive integer tid`);
  counts[e.ph] = (counts[e.ph] || 0) + 1;
  if (e.ph !== "M") {
    const track = e.ph === "C" ? "C:" + e.name : "t:" + e.tid;
    if (last.has(track) && e.ts < last.get(track)) fail(`${where}: ts goes back on its track`);
    last.set(track, e.ts);
  }
  switch (e.ph) {
    case "M":
      if (e.name === "thread_name") names.set(e.tid, e.args && e.args.name);
      else if (e.name !== "process_name" && e.name !== "thread_sort_index") fail(`${where}: unknown metadata`);
      break;
    case "B":
      if (!e.name) fail(`${where}: B without name`);
      if (open.has(e.tid)) fail(`${where}: overlaps open slice ${open.get(e.tid)}`);
      open.set(e.tid, e.name);
      break;
    case "E":
      if (!open.has(e.tid)) fail(`${where}: E without an open slice`);
      open.delete(e.tid);
      break;
    case "X":
      if (typeof e.dur !== "number" || e.dur < 0) fail(`${where}: X without dur >= 0`);
      break;
    case "i":
      if (e.s !== "t" || !e.name || !e.cat) fail(`${where}: instant needs s "t", name, cat`);
      if (e.cat === "decision" && !(e.args && typeof e.args.reason === "string" && e.args.reason))
        fail(`${where}: decision without a reason`);
      break;
    case "s":
    case "f": {
      const p = prev.get(e.tid);
      if (!p || p.ph !== "i" || p.ts !== e.ts) fail(`${where}: flow event not right after an instant at its time`);
      if (e.id === undefined || !e.name || !e.cat) fail(`${where}: flow needs id, name, cat`);
      if (e.ph === "s") {
        if (flows.has(e.id)) fail(`${where}: flow id reused`);
        flows.set(e.id, { ended: false, cat: e.cat, name: e.name, ts: e.ts });
      } else {
        const s = flows.get(e.id);
        if (e.bp !== "e") fail(`${where}: flow end without bp "e"`);
        if (!s || s.ended) fail(`${where}: flow end without an open start`);
        if (s.cat !== e.cat || s.name !== e.name || e.ts < s.ts) fail(`${where}: flow end does not match its start`);
        s.ended = true;
      }
      break;
    }
    case "C":
      if (!e.name || !e.args || !Object.values(e.args).every((v) => typeof v === "number")) fail(`${where}: bad counter`);
      break;
    default:
      fail(`${where}: unexpected phase`);
  }
  if (e.ph !== "M" && e.ph !== "C") prev.set(e.tid, e);
});
for (const [tid, name] of open) fail(`slice ${name} on tid ${tid} never ends`);
for (const [id, f] of flows) if (!f.ended) fail(`flow ${id} never ends`);
for (const tid of last.keys()) {
  const t = Number(tid.slice(2));
  if (tid.startsWith("t:") && !names.get(t)) fail(`tid ${t} has events but no thread_name`);
}
console.log(`ok: ${doc.traceEvents.length} events ${JSON.stringify(counts)}, ${flows.size} flows`);
