// Bundles src/editor.js and the CodeMirror packages into ../../static/editor.js,
// minified, as one script that sets window.schedplayEditor. Its first line
// records a hash of what it was built from (this file, src/, package-lock.json),
// which web/editor_test.go checks, so a change to the inputs without a rebuild
// fails the tests. Rebuild: cd web/editor && npm ci && npm run build
import { build } from 'esbuild';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

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
const out = await build({
  entryPoints: [join(dir, 'src/editor.js')],
  bundle: true,
  minify: true,
  format: 'iife',
  globalName: 'schedplayEditor',
  target: 'es2020',
  legalComments: 'none',
  write: false,
});
const header = '// schedplay policy editor: built by web/editor/build.mjs from inputs sha256:' + inputsHash(dir) +
  '\n// CodeMirror 6 (MIT, codemirror.net). Do not edit: change web/editor/src and rebuild.\n';
// With its precompressed siblings, which `schedplay serve` sends to browsers
// that take br or gzip (web/static.go), as it does the wasm.
const js = Buffer.from(header + out.outputFiles[0].text);
const target = join(dir, '../../static/editor.js');
writeFileSync(target, js);
writeFileSync(target + '.gz', gzipSync(js, { level: 9 }));
writeFileSync(target + '.br', brotliCompressSync(js, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
console.log('wrote static/editor.js', js.length, 'bytes, and its .gz and .br');
