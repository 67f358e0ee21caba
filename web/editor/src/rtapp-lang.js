// rt-app's "JSON like" descriptions for the workload editor: JSON with C
// comments and trailing commas (rt-app's parser, json-c, takes both), as a
// CodeMirror stream language. It colours what the page's highlight style
// names (property names, strings, numbers, true/false/null, comments) and
// indents a line by one unit for each object or array left open before it,
// one less when the line starts by closing one, so Enter after
// '"global": {' lands a unit in. It replaces the JavaScript grammar, read as
// one expression, that did the same for some 20 KB more of the editor's
// download (a policy's too: the one bundle serves both editors).
import { StreamLanguage } from '@codemirror/language';

export const rtappLanguage = StreamLanguage.define({
  name: 'rtapp-json',
  startState: () => ({ depth: 0, inComment: false }),
  copyState: (s) => ({ depth: s.depth, inComment: s.inComment }),
  token(stream, state) {
    if (state.inComment) {
      if (stream.skipTo('*/')) {
        stream.match('*/');
        state.inComment = false;
      } else {
        stream.skipToEnd();
      }
      return 'blockComment';
    }
    if (stream.eatSpace()) return null;
    if (stream.match('//')) {
      stream.skipToEnd();
      return 'lineComment';
    }
    if (stream.match('/*')) {
      state.inComment = true;
      return 'blockComment';
    }
    const ch = stream.next();
    if (ch === '"') {
      let escaped = false;
      while (!stream.eol()) {
        const c = stream.next();
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === '"') break;
      }
      // A key is a string followed by its colon.
      return stream.match(/^\s*:/, false) ? 'propertyName' : 'string';
    }
    if (ch === '{' || ch === '[') {
      state.depth++;
      return 'bracket';
    }
    if (ch === '}' || ch === ']') {
      state.depth = Math.max(0, state.depth - 1);
      return 'bracket';
    }
    if (/[-\d]/.test(ch)) {
      stream.match(/^\d*(\.\d+)?([eE][+-]?\d+)?/);
      return 'number';
    }
    if (/[a-z]/.test(ch)) {
      stream.match(/^[a-z]*/);
      const word = stream.current();
      return word === 'null' ? 'null' : (word === 'true' || word === 'false') ? 'bool' : null;
    }
    return 'punctuation';
  },
  indent(state, textAfter, cx) {
    if (state.inComment) return null;
    return Math.max(0, state.depth - (/^\s*[}\]]/.test(textAfter) ? 1 : 0)) * cx.unit;
  },
  languageData: {
    commentTokens: { line: '//', block: { open: '/*', close: '*/' } },
    indentOnInput: /^\s*[}\]]$/,
  },
});
