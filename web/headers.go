package web

import (
	"net/http"
	"strings"
)

// This file is the one place that decides the security headers. Server sets them on
// every response it writes, and HeadersFile renders them as a Workers assets
// _headers file so the Cloudflare Worker's static files (served without Go) carry
// the same.

// contentSecurityPolicy allows exactly what the playground page uses: its own
// scripts, styles, images and fonts from the same origin; WebAssembly compilation
// ('wasm-unsafe-eval', needed by WebAssembly.instantiateStreaming, and unlike
// 'unsafe-eval' it does not allow eval of JavaScript); fetch/XHR to the same
// origin (the wasm binary and /api/share). Everything else is refused: no inline
// scripts or styles (Ebiten styles its canvas through the CSSOM, which CSP does
// not restrict; CodeMirror's styles, which it would put in a <style> element,
// ship as static/editor.css instead: web/editor/build.mjs), no plugins, no
// <base> rewriting, no form posts. frame-ancestors
// is deliberately absent: docs embed the playground in iframes, and an absent
// frame-ancestors allows any parent (so there is no X-Frame-Options either).
const contentSecurityPolicy = "default-src 'none'; " +
	"script-src 'self' 'wasm-unsafe-eval'; " +
	"style-src 'self'; " +
	"img-src 'self' data:; " +
	"font-src 'self'; " +
	"connect-src 'self'; " +
	"base-uri 'none'; " +
	"form-action 'none'"

// ContentSecurityPolicy is the policy Server sends with every response and
// HeadersFile gives the Cloudflare Worker's static files: the tests of both
// hold them to it, so the page gets the same policy from either server.
func ContentSecurityPolicy() string { return contentSecurityPolicy }

// securityHeaders are set on every response, static or API. The API never sets
// cookies and sends no Access-Control-* headers, so browsers never attach
// credentials to cross-origin calls and other origins cannot read its replies.
func securityHeaders() [][2]string {
	return [][2]string{
		{"Content-Security-Policy", contentSecurityPolicy},
		{"X-Content-Type-Options", "nosniff"},
		{"Referrer-Policy", "strict-origin-when-cross-origin"},
	}
}

func setSecurityHeaders(h http.Header) {
	for _, kv := range securityHeaders() {
		h.Set(kv[0], kv[1])
	}
}

// HeadersFile returns a Workers assets _headers file that gives every static file
// the security headers Server sets.
// (https://developers.cloudflare.com/workers/static-assets/headers/)
func HeadersFile() []byte {
	var b strings.Builder
	b.WriteString("# Generated from schedplay/web/headers.go; do not edit.\n/*\n")
	for _, kv := range securityHeaders() {
		b.WriteString("  " + kv[0] + ": " + kv[1] + "\n")
	}
	return []byte(b.String())
}
