// Bundles src/editor.js and the CodeMirror packages into ../../static/editor.js,
// minified, as one script that sets window.schedplayEditor, and writes the
// editor's styles to ../../static/editor.css. The first line of each records a
// hash of what they were built from (this file, src/, package-lock.json),
// which web/editor_test.go checks, so a change to the inputs without a rebuild
// fails the tests. Rebuild: cd web/editor && npm ci && npm run build
//
// Why a stylesheet: CodeMirror puts its styles in a <style> element, which
// the page's Content-Security-Policy (style-src 'self', no 'unsafe-inline')
// refuses. A per-response nonce (EditorView.cspNonce) would need the page's
// HTML and CSP header made afresh for every response: `schedplay serve`
// sends index.html as a cached file with an ETag, and the Cloudflare Worker
// sends it as a static asset whose headers come from a fixed _headers file,
// with no Go in the way. A static, same-origin stylesheet is allowed by
// style-src 'self' on both, as they are, and is cached like the script.
import { build } from 'esbuild';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';

export function inputsHash(dir) {
  const h = createHash('sha256');
  const files = ['build.mjs', 'package-lock.json', ...readdirSync(join(dir, 'src')).sort().map((f) => 'src/' + f)];
  for (const f of files) {
    h.update(f + '\n');
    h.update(readFileSync(join(dir, f)));
    h.update('\n');
  }
  return h.digest('hex');
}

const dir = new URL('.', import.meta.url).pathname;
// Every import of 'style-mod' (CodeMirror's view and language) gets
// src/style-mod.js, whose mount adds no <style> element to the page.
const shim = join(dir, 'src/style-mod.js');
const staticStyles = {
  name: 'static-styles',
  setup(b) {
    b.onResolve({ filter: /^style-mod$/ }, (args) => (args.importer === shim ? undefined : { path: shim }));
  },
};
const out = await build({
  entryPoints: [join(dir, 'src/editor.js')],
  bundle: true,
  minify: true,
  format: 'iife',
  globalName: 'schedplayEditor',
  target: 'es2020',
  legalComments: 'none',
  write: false,
  plugins: [staticStyles],
});
const code = out.outputFiles[0].text;
const hash = inputsHash(dir);
const header = '// schedplay policy editor: built by web/editor/build.mjs from inputs sha256:' + hash +
  '\n// CodeMirror 6 (MIT, codemirror.net). Do not edit: change web/editor/src and rebuild.\n';
// The class names are not ASCII (style-mod's are "ͼ1"...): @charset says the
// file is UTF-8 whatever Content-Type a server gives it.
const css = '@charset "utf-8";\n/* schedplay editor styles: built by web/editor/build.mjs from inputs sha256:' + hash + ' */\n' +
  '/* CodeMirror 6 (MIT, codemirror.net). Do not edit: change web/editor/src and rebuild. */\n' + styleSheet(code);

// styleSheet runs the built script, as the page would but without a DOM, and
// asks it for its styles (src/editor.js, styleSheet). The class names in them
// are made as the script loads, so they are the page's only if asking makes
// none: that is checked here, and e2e/typing_test.go compares the page's
// answer with the file.
function styleSheet(script) {
  const counter = Symbol.for('\u037c'); // style-mod's count of class names
  const sandbox = vm.createContext({});
  vm.runInContext(script, sandbox);
  const before = sandbox[counter];
  const text = sandbox.schedplayEditor.styleSheet();
  if (sandbox[counter] !== before) throw new Error('styleSheet made class names: the page would make others');
  if (text !== sandbox.schedplayEditor.styleSheet()) throw new Error('styleSheet is not the same twice');
  for (const want of ['.cm-content', '.cm-line', 'white-space: pre', '.cm-gutters', '.cm-lintRange-error']) {
    if (!text.includes(want)) throw new Error('the editor styles lack ' + want);
  }
  return text;
}

// Each with its precompressed siblings, which `schedplay serve` sends to
// browsers that take br or gzip (web/static.go), as it does the wasm.
for (const [name, body] of [['editor.js', header + code], ['editor.css', css]]) {
  const data = Buffer.from(body);
  const target = join(dir, '../../static', name);
  writeFileSync(target, data);
  writeFileSync(target + '.gz', gzipSync(data, { level: 9 }));
  writeFileSync(target + '.br', brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  console.log('wrote static/' + name, data.length, 'bytes, and its .gz and .br');
}
