// schedplay's editor panels: the user's own sched_ext policy (Starlark) and
// own workload (an rt-app description), each in an editor (static/editor.js
// and editor.css, CodeMirror, loaded only when a panel first opens) under the
// stage. Run hands the text to the model (core.setPolicy, core.setWorkload),
// which runs it from time zero; the panel marks the lines the engine refused
// or ejected it at, and keeps edits as a draft in local storage, so a reload
// loses nothing. A draft never replaces a text the link or share carries: it is
// offered beside it. What runs, and how it went, is the model's (the policy
// and workload sections: playground/policy.go, playground/workload.go).
'use strict';
(() => {
  const page = window.schedplayPage;
  const mk = (tag, props = {}, ...kids) => {
    const e = Object.assign(document.createElement(tag), props);
    e.append(...kids.filter((k) => k !== null && k !== undefined));
    return e;
  };

  // panel builds one editor panel into the section #<id>-panel.
  function panel(cfg) {
    const id = (s) => cfg.id + '-' + s;
    const card = document.getElementById(id('panel'));
    const run = mk('button', { type: 'button', id: id('run'), className: 'primary', textContent: '▶ Run', title: cfg.runTip });
    const exampleSel = mk('select', { id: id('example'), title: 'Put an example in the editor (your text is kept as a draft until you Run).' },
      new Option('Start from an example…', ''));
    const revert = mk('button', { type: 'button', id: id('revert'), hidden: true, textContent: 'Back to the shared one',
      title: 'Put the shared scenario\'s own text back in the editor and run it.' });
    const head = mk('div', { className: 'editor-head' },
      mk('h2', { className: 'editor-title', id: id('title') }, cfg.title + ' ', mk('small', { textContent: cfg.subtitle })),
      mk('label', { className: 'sr-only', htmlFor: id('example'), textContent: 'Start from an example' }), exampleSel,
      mk('a', { className: 'editor-api', href: cfg.docs.href, target: '_blank', rel: 'noopener', textContent: cfg.docs.text, title: cfg.docs.tip }));
    let upload = null;
    if (cfg.upload) {
      upload = mk('input', { type: 'file', accept: '.json,application/json,text/plain', className: 'sr-only', id: id('file') });
      head.append(mk('label', { className: 'button-like', htmlFor: id('file'), textContent: 'Upload…', title: 'Put a file from your computer in the editor.' }), upload);
    }
    head.append(mk('span', { className: 'editor-spacer' }), revert, run);
    const draftText = mk('span', { id: id('draft-text') });
    const draftOpen = mk('button', { type: 'button', id: id('draft-open'), textContent: 'Open my draft' });
    const draftDrop = mk('button', { type: 'button', id: id('draft-drop'), textContent: 'Discard it' });
    const draftBox = mk('div', { id: id('draft'), className: 'editor-draft', role: 'status', hidden: true }, draftText, draftOpen, draftDrop);
    const box = mk('div', { id: id('editor'), className: 'editor-box' }, mk('p', { className: 'editor-loading', textContent: 'Loading the editor…' }));
    const statusBox = mk('div', { id: id('status'), className: 'editor-status', role: 'status', ariaLive: 'polite' });
    card.setAttribute('aria-labelledby', id('title'));
    card.replaceChildren(head, draftBox, box, statusBox);
    if (cfg.extra) card.append(cfg.extra.box);

    let editor = null; // the CodeMirror handle once loaded
    let loading = null;
    let sec = null; // the newest section
    let examples = [];
    let opened = false;
    let ran = null; // the text last sent with Run, until the model shows it
    let draftOffered = false;
    let refusal = ''; // Run's refusal, shown until the next Run

    const readDraft = () => {
      try {
        const d = JSON.parse(localStorage.getItem(cfg.draftKey) || 'null');
        return d && typeof d.source === 'string' ? d : null;
      } catch (e) { return null; }
    };
    const writeDraft = (source) => {
      try {
        if (source === null) localStorage.removeItem(cfg.draftKey);
        else localStorage.setItem(cfg.draftKey, JSON.stringify({ source, saved: Date.now() }));
      } catch (e) { /* storage full or disabled: the editor still works */ }
    };
    let saveTimer = 0;
    const edited = (text) => {
      clearTimeout(saveTimer);
      // The running text is in the URL or the share already: only a text
      // that differs from it is a draft worth keeping.
      saveTimer = setTimeout(() => writeDraft(sec && text === sec.source ? null : text), 250);
      status();
    };

    // offerDraft shows a stored draft that differs from what the page runs,
    // once per page: one click puts it in the editor, never on its own.
    const offerDraft = () => {
      if (draftOffered || !sec) return;
      const d = readDraft();
      if (!d || d.source === sec.source || (editor && d.source === editor.get())) return;
      draftOffered = true;
      const from = sec.origin === 'shared' ? 'the shared one' : (sec.origin === 'page' ? 'the one this link runs' : 'the example');
      draftText.textContent = 'You have a draft from ' + new Date(d.saved || Date.now()).toLocaleString() + ' that differs from ' + from + '.';
      draftBox.hidden = false;
    };
    draftOpen.addEventListener('click', () => {
      const d = readDraft();
      if (d && editor) { editor.set(d.source); status(); editor.focus(); }
      draftBox.hidden = true;
    });
    draftDrop.addEventListener('click', () => { writeDraft(null); draftBox.hidden = true; });

    const loadEditor = () => {
      if (!loading) {
        loading = editorModule().then((mod) => {
          box.replaceChildren();
          editor = mod.create(box, { doc: sec ? sec.source : '', onChange: edited, onRun: doRun, label: cfg.label, lang: cfg.lang });
          window[cfg.handle] = editor; // for the page's tests
          mark();
          offerDraft();
          status();
          return editor;
        }).catch((e) => {
          box.replaceChildren(mk('p', { className: 'editor-loading', textContent: 'The editor failed to load: ' + e.message }));
        });
      }
      return loading;
    };

    const open = (focus) => {
      opened = true;
      card.hidden = false;
      loadEditor().then(() => { if (focus && editor) editor.focus(); });
    };

    function doRun() {
      const core = page.core();
      if (!core || !editor) return;
      ran = editor.get();
      refusal = cfg.run(core, ran) || '';
      // A refused text did not run: the editor keeps it (the section that
      // follows shows what still runs, and must not replace it).
      if (refusal) ran = null;
      page.refresh();
      mark();
      status();
    }
    run.addEventListener('click', doRun);

    revert.addEventListener('click', () => {
      const core = page.core();
      if (!core || !sec) return;
      ran = sec.shared;
      if (editor) editor.set(sec.shared);
      cfg.run(core, sec.shared);
      page.refresh();
    });

    exampleSel.addEventListener('change', (e) => {
      const ex = examples.find((x) => x.name === e.target.value);
      e.target.value = '';
      if (!ex) return;
      open(false);
      loadEditor().then(() => put(cfg.exampleText(ex)));
    });
    // put replaces the editor's text, keeping the user's as a draft.
    const put = (text) => {
      if (!editor) return;
      const cur = editor.get();
      if (sec && cur !== sec.source) writeDraft(cur);
      editor.set(text);
      status();
    };
    if (upload) {
      upload.addEventListener('change', () => {
        const f = upload.files && upload.files[0];
        if (!f) return;
        f.text().then((text) => { open(false); return loadEditor().then(() => put(text)); });
        upload.value = '';
      });
    }

    // mark puts the engine's errors on their lines, while the editor holds
    // the text they are about.
    function mark() {
      if (!editor || !sec) return;
      editor.mark(cfg.marks(sec, editor.get(), ran));
    }

    function status() {
      const kids = [];
      const add = (cls, ...parts) => kids.push(mk('div', { className: cls }, ...parts));
      if (refusal && (!sec || !sec.error)) add('err', refusal);
      if (sec) {
        for (const p of cfg.problems(sec)) add('err', mk('b', { textContent: p.head + ' ' }), p.text);
        const clean = !cfg.problems(sec).length;
        if (editor && editor.get() !== sec.source) add('pending', 'Edited: press Run (Ctrl+Enter) to run it from time zero.');
        else if (sec.runs && clean) add('ok', '✓ Running "' + (sec.title || cfg.noun) + '"' + (sec.runner ? ' on ' + sec.runner : '') + '.');
        else if (!sec.runs && sec.source) add('pending', cfg.idle);
        if (sec.origin === 'page' && !sec.in_link) add('pending', 'Too long for a link: Share stores it and copies a short link.');
      }
      statusBox.replaceChildren(...kids);
      if (cfg.extra && sec) cfg.extra.render(sec);
    }

    page.on('meta', (m) => {
      examples = m[cfg.metaKey] || [];
      exampleSel.replaceChildren(exampleSel.options[0], ...examples.map((x) => new Option(x.name + ' — ' + x.title, x.name)));
    });
    page.on('settings', (s) => { if (s.embed) card.hidden = true; });
    page.on(cfg.section, (p) => {
      const before = sec;
      sec = p;
      revert.hidden = !(p.origin === 'page' && p.shared && p.shared !== p.source);
      if (p.runs && !opened && !document.body.classList.contains('embed')) open(false);
      if (editor) {
        // The model's text replaces the editor's only when the editor shows
        // the previous one unchanged (or what Run just sent), so an edit in
        // progress is never overwritten.
        const cur = editor.get();
        if (!before || cur === before.source || cur === ran || cur === '') editor.set(p.source);
        if (ran !== null && p.source === ran) ran = null;
        mark();
        offerDraft();
      }
      status();
    });
    return { open, isRunning: () => !!(sec && sec.runs) };
  }

  // editorModule loads static/editor.js and its styles, static/editor.css,
  // once, for both panels, when one first opens: a visitor who never edits
  // downloads neither. The styles are a file because the page's CSP refuses
  // the <style> element CodeMirror would otherwise add (web/editor/build.mjs
  // says why not a nonce). The editor is made only once they apply: without
  // them its lines do not keep white space, so indentation would not show
  // and typed spaces would come out as no-break spaces.
  let editorP = null;
  function editorModule() {
    if (!editorP) {
      const load = (el, what) => new Promise((resolve, reject) => {
        el.onload = resolve;
        el.onerror = () => reject(new Error(what + ' did not load'));
        document.head.append(el);
      });
      editorP = Promise.all([
        load(mk('link', { rel: 'stylesheet', href: '/editor.css' }), '/editor.css'),
        load(mk('script', { src: '/editor.js' }), '/editor.js'),
      ]).then(() => window.schedplayEditor);
    }
    return editorP;
  }

  // ---- The policy panel ---------------------------------------------------------

  const policy = panel({
    id: 'policy', title: 'Your policy', subtitle: 'sched_ext, in Starlark', lang: 'python', label: 'Policy source, Starlark',
    noun: 'your policy', section: 'policy', metaKey: 'policies', handle: 'schedplayEditorView', draftKey: 'schedplay.policy.draft',
    docs: { href: '/notes/policies.html', text: 'API ↗', tip: 'The callbacks and helpers a policy can use, and how the core differs from the kernel\'s.' },
    runTip: 'Run this policy from time zero (Ctrl+Enter in the editor).',
    idle: 'The scheduler is not "your own policy": Run runs it, or compare it with a built-in under Compare.',
    exampleText: (x) => x.source,
    run: (core, text) => core.setPolicy(text),
    problems: (p) => (p.errors || []).map((e) => ({
      head: 'Arm ' + e.arm + (e.ejected ? ': ejected at ' + e.at + ', its tasks back on the fair class.' : ': does not compile.'),
      text: e.message,
    })).concat((p.waiting || []).map((w) => ({ head: 'Arm ' + w.arm + ': tasks wait and do not run.', text: w.message }))),
    marks: (p, text) => (text !== p.source ? [] : (p.errors || []).filter((e) => e.line > 0).map((e) => ({
      line: e.line, col: e.col, message: (e.ejected ? 'Ejected at ' + e.at + ': ' : '') + e.message.split('\n')[0],
    }))),
  });

  // ---- The workload panel -------------------------------------------------------

  const fmtUs = (us) => (us >= 1000 ? (us / 1000).toFixed(us >= 10000 ? 1 : 2) + ' ms' : us.toFixed(us >= 100 ? 0 : 1) + ' µs');
  const tasksBox = mk('div', { className: 'rtapp-results', id: 'workload-results' });
  const workload = panel({
    id: 'workload', title: 'Your workload', subtitle: 'rt-app JSON', lang: 'json', label: 'Workload description, rt-app JSON',
    noun: 'your workload', section: 'workload', metaKey: 'workloads', handle: 'schedplayWorkloadView', draftKey: 'schedplay.rtapp.draft',
    docs: { href: '/notes/mechanisms.html#rt-app-descriptions', text: 'Keys ↗', tip: 'Which rt-app keys the engine models, which it accepts as no-ops, which it refuses.' },
    runTip: 'Run this description as the workload, from time zero (Ctrl+Enter in the editor).',
    idle: 'Not running: press Run.',
    upload: true,
    exampleText: (x) => x.text,
    run: (core, text) => core.setWorkload(text),
    problems: (w) => {
      const out = [];
      if (w.error) out.push({ head: 'Not run:', text: w.error.message });
      for (const a of w.arms || []) if (a.deadlock) out.push({ head: 'Arm ' + a.arm + ':', text: a.deadlock });
      return out;
    },
    // A refusal is about the text Run sent, which the editor still holds
    // when nothing was edited since.
    marks: (w, text, ran) => (w.error && w.error.line > 0 && (ran === null || text === ran)
      ? [{ line: w.error.line, col: w.error.col, message: w.error.message }] : []),
    extra: { box: tasksBox, render: renderTasks },
  });

  // renderTasks shows each arm's rt-app figures per task, in the task's chip
  // colour: what rt-app's logs would say (wu_lat, slack, c_duration).
  function renderTasks(w) {
    if (!w.runs || !(w.arms || []).some((a) => (a.tasks || []).length)) { tasksBox.replaceChildren(); return; }
    const colour = Object.fromEntries((w.groups || []).map((g) => [g.name, g.color]));
    // Under sched.policy=linux each task's class shows, and a deadline task's
    // misses (activations that ended past their deadline) and throttles.
    const className = { fair: 'fair', rt: 'real-time', dl: 'deadline' };
    const tables = (w.arms || []).map((a) => {
      const tasks = a.tasks || [];
      const hasClass = tasks.some((t) => t.class);
      const hasDL = tasks.some((t) => t.class === 'dl');
      // The deadline column comes early, where a narrow panel still shows it.
      const cols = ['task', 'threads', 'loops', ...(hasDL ? ['dl misses · throttles'] : []), 'run / c_duration', 'period / c_period',
        'wu_lat mean · max', 'slack mean · min', 'overruns'];
      const head = mk('tr', {}, ...cols.map((h) => mk('th', { scope: 'col', textContent: h })));
      const rows = tasks.map((t) => mk('tr', {},
        mk('th', { scope: 'row' }, mk('i', { className: 'swatch', style: 'background:' + (colour[t.name] || 'var(--dim)') }), t.name,
          ...(hasClass ? [mk('span', { className: 'class-tag class-' + t.class, textContent: className[t.class] || t.class })] : [])),
        mk('td', { textContent: t.finished + '/' + t.threads }),
        mk('td', { textContent: String(t.loops) }),
        ...(hasDL ? [mk('td', { textContent: t.class === 'dl' ? (t.dl_misses || 0) + ' · ' + (t.dl_throttles || 0) : '–', className: t.dl_misses ? 'worse' : '' })] : []),
        mk('td', { textContent: fmtUs(t.run_mean_us) + ' / ' + fmtUs(t.c_duration_mean_us) }),
        mk('td', { textContent: fmtUs(t.period_mean_us) + (t.c_period_mean_us ? ' / ' + fmtUs(t.c_period_mean_us) : '') }),
        mk('td', { textContent: t.timed_loops ? fmtUs(t.wu_lat_mean_us || 0) + ' · ' + fmtUs(t.wu_lat_max_us || 0) : '–' }),
        mk('td', { textContent: t.timed_loops ? fmtUs(t.slack_mean_us || 0) + ' · ' + fmtUs(t.slack_min_us || 0) : '–' }),
        mk('td', { textContent: String(t.overruns), className: t.overruns ? 'worse' : '' })));
      const cap = mk('caption', { textContent: (w.arms.length > 1 ? 'Arm ' + a.arm + ': ' : '') + 'rt-app figures per task, over the run so far' });
      const ignored = (a.ignored || []).length ? mk('p', { className: 'note', textContent: 'Accepted, changing nothing modelled: ' + a.ignored.join('; ') }) : null;
      // How the description was read (repeated keys as workgen keeps
      // them, a resume that wakes nobody, a run covering only its start).
      const notes = (a.notes || []).map((n) => mk('p', { className: 'note', textContent: 'Note: ' + n }));
      return mk('div', { className: 'rtapp-arm' }, mk('table', {}, cap, mk('thead', {}, head), mk('tbody', {}, ...rows)), groupTable(a), ...notes, ignored);
    });
    tasksBox.replaceChildren(...tables);
  }

  // groupTable is an arm's task groups (rt-app taskgroup keys): each one's
  // cpu.stat, as the kernel's cgroup reports it; null without groups.
  function groupTable(a) {
    const groups = a.task_groups || [];
    if (!groups.length) return null;
    const head = mk('tr', {}, ...['task group', 'cpu.weight', 'cpu.max', 'CPUs used', 'throttled'].map((h) => mk('th', { scope: 'col', textContent: h })));
    const rows = groups.map((g) => mk('tr', {},
      mk('th', { scope: 'row', textContent: g.path }),
      mk('td', { textContent: String(g.weight) }),
      mk('td', { textContent: g.max_us ? fmtUs(g.max_us) + ' per ' + fmtUs(g.period_us) : 'max' }),
      mk('td', { textContent: g.cpu_frac.toFixed(2) }),
      mk('td', { textContent: g.nr_periods ? g.nr_throttled + ' of ' + g.nr_periods + ' periods' : '–', className: g.nr_throttled ? 'worse' : '' })));
    const cap = mk('caption', { textContent: 'Task groups (cpu.stat): CPUs used counts the groups below; cpu.weight and cpu.max are the defaults unless the scenario sets them (sched.groups)' });
    return mk('table', { className: 'rtapp-groups' }, cap, mk('thead', {}, head), mk('tbody', {}, ...rows));
  }

  // ---- Opening the panels -------------------------------------------------------

  // The panel's "Your own" group: a button for each editor, after the knobs.
  page.on('meta', () => {
    const controls = document.getElementById('controls');
    if (!controls || controls.querySelector('.own-group')) return;
    const b = (text, tip, fn) => {
      const e = mk('button', { type: 'button', className: 'own-open', textContent: text, title: tip });
      e.addEventListener('click', fn);
      return e;
    };
    const show = (p, card) => { p.open(true); document.getElementById(card).scrollIntoView({ behavior: 'smooth', block: 'nearest' }); };
    // In a .ctl, so the panel's rule that hides a group without a control
    // shown (app.js) keeps this one.
    controls.append(mk('fieldset', { className: 'group own-group' }, mk('legend', { textContent: 'Your own' }), mk('div', { className: 'ctl own-ctl' },
      b('✎ Scheduler policy (Starlark)', 'Open the editor with a sched_ext policy in Starlark, and run it as this scenario\'s scheduler.', () => {
        const core = page.core();
        if (core && !policy.isRunning()) { core.set('sched.policy', 'scx'); page.refresh(); }
        show(policy, 'policy-panel');
      }),
      b('✎ Workload (rt-app)', 'Open an editor for an rt-app description (paste, upload or start from an example) to run as this scenario\'s workload.', () => {
        show(workload, 'workload-panel');
      }))));
  });
})();
