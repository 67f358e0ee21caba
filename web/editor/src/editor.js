// The playground's editor of policies and workloads: CodeMirror 6 with its
// Python language (a Starlark file is Python's syntax) or, for rt-app files,
// a small one of ours (rtapp-lang.js), line numbers, bracket matching, undo, and
// the lint gutter for the error the engine reports. Bundled by build.mjs into
// static/editor.js, with its styles in static/editor.css, which the page
// loads only when an editor panel opens (static/editors.js). It decides
// nothing: the page gives it the text and the errors, and hears back the
// edits and Run.
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection } from '@codemirror/view';
import { EditorState, Compartment } from '@codemirror/state';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { python } from '@codemirror/lang-python';
import { indentUnit, bracketMatching, syntaxHighlighting, HighlightStyle, LanguageSupport } from '@codemirror/language';
import { rtappLanguage } from './rtapp-lang.js';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { tags as t } from '@lezer/highlight';
import { capture } from './style-mod.js';

// Colours come from the page's custom properties (style.css), so the editor
// follows the dark and light themes without a theme of its own per mode.
const chrome = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--stage)', fontSize: '14px', height: '100%' },
  '.cm-content': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', caretColor: 'var(--text)' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', lineHeight: '1.5' },
  '.cm-gutters': { backgroundColor: 'var(--surface-2)', color: 'var(--dim)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'color-mix(in srgb, var(--accent) 8%, transparent)' },
  '.cm-activeLineGutter': { backgroundColor: 'color-mix(in srgb, var(--accent) 14%, transparent)', color: 'var(--text)' },
  '&.cm-focused': { outline: 'none' },
  '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--text)' },
  '.cm-selectionBackground, &.cm-focused .cm-selectionBackground': { backgroundColor: 'color-mix(in srgb, var(--accent) 30%, transparent) !important' },
  '.cm-matchingBracket': { backgroundColor: 'color-mix(in srgb, var(--accent) 25%, transparent)', outline: '1px solid var(--dim)' },
  '.cm-lintRange-error': { backgroundImage: 'none', textDecoration: 'underline wavy var(--worse)', textUnderlineOffset: '3px' },
  '.cm-tooltip': { backgroundColor: 'var(--surface)', color: 'var(--text)', border: '1px solid var(--border)' },
  '.cm-diagnostic-error': { borderLeft: '4px solid var(--worse)' },
});

// Okabe-Ito hues (the page's palette) for the syntax: keywords blue, strings
// bluish green, numbers orange, comments dim and italic, names of functions
// and definitions vermillion-free so an error's red stays the only red.
const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.operatorKeyword], color: 'var(--waking)', fontWeight: '600' },
  { tag: [t.string, t.special(t.string)], color: 'var(--ipi-donate)' },
  { tag: [t.number, t.bool, t.null], color: 'var(--spinning)' },
  { tag: [t.comment, t.lineComment], color: 'var(--dim)', fontStyle: 'italic' },
  { tag: [t.function(t.variableName), t.function(t.definition(t.variableName))], color: 'var(--irq)' },
  { tag: t.definition(t.variableName), color: 'var(--text)', fontWeight: '600' },
  { tag: [t.propertyName, t.attributeName], color: 'var(--text)' },
]);

// languages are the editor's: Starlark policies read as Python, rt-app's
// "json like" files (comments, trailing commas) with rtapp-lang.js, which
// takes both where JSON's grammar would mark them as errors.
const languages = { python: () => python(), json: () => new LanguageSupport(rtappLanguage) };

// extensions are an editor's: the same for every editor of a language but
// for the hooks, so styleSheet sees the styles create's editors mount.
function extensions({ lang, onChange = () => {}, onRun = () => {}, label = '', editable = new Compartment() }) {
  return [
    lineNumbers(), highlightActiveLineGutter(), highlightActiveLine(), drawSelection(), history(), bracketMatching(),
    indentUnit.of(lang === 'json' ? '  ' : '    '), (languages[lang] || languages.python)(), syntaxHighlighting(highlight), chrome, lintGutter(),
    keymap.of([{ key: 'Mod-Enter', run: () => { onRun(); return true; } }, indentWithTab, ...defaultKeymap, ...historyKeymap]),
    EditorView.updateListener.of((u) => { if (u.docChanged) onChange(u.state.doc.toString()); }),
    EditorView.contentAttributes.of({ 'aria-label': label }),
    editable.of(EditorView.editable.of(true)),
  ];
}

// styleSheet returns the CSS of every style module the editors of all
// languages mount (the view's base theme, the themes of the extensions, the
// highlight classes), in the order CodeMirror puts them in a page, by running
// the view's own mountStyles against a stand-in root that takes rules as an
// adopted stylesheet would. build.mjs writes it to static/editor.css (see
// style-mod.js for why the page cannot take them as CodeMirror gives them).
// It runs without a DOM, and creates no class names: those are made once,
// as the bundle loads, in the same order in Node and in the page, so the
// sheet's names are the page's.
export function styleSheet() {
  const rules = [];
  class Sheet { insertRule(rule, at) { rules.splice(at, 0, rule); } }
  const root = { [capture]: true, adoptedStyleSheets: [], defaultView: { CSSStyleSheet: Sheet } };
  for (const lang of Object.keys(languages)) {
    EditorView.prototype.mountStyles.call({ state: EditorState.create({ extensions: extensions({ lang }) }), root });
  }
  return rules.join('\n') + '\n';
}

// create makes an editor in parent with text doc in language lang (python or
// json). onChange(text) hears every edit; onRun() hears Ctrl/Cmd+Enter. The
// returned object sets the text, marks errors (line and column from 1) and
// focuses.
export function create(parent, { doc = '', onChange = () => {}, onRun = () => {}, label = 'Policy source', lang = 'python' } = {}) {
  const editable = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({ doc, extensions: extensions({ lang, onChange, onRun, label, editable }) }),
  });
  return {
    view,
    get: () => view.state.doc.toString(),
    // set replaces the text (an example, a shared policy, a draft) without
    // calling onChange for it: it is the page's text, not an edit.
    set(text) {
      if (text === view.state.doc.toString()) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    // mark shows errors: [{line, col, message}] (line and col from 1; a line
    // past the end marks the last). [] clears them.
    mark(errors) {
      const doc = view.state.doc;
      const diags = (errors || []).map((e) => {
        const line = doc.line(Math.min(Math.max(e.line | 0, 1), doc.lines));
        // From the column to the line's end; a column at or past the end
        // (an unclosed bracket) marks the whole line, so the mark is seen.
        let from = line.from + Math.max((e.col | 0) - 1, 0);
        if (from >= line.to) from = line.from;
        const to = line.to;
        return { from, to, severity: 'error', message: e.message };
      });
      view.dispatch(setDiagnostics(view.state, diags));
      if (diags.length) view.dispatch({ effects: EditorView.scrollIntoView(diags[0].from, { y: 'center' }) });
    },
    setEditable(on) { view.dispatch({ effects: editable.reconfigure(EditorView.editable.of(on)) }); },
    focus: () => view.focus(),
  };
}
