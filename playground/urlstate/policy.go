package urlstate

// The policy key: a sched_ext policy's Starlark source carried in the
// fragment (policy=...), deflated and then base64url-encoded, so a short
// policy edited in the page reopens from a copied link without a share. A
// policy whose encoding does not fit MaxPolicyValueBytes is left out of the
// fragment (EncodePolicy says so) and travels in a stored share instead.

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"fmt"
	"io"
	"unicode/utf8"

	"schedplay/engine"
)

// MaxPolicyValueBytes bounds the policy key's value: with the other keys, a
// fragment stays within MaxFragmentBytes, and links stay short enough for
// chat programs and issue trackers. A commented scx_simple (about 2.5 KB of
// source) takes about 1.3 KB.
const MaxPolicyValueBytes = 3000

// EncodePolicy is the policy key's value for source, and whether it fits in
// MaxPolicyValueBytes ("" and false when it does not).
func EncodePolicy(source string) (string, bool) {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression) // the level is valid
	w.Write([]byte(source))
	w.Close()
	v := base64.RawURLEncoding.EncodeToString(buf.Bytes())
	if len(v) > MaxPolicyValueBytes {
		return "", false
	}
	return v, true
}

// DecodePolicy reads a policy key's value back into the source, refusing
// what is not base64url, not deflate, longer than engine.MaxScxSourceBytes
// once inflated (read no further than that: a small value can inflate to
// gigabytes), or not UTF-8 text.
func DecodePolicy(v string) (string, error) {
	if len(v) > MaxPolicyValueBytes {
		return "", fmt.Errorf("value is %d bytes, above the limit %d", len(v), MaxPolicyValueBytes)
	}
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return "", fmt.Errorf("is not base64url (the page writes it deflated and base64url-encoded): %v", err)
	}
	r := flate.NewReader(bytes.NewReader(raw))
	src, err := io.ReadAll(io.LimitReader(r, engine.MaxScxSourceBytes+1))
	if err != nil {
		return "", fmt.Errorf("does not inflate: %v", err)
	}
	if len(src) > engine.MaxScxSourceBytes {
		return "", fmt.Errorf("inflates to more than %d bytes, the limit of a policy's source", engine.MaxScxSourceBytes)
	}
	if !utf8.Valid(src) {
		return "", fmt.Errorf("is not UTF-8 text")
	}
	if len(src) == 0 {
		return "", fmt.Errorf("is empty")
	}
	return string(src), nil
}
