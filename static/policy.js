// schedplay policy editor panel: shows the scenario's own sched_ext policy in
// an editor (static/editor.js, CodeMirror, loaded only when the panel first
// opens), runs it with Run (core.setPolicy), marks the lines the engine
// refused or ejected it at, and keeps the user's edits as a draft in local
// storage, so a reload loses nothing. A draft never replaces a policy the
// link or share carries: it is offered beside it. What runs, and whether it
// compiled, is the model's (the policy section, playground/policy.go).
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const page = window.schedplayPage;
  const DRAFT_KEY = 'schedplay.policy.draft';
  const card = $('policy-panel');

  let editor = null; // the CodeMirror handle once loaded
  let loading = null; // the promise of editor.js
  let policy = null; // the newest policy section
  let examples = [];
  let opened = false; // the user asked for the editor (or a policy runs)
  let ran = null; // the source last sent with Run, until the model shows it
  let draftOffered = false;

  // ---- Draft ------------------------------------------------------------------

  function readDraft() {
    try {
      const d = JSON.parse(localStorage.getItem(DRAFT_KEY) || 'null');
      return d && typeof d.source === 'string' ? d : null;
    } catch (e) { return null; }
  }
  function writeDraft(source) {
    try {
      if (source === null) localStorage.removeItem(DRAFT_KEY);
      else localStorage.setItem(DRAFT_KEY, JSON.stringify({ source, saved: Date.now() }));
    } catch (e) { /* storage full or disabled: the editor still works */ }
  }
  let saveTimer = 0;
  function edited(text) {
    clearTimeout(saveTimer);
    // The running policy is in the URL or the share already: only a text
    // that differs from it is a draft worth keeping.
    saveTimer = setTimeout(() => writeDraft(policy && text === policy.source ? null : text), 250);
    status();
  }

  // offerDraft shows a stored draft that differs from what the page runs,
  // once per page: one click puts it in the editor, never on its own.
  function offerDraft() {
    if (draftOffered || !policy) return;
    const d = readDraft();
    if (!d || d.source === policy.source || (editor && d.source === editor.get())) return;
    draftOffered = true;
    const when = new Date(d.saved || Date.now());
    const from = policy.origin === 'shared' ? 'the shared policy' : (policy.origin === 'page' ? 'the policy this link runs' : 'the example');
    $('policy-draft-text').textContent = 'You have a draft from ' + when.toLocaleString() + ' that differs from ' + from + '.';
    $('policy-draft').hidden = false;
  }
  $('policy-draft-open').addEventListener('click', () => {
    const d = readDraft();
    if (d && editor) { editor.set(d.source); status(); editor.focus(); }
    $('policy-draft').hidden = true;
  });
  $('policy-draft-drop').addEventListener('click', () => { writeDraft(null); $('policy-draft').hidden = true; });

  // ---- The editor --------------------------------------------------------------

  function loadEditor() {
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        const s = document.createElement('script');
        s.src = '/editor.js';
        s.onload = () => resolve(window.schedplayEditor);
        s.onerror = () => reject(new Error('/editor.js did not load'));
        document.head.append(s);
      }).then((mod) => {
        const box = $('policy-editor');
        box.replaceChildren();
        editor = mod.create(box, { doc: policy ? policy.source : '', onChange: edited, onRun: run, label: 'Policy source, Starlark' });
        window.schedplayEditorView = editor; // for the page's tests
        mark();
        offerDraft();
        status();
        return editor;
      }).catch((e) => {
        $('policy-editor').replaceChildren(Object.assign(document.createElement('p'), { className: 'policy-loading', textContent: 'The editor failed to load: ' + e.message }));
      });
    }
    return loading;
  }

  function open(focus) {
    opened = true;
    card.hidden = false;
    loadEditor().then(() => { if (focus && editor) editor.focus(); });
  }

  function run() {
    const core = page.core();
    if (!core || !editor) return;
    ran = editor.get();
    const err = core.setPolicy(ran);
    page.refresh();
    if (err) { ran = null; status(err); }
  }
  $('policy-run').addEventListener('click', run);

  $('policy-revert').addEventListener('click', () => {
    const core = page.core();
    if (!core || !policy) return;
    ran = policy.shared;
    if (editor) editor.set(policy.shared);
    core.setPolicy(policy.shared);
    page.refresh();
  });

  $('policy-example').addEventListener('change', (e) => {
    const ex = examples.find((x) => x.name === e.target.value);
    e.target.value = '';
    if (!ex) return;
    open(false);
    loadEditor().then(() => {
      if (!editor) return;
      const cur = editor.get();
      if (policy && cur !== policy.source) writeDraft(cur); // the user's text stays a draft
      editor.set(ex.source);
      status();
    });
  });

  // mark puts the engine's errors on their lines.
  function mark() {
    if (!editor || !policy) return;
    // Marks belong to the text that ran: after an edit they may point at
    // other lines, so they stay only while the text is the one that ran.
    const same = editor.get() === policy.source;
    editor.mark(same ? (policy.errors || []).filter((e) => e.line > 0).map((e) => ({
      line: e.line, col: e.col, message: (e.ejected ? 'Ejected at ' + e.at + ': ' : '') + e.message.split('\n')[0],
    })) : []);
  }

  // status says what runs and what went wrong: each arm's refusal or
  // ejection, or that the text has changes not yet run.
  function status(msg) {
    const box = $('policy-status');
    const kids = [];
    const add = (cls, ...parts) => {
      const d = document.createElement('div');
      d.className = cls;
      d.append(...parts);
      kids.push(d);
    };
    if (msg) add('err', msg);
    if (policy) {
      for (const e of policy.errors || []) {
        const b = document.createElement('b');
        b.textContent = 'Arm ' + e.arm + (e.ejected ? ': ejected at ' + e.at + ', its tasks back on the fair class' : ': does not compile') + '. ';
        const parts = [b, e.message];
        if (e.line > 0) {
          const go = document.createElement('button');
          go.type = 'button';
          go.textContent = 'line ' + e.line;
          go.title = 'Show line ' + e.line + ' in the editor';
          go.addEventListener('click', () => { if (editor) { mark(); editor.focus(); } });
          parts.push(go);
        }
        add('err', ...parts);
      }
      if (editor && editor.get() !== policy.source) add('pending', 'Edited: press Run (Ctrl+Enter) to run it from time zero.');
      else if (policy.runs && !(policy.errors || []).length) add('ok', '✓ Running "' + policy.title + '" on ' + policy.runner + '.');
      else if (!policy.runs && policy.source) add('pending', 'The scheduler is not "your own policy": Run runs it, or compare it with a built-in under Compare.');
      if (policy.origin === 'page' && !policy.in_link) add('pending', 'Too long for a link: Share stores it and copies a short link.');
    }
    box.replaceChildren(...kids);
  }

  // ---- Following the model -------------------------------------------------------

  page.on('meta', (m) => {
    examples = m.policies || [];
    const sel = $('policy-example');
    sel.replaceChildren(sel.options[0] || new Option('Start from an example…', ''),
      ...examples.map((x) => new Option(x.name + ' — ' + x.title, x.name)));
    addOpenButton();
  });

  page.on('settings', (s) => { if (s.embed) card.hidden = true; });

  page.on('policy', (p) => {
    const before = policy;
    policy = p;
    $('policy-revert').hidden = !(p.origin === 'page' && p.shared && p.shared !== p.source);
    if (p.runs && !opened && !document.body.classList.contains('embed')) open(false);
    if (editor) {
      // The model's source replaces the editor's text only when the editor
      // shows the previous one unchanged (or what Run just sent), so an edit
      // in progress is never overwritten.
      const cur = editor.get();
      if (!before || cur === before.source || cur === ran || cur === '') editor.set(p.source);
      if (ran !== null && p.source === ran) ran = null;
      mark();
      offerDraft();
    }
    status();
  });

  // addOpenButton puts "Write a policy" under the scheduler select.
  function addOpenButton() {
    const ctl = document.querySelector('.ctl[data-path="sched.policy"]');
    if (!ctl || ctl.querySelector('.policy-open')) return;
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'policy-open';
    b.textContent = '✎ Write your own policy';
    b.title = 'Open the editor with a sched_ext policy in Starlark, and run it as this scenario\'s scheduler.';
    b.addEventListener('click', () => {
      const core = page.core();
      if (core && !(policy && policy.runs)) { core.set('sched.policy', 'scx'); page.refresh(); }
      open(true);
      card.scrollIntoView({ behavior: 'smooth', block: 'nearest' });
    });
    ctl.append(b);
  }
})();
