// schedplay lesson player: the panel over the stage for a lesson open in the page
// (lesson=NAME&step=N). It draws what the model says (window.schedplayCore.lesson(),
// playground/lessonfill.go) and sends Back, Next and the picker's choice as set('step')
// and set('lesson'); which step shows what, and every number in a caption, is Go.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const panel = $('lesson');
  let ui = { open: false };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function render() {
    const core = window.schedplayCore;
    if (!core) return;
    ui = JSON.parse(core.lesson());
    panel.hidden = !ui.open;
    document.body.classList.toggle('in-lesson', ui.open);
    if (document.activeElement !== $('lesson-pick')) $('lesson-pick').value = ui.open ? ui.name : '';
    if (!ui.open) return;
    $('lesson-title').textContent = ui.title;
    $('lesson-count').textContent = 'Step ' + ui.step + ' of ' + ui.steps;
    const key = JSON.stringify(ui.caption);
    const cap = $('lesson-caption');
    if (cap._key !== key) {
      cap._key = key;
      cap.replaceChildren(...ui.caption.map((s) => (s.value ? el('b', s.text === '…' ? 'pending' : '', s.text) : s.text)));
    }
    panel.dataset.state = ui.state;
    const h = (panel.offsetHeight + 6) + 'px';
    if (panel._h !== h) { panel._h = h; document.documentElement.style.setProperty('--lesson-h', h); }
    $('lesson-status').textContent = ui.status || '';
    $('lesson-again').hidden = ui.state !== 'stopped' && ui.state !== 'off-script';
    $('lesson-back').disabled = ui.step <= 1;
    $('lesson-next').disabled = ui.step >= ui.steps;
  }

  function go(step) {
    if (!ui.open || step < 1 || step > ui.steps) return;
    window.schedplay.set('step', step);
    render();
  }

  $('lesson-back').addEventListener('click', () => go(ui.step - 1));
  $('lesson-next').addEventListener('click', () => go(ui.step + 1));
  $('lesson-again').addEventListener('click', () => go(ui.step));
  $('lesson-close').addEventListener('click', () => { window.schedplay.set('lesson', ''); render(); });
  $('lesson-pick').addEventListener('change', (e) => {
    const name = e.target.value;
    if (name) { window.schedplay.set('lesson', name); window.scrollTo(0, 0); }
    render();
  });
  // Arrow keys and a presenter's clicker (Page Up / Page Down) step through the
  // lesson anywhere but in a text field, a slider or a select; keys on the canvas
  // stay the canvas's (they move the selected vCPU).
  document.addEventListener('keydown', (e) => {
    if (!ui.open || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return;
    if (e.target.closest && e.target.closest('input, select, textarea, [contenteditable]')) return;
    const d = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 }[e.key];
    if (!d) return;
    e.preventDefault();
    go(ui.step + d);
  });

  window.schedplay.ready.then(() => {
    const pick = $('lesson-pick');
    for (const l of JSON.parse(window.schedplayCore.lessons()) || []) {
      const o = el('option', '', l.title + ' (' + l.steps + ' steps)');
      o.value = l.name;
      o.title = l.summary;
      pick.append(o);
    }
    render();
    setInterval(window.schedplayPage.timed(render), 250);
  });
})();
