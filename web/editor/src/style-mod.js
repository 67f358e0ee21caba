// CodeMirror's StyleModule with a mount that puts nothing in the page.
//
// CodeMirror writes its styles into a <style> element it adds to the
// document (style-mod uses adopted stylesheets only for shadow roots). The
// page's Content-Security-Policy (style-src 'self', web/headers.go) refuses
// that element's rules, so the editor lost them all: its lines got
// white-space: normal, indentation collapsed and typed spaces and tabs came
// out as U+00A0. The styles ship instead as static/editor.css, which
// build.mjs writes from these same modules (editor.js's styleSheet) and the
// page links when an editor opens. So the mount here does nothing, and the
// page sees no refused <style> element; it mounts for real only into the
// stand-in root styleSheet collects the rules with.
//
// build.mjs resolves every import of 'style-mod' to this file, except this
// file's own.
import { StyleModule as Upstream } from 'style-mod';

// capture marks the root styleSheet collects rules in.
export const capture = Symbol('schedplay.styleCapture');

export class StyleModule extends Upstream {
  static mount(root, modules, options) {
    if (root && root[capture]) Upstream.mount(root, modules, options);
  }
}
