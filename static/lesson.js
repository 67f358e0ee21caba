// schedplay lesson player: the panel over the stage for a lesson open in the page
// (lesson=NAME&step=N). It draws the snapshot's lesson and caption sections
// (playground/lessonfill.go) when they change, and sends Back, Next and the
// picker's choice as set('step') and set('lesson'); which step shows what, and
// every number in a caption, is Go.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const panel = $('lesson');
  const page = window.schedplayPage;
  let ui = { open: false };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  page.on('meta', (meta) => {
    const pick = $('lesson-pick');
    pick.replaceChildren(pick.options[0]); // "Lessons…"
    for (const l of meta.lessons || []) {
      const o = el('option', '', l.title + ' (' + l.steps + ' steps)');
      o.value = l.name;
      o.title = l.summary;
      pick.append(o);
    }
    pick.value = ui.open ? ui.name : '';
  });

  page.on('lesson', (u) => {
    ui = u;
    panel.hidden = !ui.open;
    document.body.classList.toggle('in-lesson', ui.open);
    if (document.activeElement !== $('lesson-pick')) $('lesson-pick').value = ui.open ? ui.name : '';
    if (!ui.open) return;
    $('lesson-title').textContent = ui.title;
    $('lesson-count').textContent = 'Step ' + ui.step + ' of ' + ui.steps;
    panel.dataset.state = ui.state;
    $('lesson-status').textContent = ui.status || '';
    $('lesson-again').hidden = ui.state !== 'stopped' && ui.state !== 'off-script';
    $('lesson-back').disabled = ui.step <= 1;
    $('lesson-next').disabled = ui.step >= ui.steps;
  });

  page.on('caption', (c) => {
    $('lesson-caption').replaceChildren(...(c.caption || []).map((s) => (s.value ? el('b', s.text === '…' ? 'pending' : '', s.text) : s.text)));
  });

  // The stage makes room for the panel, whose height follows its text and the
  // window's width.
  new ResizeObserver(() => {
    document.documentElement.style.setProperty('--lesson-h', (panel.offsetHeight + 6) + 'px');
  }).observe(panel);

  function go(step) {
    if (!ui.open || step < 1 || step > ui.steps) return;
    window.schedplay.set('step', step);
  }

  $('lesson-back').addEventListener('click', () => go(ui.step - 1));
  $('lesson-next').addEventListener('click', () => go(ui.step + 1));
  $('lesson-again').addEventListener('click', () => go(ui.step));
  $('lesson-close').addEventListener('click', () => { window.schedplay.set('lesson', ''); });
  $('lesson-pick').addEventListener('change', (e) => {
    const name = e.target.value;
    if (name) { window.schedplay.set('lesson', name); window.scrollTo(0, 0); }
  });
  // Arrow keys and a presenter's clicker (Page Up / Page Down) step through the
  // lesson anywhere but in a text field, a slider, a select or an editor; keys on the canvas
  // stay the canvas's (they move the selected vCPU).
  document.addEventListener('keydown', (e) => {
    if (!ui.open || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return;
    if (page.typingIn(e.target)) return;
    const d = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 }[e.key];
    if (!d) return;
    e.preventDefault();
    go(ui.step + d);
  });
})();
