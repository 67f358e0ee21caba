// schedplay page script: loads the wasm, builds the HTML controls from the model's
// description of them, mirrors the model into the DOM, keeps the URL fragment in
// step, and exposes window.schedplay. It decides nothing about the simulation or
// what is drawn, nor when a part of the page changed: that is all Go (playground,
// view), reached through window.schedplayCore, whose functions take and return
// strings. One loop, once a frame, reads the model's snapshot of the sections
// newer than the last it saw, and redraws only those (playground/snapshot.go).
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const stage = $('stage');
  const SVG = 'http://www.w3.org/2000/svg';

  // Ebiten sizes its canvas (in device pixels) from document.body's client size and
  // re-reads it on window resize. The canvas lives inside the stage, so answer with
  // the stage's size, and turn stage resizes into resize events.
  for (const prop of ['clientWidth', 'clientHeight']) {
    Object.defineProperty(document.body, prop, { configurable: true, get: () => stage[prop] });
  }
  new ResizeObserver(() => window.dispatchEvent(new Event('resize'))).observe(stage);

  // Ebiten listens on its canvas and cancels the default actions of touches, the
  // wheel and keys: the page could not be scrolled over the stage and Tab could not
  // leave the canvas. The page does its own canvas input (taps, clicks, arrow keys),
  // so these events stop at the stage, before they reach Ebiten.
  for (const type of ['touchstart', 'touchmove', 'touchend', 'touchcancel', 'wheel', 'keydown', 'keyup',
    'mousedown', 'mouseup', 'mousemove', 'contextmenu']) {
    stage.addEventListener(type, (e) => {
      if (e.target.tagName !== 'CANVAS') return;
      e.stopPropagation();
      if (type === 'keydown') canvasKey(e);
    }, { capture: true, passive: type !== 'keydown' });
  }

  // A page under /s/{id} shows a shared scenario; fetch it while the wasm loads.
  let sharedError = '';
  let shared = null;
  const shareMatch = location.pathname.match(/^\/s\/([A-Za-z0-9_-]{1,64})\/?$/);
  const sharedP = shareMatch
    ? fetch('/api/share/' + shareMatch[1]).then((r) => {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.text();
    }).catch((e) => { sharedError = 'shared scenario ' + shareMatch[1] + ': ' + e.message + '; showing the default preset'; return null; })
    : Promise.resolve(null);

  let core = null;
  // view holds the newest content of each snapshot section, by name; seq is the
  // newest version seen (the next read's since).
  const view = {};
  let seq = 0;
  let lastHash = null;
  // cost is what mirroring the model into the page takes (wall ms and calls of
  // the refresh callbacks), for the frame-budget probe (e2e/measure_test.go).
  const cost = { ms: 0, calls: 0 };
  const timed = (fn) => (...args) => {
    const t0 = performance.now();
    try { return fn(...args); } finally { cost.ms += performance.now() - t0; cost.calls++; }
  };
  // The page's other scripts (lesson.js, trace.js) draw their own sections:
  // on(name, fn) calls fn with the section's content whenever it changes.
  // Between the page's own scripts; not part of window.schedplay.
  const redraw = {};
  // A script that registers after a section arrived is given it at once.
  const on = (name, fn) => {
    (redraw[name] = redraw[name] || []).push(fn);
    if (view[name]) fn(view[name]);
  };
  // core() is the model's handle once the wasm runs (null before), and
  // refresh() mirrors a change made through it at once; typingIn(target) says
  // whether a key there is text being typed (no page shortcut may take it).
  window.schedplayPage = { on, core: () => core, refresh: () => refresh(), typingIn };
  let readyResolve;
  const ready = new Promise((r) => { readyResolve = r; });

  async function start() {
    // Marks for the load-time budget (read by e2e/measure_test.go).
    performance.mark('schedplay:script');
    const go = new Go();
    let inst;
    try {
      inst = (await WebAssembly.instantiateStreaming(fetch('/schedplay.wasm'), go.importObject)).instance;
    } catch (e) {
      // A server without the application/wasm type: fall back to a plain fetch.
      const buf = await (await fetch('/schedplay.wasm')).arrayBuffer();
      inst = (await WebAssembly.instantiate(buf, go.importObject)).instance;
    }
    performance.mark('schedplay:compiled');
    shared = await sharedP;
    window.schedplayBoot = { fragment: location.hash, shared, share: shared && shareMatch ? shareMatch[1] : '' };
    go.run(inst); // runs main until Ebiten waits for the first frame
    performance.mark('schedplay:main');
    core = window.schedplayCore;
    const canvas = document.querySelector('body > canvas');
    if (canvas) {
      canvas.setAttribute('aria-label', 'vCPU tiles: click a tile or a thread chip, or use the arrow keys, for an explanation below');
      canvas.setAttribute('role', 'img');
      stage.appendChild(canvas);
      window.scrollTo(0, 0); // Ebiten focuses the canvas, which scrolls it into view
      // A tap or click selects: pointer events arrive for mouse, pen and touch alike.
      let down = null;
      canvas.addEventListener('pointerdown', (e) => { down = [e.offsetX, e.offsetY]; canvas.focus({ preventScroll: true }); });
      canvas.addEventListener('pointerup', (e) => {
        if (down && Math.hypot(e.offsetX - down[0], e.offsetY - down[1]) < 12) { core.click(e.offsetX, e.offsetY); refresh(); }
        down = null;
      });
      window.dispatchEvent(new Event('resize'));
    }
    $('loading').remove();
    refresh();
    performance.mark('schedplay:ui');
    // The next frame is asked for first, so an exception in one redraw does not
    // stop the page following the model.
    const loop = () => { requestAnimationFrame(loop); refresh(); };
    requestAnimationFrame(loop);
    readyResolve();
  }

  // ---- Commands -------------------------------------------------------------

  function set(path, value) {
    const err = core.set(path, String(value));
    refresh();
    return err || null;
  }
  function cmd(name, ...args) { const r = core.cmd(name, ...args); refresh(); return r; }

  // ---- Building the controls from meta --------------------------------------

  function el(tag, attrs = {}, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'text') e.textContent = v; else if (v !== undefined && v !== null) e.setAttribute(k, v);
    }
    for (const k of kids) e.append(k);
    return e;
  }

  function fillSelect(sel, options, value) {
    sel.replaceChildren(...options.map((o) => el('option', { value: o.value, text: o.label })));
    if (value !== undefined) sel.value = value;
  }

  function buildControls(meta) {
    applyCSS(meta.css);
    fillSelect($('preset'), meta.trace ? [{ value: '', label: 'trace: ' + meta.trace }, ...meta.presets]
      : meta.shared ? [{ value: '', label: 'shared scenario' }, ...meta.presets] : meta.presets);
    fillSelect($('speed'), meta.speeds);
    fillSelect($('chart-metric'), meta.charts);
    const box = $('controls');
    box.replaceChildren();
    for (const group of meta.groups) {
      const ctls = meta.controls.filter((c) => c.group === group);
      if (!ctls.length) continue;
      const fs = el('fieldset', { class: 'group' }, el('legend', { text: group }));
      for (const c of ctls) fs.append(buildControl(c));
      box.append(fs);
    }
  }

  function buildControl(c) {
    // A select shows its own value; other controls show value and unit beside the label.
    const out = el('output', { id: c.id + '-val', for: c.id, hidden: c.kind === 'select' ? '' : null });
    const label = el('label', { for: c.id, text: c.label, title: c.tip });
    const head = el('div', { class: 'ctl-head' }, label, out);
    const note = el('div', { class: 'note', id: c.id + '-note' });
    let input;
    switch (c.kind) {
      case 'toggle':
        input = el('input', { type: 'checkbox', role: 'switch', class: 'switch', id: c.id, title: c.tip });
        input.addEventListener('change', () => set(c.path, input.checked ? '1' : '0'));
        return el('div', { class: 'ctl toggle', 'data-path': c.path }, el('div', { class: 'ctl-head' }, label, out), input, note);
      case 'select':
        input = el('select', { id: c.id, title: c.tip });
        fillSelect(input, c.options);
        input.addEventListener('change', () => set(c.path, input.value));
        break;
      case 'number':
        input = el('input', { type: 'number', id: c.id, title: c.tip, min: '0', step: '1', inputmode: 'numeric' });
        input.addEventListener('change', () => set(c.path, input.value));
        break;
      default: // range over a ladder of values
        input = el('input', { type: 'range', id: c.id, title: c.tip, min: '0', step: '1' });
        input.addEventListener('input', () => {
          const v = input._ladder ? input._ladder[+input.value] : input.value;
          set(c.path, v);
        });
    }
    return el('div', { class: 'ctl', 'data-path': c.path }, head, input, note);
  }

  function applyCSS(vars) {
    for (const [k, v] of Object.entries(vars || {})) document.documentElement.style.setProperty(k, v);
  }

  // ---- Mirroring the model into the page ------------------------------------

  // The sections in the order they are drawn: meta builds the controls the
  // others fill, settings comes before controls (the compare picker's value
  // before its options).
  const ORDER = ['meta', 'settings', 'notices', 'controls', 'clock', 'panes', 'cards', 'explain',
    'time_chart', 'sweep', 'hist', 'lesson', 'caption', 'trace', 'policy', 'workload', 'replay'];

  // refresh reads the sections newer than the last it saw and redraws them. A
  // new meta rebuilds the controls and pickers, so everything is redrawn on it.
  const refresh = timed(() => {
    if (!core) return;
    // A fragment the page did not write (typed, pasted, back button) is loaded
    // before anything else, so the page never writes over it.
    if (lastHash !== null && location.hash !== lastHash) {
      core.load(location.hash, shared);
      lastHash = location.hash;
    }
    const snap = JSON.parse(core.snapshot(seq));
    seq = snap.seq;
    const all = !!snap.meta;
    for (const name of ORDER) {
      const s = snap[name] || (all ? view[name] : undefined);
      if (!s) continue;
      view[name] = s;
      for (const f of redraw[name] || []) f(s);
    }
  });

  on('meta', buildControls);

  on('settings', (s) => {
    document.documentElement.classList.toggle('theme-light', s.theme === 'light');
    document.body.classList.toggle('embed', s.embed);
    document.body.classList.toggle('hide-controls', (s.hide || []).includes('controls'));
    document.body.classList.toggle('hide-charts', (s.hide || []).includes('charts'));
    $('embed-bar').hidden = !s.embed;
    for (const id of ['legend-rt', 'legend-dl']) $(id).hidden = !s.classes;
    $('legend-frames').hidden = !s.frames;
    $('legend-cross').hidden = !s.levels;
    // URL: replace (not push) so the back button is not flooded by slider moves.
    const hash = '#' + s.fragment;
    if (location.hash !== hash) history.replaceState(null, '', hash);
    lastHash = location.hash;
    if (document.activeElement !== $('preset')) $('preset').value = s.preset;
    const sum = $('summary');
    sum.replaceChildren();
    if (s.summary) sum.append('compare: ', el('b', { text: s.summary }), ', seed ' + s.seed);
    else sum.append('seed ' + s.seed);
    if (s.description) $('preset').title = s.description;
    if (document.activeElement !== $('speed')) $('speed').value = s.speed;
    $('show-ghosts').checked = s.ghosts;
    if (document.activeElement !== $('compare')) $('compare').value = s.compare;
    if (document.activeElement !== $('chart-metric')) $('chart-metric').value = s.chart;
    if (s.embed) fitEmbed();
  });

  on('notices', (s) => {
    $('message').textContent = s.message || '';
    renderProblems(s.problems);
  });

  on('controls', (s) => {
    for (const cv of s.values) updateControl(cv);
    for (const fs of $('controls').children) fs.hidden = !fs.querySelector('.ctl:not([hidden])'); // none applies
    // The comparisons offered follow the knobs (only one that applies is offered).
    const cmp = $('compare');
    if (document.activeElement !== cmp) fillSelect(cmp, s.compare_options, view.settings && view.settings.compare);
  });

  on('clock', (c) => {
    const play = $('play');
    play.setAttribute('aria-pressed', String(c.playing));
    play.querySelector('.ico').textContent = c.playing ? '❚❚' : '▶';
    play.querySelector('.lbl').textContent = c.playing ? 'Pause' : (c.done ? 'Replay' : 'Play');
    $('embed-play').firstElementChild.textContent = c.playing ? '❚❚' : '▶';
    $('embed-time').textContent = c.sim_time;
    $('speed-val').textContent = c.eff_speed ? 'now ' + c.eff_speed : '';
    $('sim-time').textContent = c.sim_time;
    $('horizon').textContent = 'of ' + c.horizon;
    $('progress-bar').style.width = (100 * c.now_ns / Math.max(c.end_ns, 1)).toFixed(2) + '%';
    renderJump(c.jump);
    const refused = $('refused');
    refused.hidden = !c.refused;
    if (c.refused) refused.textContent = c.refused.charAt(0).toUpperCase() + c.refused.slice(1);
    play.disabled = !!c.refused;
    $('skip-warmup').hidden = !(c.warmup_ns > c.now_ns);
    const resumed = $('resumed');
    const note = c.resumed ? '⟲ ' + c.resumed : '';
    if (resumed.textContent !== note) {
      // A new notice shows again, then fades (style.css).
      resumed.classList.remove('shown');
      void resumed.offsetWidth;
      resumed.classList.toggle('shown', !!note);
    }
    resumed.hidden = !note;
    resumed.textContent = note;
  });

  on('panes', (s) => {
    renderPanes(s.panes || []);
    renderFrameLabels(s.frames || []);
  });

  on('cards', (s) => {
    renderCards(s);
    $('warmup').textContent = s.warmup || '';
  });

  on('explain', (s) => {
    $('explain').textContent = s.text || 'Click a vCPU or a thread chip to see why the scheduler last did what it did.';
  });

  on('time_chart', (ch) => renderChart($('chart-time'), ch, $('time-legend')));
  on('sweep', (ch) => {
    renderChart($('chart-sweep'), ch, null);
    $('sweep-note').textContent = ch.note || '';
    $('sweep').hidden = !ch.button;
  });
  on('hist', (ch) => {
    renderChart($('chart-hist'), ch, null);
    $('hist-title').textContent = ch.title;
    $('hist-note').textContent = ch.note || '';
  });

  // A control being used is not written over (see updateControl); once it loses
  // the focus it shows the model's value again.
  document.addEventListener('focusout', () => queueMicrotask(() => {
    for (const name of ['settings', 'controls']) {
      if (view[name]) for (const f of redraw[name]) f(view[name]);
    }
  }));

  function updateControl(cv) {
    const input = $(cv.id);
    if (!input) return;
    const out = $(cv.id + '-val');
    if (out) {
      out.textContent = cv.locked ? 'compared' : cv.display;
      out.hidden = input.tagName === 'SELECT' && !cv.locked;
    }
    input.disabled = !!cv.locked || !!cv.disabled; // compared, or set by another control
    const ctl = input.closest('.ctl');
    ctl.classList.toggle('locked', !!cv.locked);
    ctl.hidden = !!cv.hidden; // the knob changes nothing in the arms shown
    const note = $(cv.id + '-note');
    if (note) note.textContent = cv.locked ? cv.note + ' (each arm sets it)' : (cv.note || '');
    if (document.activeElement === input && input.type !== 'checkbox') return; // do not fight the user
    if (input.type === 'range') {
      input._ladder = cv.ladder;
      input.max = String(cv.ladder.length - 1);
      input.value = String(cv.index);
      input.setAttribute('aria-valuetext', cv.display);
    } else if (input.type === 'checkbox') {
      input.checked = cv.value === '1';
      input.setAttribute('aria-checked', String(input.checked));
    } else {
      // A value the select does not offer (a shared scenario's own sched_ext
      // policy) is shown by its name rather than as a blank select.
      if (input.tagName === 'SELECT' && ![...input.options].some((o) => o.value === cv.value)) {
        input.append(el('option', { value: cv.value, text: cv.display || cv.value }));
      }
      input.value = cv.value;
    }
  }

  // renderJump shows the run ahead's progress over the stage (embeds included).
  function renderJump(jump) {
    const box = $('jump-progress');
    box.hidden = !jump;
    if (!jump) return;
    const pct = Math.round(100 * jump.done);
    $('jump-label').textContent = 'Running ahead to ' + jump.to + ' · ' + pct + '%';
    $('jump-bar').style.width = pct + '%';
    box.querySelector('[role=progressbar]').setAttribute('aria-valuenow', String(pct));
  }

  function renderProblems(problems) {
    const box = $('problems');
    const probs = [...(problems || []), ...(core.presetProblems || [])];
    if (sharedError) probs.unshift(sharedError);
    if (!probs.length) { box.hidden = true; box.replaceChildren(); return; }
    box.replaceChildren(el('p', { text: 'Parts of this link could not be used, so defaults stand in for them:' }),
      ...probs.map((p) => el('p', {}, el('code', { text: p }))));
    box.hidden = false;
  }

  function renderPanes(panes) {
    renderPaneProblems(panes);
    const box = $('pane-titles');
    while (box.children.length > panes.length) box.lastChild.remove();
    while (box.children.length < panes.length) box.append(el('div', { class: 'pane-title' }));
    panes.forEach((p, i) => {
      const d = box.children[i];
      if (panes.length < 2) { d.textContent = ''; return; }
      d.style.left = p.x + 'px';
      d.style.top = (p.y + 3) + 'px';
      d.style.width = p.w + 'px';
      const parts = p.title.split(' · ');
      d.replaceChildren(el('span', {}, el('b', { text: parts.slice(0, 2).join(' · ') }), ' · ' + parts.slice(2).join(' · ')));
    });
  }

  // renderFrameLabels writes the labels of the machine's node and LLC frames
  // ("node 0", "LLC 3") where the model placed them, over the canvas: text
  // on the canvas is kept to numbers. A frame too small has no label.
  function renderFrameLabels(frames) {
    let box = $('frame-labels');
    if (!box) {
      box = el('div', { id: 'frame-labels', class: 'pane-titles', 'aria-hidden': 'true' });
      stage.append(box);
    }
    const labelled = frames.filter((f) => f.label_h > 0);
    while (box.children.length > labelled.length) box.lastChild.remove();
    while (box.children.length < labelled.length) box.append(el('div', { class: 'frame-label' }));
    labelled.forEach((f, i) => {
      const d = box.children[i];
      d.className = 'frame-label ' + f.level;
      d.textContent = f.text;
      d.style.left = f.label_x + 'px';
      d.style.top = f.label_y + 'px';
      d.style.fontSize = f.label_h + 'px';
    });
  }

  // renderPaneProblems puts an arm's own problem (its policy did not compile,
  // or was ejected) over its tiles, under its title.
  function renderPaneProblems(panes) {
    let box = $('pane-problems');
    if (!box) {
      box = el('div', { id: 'pane-problems', class: 'pane-titles', 'aria-live': 'polite' });
      stage.append(box);
    }
    const shown = panes.filter((p) => p.problem);
    while (box.children.length > shown.length) box.lastChild.remove();
    while (box.children.length < shown.length) box.append(el('div', { class: 'pane-problem', role: 'status' }));
    shown.forEach((p, i) => {
      const d = box.children[i];
      d.style.left = (p.x + 6) + 'px';
      d.style.top = (p.y + (panes.length > 1 ? 28 : 6)) + 'px';
      d.style.maxWidth = Math.max(p.w - 12, 120) + 'px';
      d.classList.toggle('ejected', p.problem.startsWith('Policy ejected'));
      d.textContent = p.problem;
    });
  }

  function renderCards(ui) {
    const box = $('cards');
    box.classList.toggle('many', ui.cards.length > 6); // seven cards: four columns, not 3+3+1
    while (box.children.length > ui.cards.length) box.lastChild.remove();
    ui.cards.forEach((c, i) => {
      let d = box.children[i];
      if (!d) {
        d = el('div', { class: 'card' }, el('div', { class: 'label' }), el('div', { class: 'value' }), el('div', { class: 'sub' }),
          el('div', { class: 'trust' }));
        box.append(d);
      }
      d.dataset.id = c.id;
      const v = d.children[1];
      if (c.b) {
        v.replaceChildren(el('span', { class: 'a', text: c.a }), el('span', { class: 'arrow', text: '→' }), c.b);
        v.setAttribute('aria-label', c.label + ': A ' + c.a + ', B ' + c.b + (c.change ? ', ' + c.change : ''));
      } else {
        v.replaceChildren(c.a);
        v.removeAttribute('aria-label');
      }
      // The change goes beside the label, so a card is two lines in compare mode.
      d.children[0].replaceChildren(el('span', { text: c.label }));
      if (c.change) d.children[0].append(el('span', { class: c.verdict || 'same', text: c.change }));
      const sub = [c.note, c.published ? 'published ' + c.published : ''].filter(Boolean).join(' · ');
      d.children[2].textContent = sub;
      d.children[2].hidden = !sub;
      renderTrust(d.children[3], c.trust);
    });
  }

  // renderTrust shows the calibration's verdict on a card's number (what the
  // Go side wrote: view.Trust), with a link to the model notes' section that
  // says why. It is rebuilt only when it changes, so the link keeps focus and
  // hover across refreshes.
  function renderTrust(box, t) {
    const key = t ? JSON.stringify(t) : '';
    if (box._key === key) return;
    box._key = key;
    box.hidden = !t;
    if (!t) { box.replaceChildren(); return; }
    box.className = 'trust ' + t.class;
    box.title = t.text + (t.why ? ' (calibration: ' + t.why + ')' : '');
    box.replaceChildren(
      el('span', { class: 'mark', 'aria-hidden': 'true', text: t.mark }),
      el('span', { class: 'text', text: t.text }),
      el('span', { class: 'short', text: t.short }),
      el('a', { href: t.link, target: '_blank', rel: 'noopener', text: 'why?', 'aria-label': 'why: the model notes on this result' }));
  }

  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
    }
    return e;
  }

  // renderChart paints a chart the Go side laid out (playground/charts.go): its
  // viewBox, axis, grid and labels, bars and lines, all where the chart says.
  function renderChart(box, ch, legend) {
    box.setAttribute('viewBox', ch.view_box);
    const a = ch.axis;
    const kids = [svg('line', { class: 'axis', x1: a.x1, y1: a.y1, x2: a.x2, y2: a.y2 })];
    for (const g of ch.grid || []) {
      kids.push(svg('line', { class: 'axis', x1: g.x1, y1: g.y1, x2: g.x2, y2: g.y2, 'stroke-dasharray': '2 3', opacity: '.6' }));
    }
    for (const l of ch.labels || []) kids.push(svg('text', { x: l.x, y: l.y, 'text-anchor': l.anchor, text: l.text }));
    for (const b of ch.bars || []) {
      const r = svg('rect', { x: b.x, y: b.y, width: Math.max(b.w, 0.5), height: Math.max(b.h, 0), fill: b.color, rx: 1 });
      r.append(svg('title', { text: b.title }));
      kids.push(r);
    }
    for (const l of ch.lines || []) {
      if (l.d) kids.push(svg('path', { class: 'line', d: l.d, stroke: l.color }));
      for (const d of l.dots || []) {
        const c = svg('circle', { class: 'dot', cx: d.x, cy: d.y, r: 3.5, stroke: l.color });
        c.append(svg('title', { text: d.title }));
        kids.push(c);
      }
    }
    const e = ch.empty;
    if (e) kids.push(svg('text', { class: 'empty', x: e.x, y: e.y, 'text-anchor': e.anchor, text: e.text }));
    box.replaceChildren(...kids);
    if (legend) {
      legend.replaceChildren(...(ch.lines || []).filter((l) => l.name).map((l) => {
        const i = el('i'); i.style.background = l.color;
        return el('span', {}, i, l.name);
      }));
    }
  }

  // fitEmbed sizes the stage to the iframe, less what goes around it (the cards
  // and the legend, whose height follows their text and the frame's width).
  function fitEmbed() {
    const card = stage.closest('.stage-card');
    const chrome = card.offsetHeight - stage.offsetHeight + 14;
    document.documentElement.style.setProperty('--embed-chrome', chrome + 'px');
    const u = new URL(location.href);
    u.hash = view.settings.fragment.replace(/&embed=1/, '');
    $('embed-open').href = u.href;
  }
  new ResizeObserver(() => { if (view.settings && view.settings.embed) fitEmbed(); }).observe(stage.closest('.stage-card'));

  // ---- Copy and share -------------------------------------------------------

  function toast(msg) {
    const t = $('toast');
    t.textContent = msg;
    t.hidden = false;
    clearTimeout(t._timer);
    t._timer = setTimeout(() => { t.hidden = true; }, 3500);
  }

  async function copy(text, what) {
    try {
      await navigator.clipboard.writeText(text);
      toast(what + ' copied.');
      return;
    } catch (e) { /* not a secure context or no permission: fall through */ }
    const ta = $('copy-fallback');
    ta.value = text;
    ta.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    toast(ok ? what + ' copied.' : what + ': ' + text);
  }

  function pageURL() { return location.origin + location.pathname; }

  // tooLongForLink names the page's own text (policy, workload) that its
  // link leaves out for length, or ''.
  function tooLongForLink() {
    for (const [name, what] of [['policy', 'policy'], ['workload', 'workload description']]) {
      const s = view[name];
      if (s && s.origin === 'page' && !s.in_link) return what;
    }
    // A trace's replay is in no link but a share's page.
    if (view.replay && view.replay.runs && !(view.meta && view.meta.shared)) return 'trace replay';
    return '';
  }

  async function share() {
    const fallback = () => copy(pageURL() + '#' + core.fragment(), 'Link');
    try {
      const r = await fetch('/api/share', { method: 'POST', headers: { 'content-type': 'application/json' }, body: core.scenario() });
      if (!r.ok) {
        // A trace's replay has no link to fall back to: say the server's why
        // (a share over its size limit names the limit).
        const why = view.replay && view.replay.runs ? await r.json().then((b) => b.error, () => '') : '';
        if (why) { toast('Not shared: ' + why); return; }
        throw new Error('HTTP ' + r.status);
      }
      const res = await r.json();
      const u = new URL(res.url || ('/s/' + res.id), location.origin);
      u.hash = core.shareFragment();
      await copy(u.href, 'Share link');
    } catch (e) {
      const long = tooLongForLink();
      if (long) {
        // The full link would lose it: say so rather than copy it.
        toast('Sharing is not available here (' + e.message + '), and this ' + long + ' is too long for a link.');
        return;
      }
      await fallback();
      toast('Sharing is not available here (' + e.message + '); copied the full link instead.');
    }
  }

  // ---- Wiring ---------------------------------------------------------------

  $('play').addEventListener('click', () => cmd('toggle'));
  $('embed-play').addEventListener('click', () => cmd('toggle'));
  $('step').addEventListener('click', () => cmd('step'));
  $('reset').addEventListener('click', () => cmd('reset'));
  $('sweep').addEventListener('click', () => cmd('sweep'));
  const jump = () => { const v = $('jump-to').value.trim(); if (v) set('t', v); };
  $('jump').addEventListener('click', jump);
  $('jump-to').addEventListener('keydown', (e) => { if (e.key === 'Enter') jump(); });
  $('skip-warmup').addEventListener('click', () => cmd('jumpTo', view.clock.warmup_ns));
  // A hand on a jump control fetches the saved states the jump will start from.
  const prefetch = () => core && core.cmd('prefetch');
  for (const [id, ev] of [['skip-warmup', 'pointerenter'], ['skip-warmup', 'focus'], ['jump', 'pointerenter'], ['jump-to', 'focus']]) {
    $(id).addEventListener(ev, prefetch);
  }
  $('jump-cancel').addEventListener('click', () => cmd('pause'));
  $('speed').addEventListener('change', (e) => set('speed', e.target.value));
  $('show-ghosts').addEventListener('change', (e) => set('ghosts', e.target.checked ? '1' : '0'));
  $('compare').addEventListener('change', (e) => set('compare', e.target.value));
  $('preset').addEventListener('change', (e) => { if (e.target.value) set('preset', e.target.value); });
  $('chart-metric').addEventListener('change', (e) => set('chart', e.target.value));
  $('theme').addEventListener('click', () => set('theme', view.settings && view.settings.theme === 'light' ? 'dark' : 'light'));
  $('copy-link').addEventListener('click', () => {
    const long = tooLongForLink();
    if (long) {
      toast('This ' + long + ' is too long for a link: use Share, which stores it and copies a short link.');
      return;
    }
    copy(pageURL() + '#' + core.fragment(), 'Link');
  });
  $('copy-embed').addEventListener('click', () => copy(core.embedCode(pageURL()), 'Embed code'));
  $('share').addEventListener('click', share);
  window.addEventListener('hashchange', () => refresh());
  document.addEventListener('keydown', (e) => {
    if (!core || e.ctrlKey || e.metaKey || e.altKey) return;
    if (typingIn(e.target)) return;
    const t = e.target;
    if (t.closest && t.closest('button, a')) return;
    if (e.key === ' ') { e.preventDefault(); cmd('toggle'); }
    else if (e.key === '.') cmd('step');
    else if (e.key === 'r' || e.key === 'R') cmd('reset');
  });

  // typingIn reports whether a key at target goes into text the user is
  // typing: a field, a select, or editable content such as the policy and
  // workload editors (CodeMirror's .cm-content is contenteditable, not a
  // textarea). There Space, '.' and 'r' are characters, never the page's
  // shortcuts. The .cm-editor test covers a read-only editor too, where the
  // keys move the cursor and select text. lesson.js asks the same.
  function typingIn(target) {
    if (!target || target.nodeType !== 1) return false;
    if (target.isContentEditable) return true;
    return !!(target.closest && target.closest('input, select, textarea, [contenteditable]:not([contenteditable="false"]), .cm-editor'));
  }

  // canvasKey handles keys on the focused canvas: arrows move the selected vCPU,
  // Escape clears it, and the page's shortcuts work as elsewhere.
  function canvasKey(e) {
    if (!core || e.ctrlKey || e.metaKey || e.altKey) return;
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[e.key]) { e.preventDefault(); cmd('move', ...moves[e.key]); }
    else if (e.key === 'Escape') cmd('select', 0, -1, -1);
    else if (e.key === ' ') { e.preventDefault(); cmd('toggle'); }
    else if (e.key === '.') cmd('step');
    else if (e.key === 'r' || e.key === 'R') cmd('reset');
  }

  // ---- Public API -----------------------------------------------------------
  //
  // state() is playground.State: what the page shows, read fresh. It has every
  // key it always had; since the page reads the model as one snapshot, it also
  // carries the fields of the snapshot sections it is built from (horizon,
  // warmup_ns, eff_speed, description, summary, seed, hide, ghosts) and the
  // lesson panel (lesson: open, step, state, status, caption...).

  window.schedplay = {
    ready,
    state: () => JSON.parse(core.state()),
    set,
    play: () => cmd('play'),
    pause: () => cmd('pause'),
    step: () => cmd('step'),
    reset: () => cmd('reset'),
    runTo: (ns) => cmd('runTo', Number(ns)),
    jumpTo: (ns) => cmd('jumpTo', Number(ns)) || null,
    sweep: () => cmd('sweep'),
    select: (arm, cpu, thread = -1) => cmd('select', arm, cpu, thread),
    perfReset: () => { cost.ms = 0; cost.calls = 0; return cmd('perfReset'); },
    // pageCost is what the page script spent mirroring the model since the last
    // perfReset: {ms, calls} (diagnostics, like state().perf).
    pageCost: () => ({ ...cost }),
    fragment: () => core.fragment(),
    // setPolicy(source) runs source as the scenario's own sched_ext policy
    // from time zero, as the editor's Run does ("" or null when accepted,
    // else why not).
    setPolicy: (source) => { const r = core.setPolicy(String(source)); refresh(); return r || null; },
    // setWorkload(description) runs an rt-app description as the workload,
    // from time zero (null when accepted, else the engine's refusal).
    setWorkload: (desc) => { const r = core.setWorkload(String(desc)); refresh(); return r || null; },
  };

  start().catch((e) => {
    const l = $('loading');
    if (l) l.textContent = 'The simulator failed to load: ' + e.message;
    console.error(e);
  });
})();
