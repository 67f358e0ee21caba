package urlstate

// The page's own texts in the fragment: a sched_ext policy's Starlark source
// (policy=...) and an rt-app workload description (rtapp=...), each deflated
// and then base64url-encoded, so a short one edited in the page reopens from
// a copied link without a share. A text whose encoding does not fit
// MaxTextValueBytes, or would take the fragment past MaxFragmentBytes, is
// left out of the fragment (Encode; the page then says to use Share, which
// stores the whole scenario).

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"fmt"
	"io"
	"unicode/utf8"

	"schedplay/engine"
)

// MaxTextValueBytes bounds the policy and rtapp keys' values: with the other
// keys, a fragment stays within MaxFragmentBytes, and links stay short
// enough for chat programs and issue trackers. A commented scx_simple (about
// 2.5 KB of source) takes about 1.3 KB.
const MaxTextValueBytes = 3000

// MaxPolicyValueBytes is MaxTextValueBytes, by the policy key's name.
const MaxPolicyValueBytes = MaxTextValueBytes

// EncodePolicy is the policy key's value for source, and whether it fits in
// MaxTextValueBytes ("" and false when it does not).
func EncodePolicy(source string) (string, bool) { return encodeText(source) }

// DecodePolicy reads a policy key's value back into the source (decodeText),
// at most engine.MaxScxSourceBytes.
func DecodePolicy(v string) (string, error) { return decodeText(v, engine.MaxScxSourceBytes) }

// EncodeRTApp is the rtapp key's value for an rt-app description, and
// whether it fits in MaxTextValueBytes.
func EncodeRTApp(desc string) (string, bool) { return encodeText(desc) }

// DecodeRTApp reads an rtapp key's value back into the description
// (decodeText), at most engine.MaxRTAppBytes.
func DecodeRTApp(v string) (string, error) { return decodeText(v, engine.MaxRTAppBytes) }

func encodeText(text string) (string, bool) {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression) // the level is valid
	w.Write([]byte(text))
	w.Close()
	v := base64.RawURLEncoding.EncodeToString(buf.Bytes())
	if len(v) > MaxTextValueBytes {
		return "", false
	}
	return v, true
}

// decodeText refuses what is not base64url, not deflate, longer than limit
// once inflated (read no further than that: a small value can inflate to
// gigabytes), or not UTF-8 text.
func decodeText(v string, limit int) (string, error) {
	if len(v) > MaxTextValueBytes {
		return "", fmt.Errorf("value is %d bytes, above the limit %d", len(v), MaxTextValueBytes)
	}
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return "", fmt.Errorf("is not base64url (the page writes it deflated and base64url-encoded): %v", err)
	}
	r := flate.NewReader(bytes.NewReader(raw))
	text, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return "", fmt.Errorf("does not inflate: %v", err)
	}
	if len(text) > limit {
		return "", fmt.Errorf("inflates to more than %d bytes, the limit of its field", limit)
	}
	if !utf8.Valid(text) {
		return "", fmt.Errorf("is not UTF-8 text")
	}
	if len(text) == 0 {
		return "", fmt.Errorf("is empty")
	}
	return string(text), nil
}
