// Package urlstate reads and writes the playground's URL fragment: the scenario as
// knob overrides (the same dotted paths as the CLI's --set) plus view keys, e.g.
//
//	#v=1&preset=tpcb-32vcpu&machine.vcpus=32&sched.wake_pull=1&compare=sched.wake_pull&speed=2ms
//
// The fragment is untrusted input: anyone can hand out a link. Parse never panics,
// bounds every size, and reports each rejected key as a Problem naming it, so the
// page can show the reason and carry on with defaults for that key. Values are
// checked here only for syntax and type (engine.KnobValue); ranges and cross-field
// rules are the engine's one set of limits, applied when the knobs meet a scenario.
package urlstate

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"schedplay/engine"
)

// Version is the fragment format version written as v=.
const Version = 1

// Limits on untrusted fragments. A real link is a few hundred bytes; these bound the
// work a hostile link can cause and the length of any message quoting it.
const (
	MaxFragmentBytes = 4096
	MaxKeys          = 64
	MaxValueBytes    = 256
	maxQuoted        = 40
)

// Compare modes besides a knob path. The zero value, CompareDefault, leaves the
// choice to the page (arms when the preset has them); CompareOff is written out so
// that a link can turn comparison off.
const (
	CompareDefault = ""
	CompareOff     = "off"
	CompareArms    = "arms"
)

// Hideable parts of the page (hide=controls,charts).
const (
	HideControls = "controls"
	HideCharts   = "charts"
)

// Themes.
const (
	ThemeDark  = "dark"
	ThemeLight = "light"
)

// Knob is one scenario override.
type Knob struct{ Path, Value string }

// View is how the page shows the run; none of it changes the numbers.
type View struct {
	// Compare is CompareDefault, CompareOff, CompareArms, or a knob path whose two
	// values are CompareA and CompareB (for a boolean knob they default to 0 and 1).
	Compare            string
	CompareA, CompareB string
	// Speed is the time-control token ("20us", "2ms", "max"); "" is the default.
	Speed string
	// AtNs is the moment the page runs ahead to on opening (t=12s), 0 for none.
	AtNs  int64
	Embed bool
	// Hide lists parts of the page to hide, in HideControls, HideCharts order.
	Hide  []string
	Theme string // ThemeDark (the default, written as nothing) or ThemeLight
	// NoGhosts hides the faint arcs of wakeup IPIs the scheduler decided not to
	// send (ghosts=0).
	NoGhosts bool
	// Lesson is the lesson open (lesson=NAME), LessonStep its step from 1
	// (step=N; 0 when not given: the first). See lesson.go.
	Lesson     string
	LessonStep int
}

// State is everything a fragment carries.
type State struct {
	// Preset names the example scenario the knobs apply to ("" = the default one).
	Preset string
	// Knobs are the overrides in the order they apply.
	Knobs []Knob
	// Capacity is machine.capacity, each CPU's capacity (capacity.go); nil
	// leaves the scenario's.
	Capacity []int
	// Policy is a sched_ext policy's Starlark source the page runs as
	// sched.scx.source in place of the scenario's ("" for none): see policy.go.
	Policy string
	// RTApp is an rt-app workload description the page runs as
	// workload.rtapp ("" for none): see policy.go.
	RTApp string
	View  View
}

// Problem is one rejected part of a fragment. Key is the key as written (quoted
// safely, shortened), or "#" for the fragment as a whole.
type Problem struct {
	Key string
	Msg string
}

func (p Problem) String() string { return p.Key + ": " + p.Msg }

// Knob returns the value of path in s and whether it is set.
func (s State) Knob(path string) (string, bool) {
	for _, k := range s.Knobs {
		if k.Path == path {
			return k.Value, true
		}
	}
	return "", false
}

// Parse reads a fragment (with or without the leading '#'). It returns the usable
// part of the state and one Problem per rejected key; a fragment that cannot be
// read at all (too long, wrong version) yields the zero State, i.e. the defaults.
func Parse(fragment string) (State, []Problem) {
	fragment = strings.TrimPrefix(fragment, "#")
	var st State
	if fragment == "" {
		return st, nil
	}
	if len(fragment) > MaxFragmentBytes {
		return State{}, []Problem{{"#", fmt.Sprintf("the fragment is %d bytes, above the limit %d; using the defaults", len(fragment), MaxFragmentBytes)}}
	}
	parts := strings.Split(fragment, "&")
	if len(parts) > MaxKeys {
		return State{}, []Problem{{"#", fmt.Sprintf("the fragment has %d keys, above the limit %d; using the defaults", len(parts), MaxKeys)}}
	}
	var probs []Problem
	seen := map[string]bool{}
	version := ""
	for _, part := range parts {
		if part == "" {
			continue
		}
		rawKey, rawVal, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil {
			probs = append(probs, Problem{quote(rawKey), "is not a known key"})
			continue
		}
		if !validKey(key) {
			probs = append(probs, Problem{quote(key), "is not a known key"})
			continue
		}
		val, err := url.QueryUnescape(rawVal)
		if err != nil {
			probs = append(probs, Problem{key, "has a malformed percent-escape"})
			continue
		}
		if len(val) > MaxValueBytes && key != "policy" && key != "rtapp" {
			probs = append(probs, Problem{key, fmt.Sprintf("value is %d bytes, above the limit %d", len(val), MaxValueBytes)})
			continue
		}
		if seen[key] {
			probs = append(probs, Problem{key, "is given twice; the first is used"})
			continue
		}
		seen[key] = true
		if p, ok := st.setKey(key, val, &version); !ok {
			probs = append(probs, p)
		}
	}
	if p, ok := st.checkLesson(); !ok {
		probs = append(probs, p)
	}
	// A fragment without v= is read as the current version (people type them by
	// hand); any other version is from a page this one does not understand.
	if version != "" && version != strconv.Itoa(Version) {
		msg := fmt.Sprintf("version %s is not supported (this page reads v=%d); using the defaults", quote(version), Version)
		return State{}, []Problem{{"v", msg}}
	}
	return st, probs
}

// setKey applies one decoded key; it reports a Problem when the key or value is
// rejected.
func (st *State) setKey(key, val string, version *string) (Problem, bool) {
	bad := func(format string, args ...any) (Problem, bool) {
		return Problem{key, fmt.Sprintf(format, args...)}, false
	}
	switch key {
	case "v":
		*version = val
	case "preset":
		if !validName(val) {
			return bad("%s is not a preset name", quote(val))
		}
		st.Preset = val
	case "compare":
		c, a, b, err := ParseCompare(val)
		if err != nil {
			return bad("%v", err)
		}
		st.View.Compare, st.View.CompareA, st.View.CompareB = c, a, b
	case "speed":
		if _, _, err := ParseSpeed(val); err != nil {
			return bad("%v", err)
		}
		st.View.Speed = val
	case "t":
		ns, err := ParseMoment(val)
		if err != nil {
			return bad("%v", err)
		}
		st.View.AtNs = ns
	case "embed":
		switch val {
		case "1":
			st.View.Embed = true
		case "0", "":
		default:
			return bad("%s is not 0 or 1", quote(val))
		}
	case "hide":
		for _, h := range strings.Split(val, ",") {
			switch h {
			case HideControls, HideCharts:
				if !slices.Contains(st.View.Hide, h) {
					st.View.Hide = append(st.View.Hide, h)
				}
			case "":
			default:
				return bad("%s is not one of controls, charts", quote(h))
			}
		}
		slices.SortFunc(st.View.Hide, func(a, b string) int { return hideRank(a) - hideRank(b) })
	case "ghosts":
		switch val {
		case "0":
			st.View.NoGhosts = true
		case "1", "":
		default:
			return bad("%s is not 0 or 1", quote(val))
		}
	case "lesson", "step":
		return st.setLessonKey(key, val)
	case "policy":
		src, err := DecodePolicy(val)
		if err != nil {
			return bad("%v", err)
		}
		st.Policy = src
	case "rtapp":
		desc, err := DecodeRTApp(val)
		if err != nil {
			return bad("%v", err)
		}
		st.RTApp = desc
	case CapacityKey:
		caps, err := ParseCapacity(val)
		if err != nil {
			return bad("%v", err)
		}
		st.Capacity = caps
	case "theme":
		switch val {
		case ThemeDark, ThemeLight:
			st.View.Theme = val
		default:
			return bad("%s is not dark or light", quote(val))
		}
	default:
		if _, known := engine.LookupKnob(key); !known {
			return bad("is not a known key")
		}
		if _, err := engine.KnobValue(key, val); err != nil {
			return bad("%s", knobMsg(err))
		}
		st.Knobs = append(st.Knobs, Knob{key, val})
	}
	return Problem{}, true
}

func hideRank(h string) int {
	if h == HideControls {
		return 0
	}
	return 1
}

// knobMsg is the engine's message without the path (the Problem names the key).
func knobMsg(err error) string {
	if fe, ok := err.(*engine.FieldError); ok {
		return fe.Msg
	}
	return err.Error()
}

// ParseCompare splits a compare value: "" (the default), "off", "arms", "path" (a
// boolean knob, compared 0 against 1) or "path:a,b".
func ParseCompare(v string) (mode, a, b string, err error) {
	switch v {
	case CompareDefault, CompareOff, CompareArms:
		return v, "", "", nil
	}
	path, vals, hasVals := strings.Cut(v, ":")
	if !validKey(path) {
		return "", "", "", fmt.Errorf("%s is not off, arms or a knob path", quote(v))
	}
	if hasVals {
		var ok bool
		a, b, ok = strings.Cut(vals, ",")
		if !ok || a == "" || b == "" || strings.Contains(b, ",") {
			return "", "", "", fmt.Errorf("%s needs two values: compare=%s:A,B", quote(v), path)
		}
	}
	k, known := engine.LookupKnob(path)
	if !known {
		return "", "", "", fmt.Errorf("%s is not a knob", quote(path))
	}
	if !hasVals {
		if k.Kind != engine.KindBool {
			return "", "", "", fmt.Errorf("%s is not a boolean knob; give values as compare=%s:A,B", quote(path), path)
		}
		a, b = "0", "1"
	}
	for _, x := range []string{a, b} {
		if _, err := engine.KnobValue(path, x); err != nil {
			return "", "", "", fmt.Errorf("%s", knobMsg(err))
		}
	}
	return path, a, b, nil
}

// FormatCompare is the inverse of ParseCompare.
func FormatCompare(mode, a, b string) string {
	switch mode {
	case CompareDefault, CompareOff, CompareArms:
		return mode
	}
	if k, ok := engine.LookupKnob(mode); ok && k.Kind == engine.KindBool && a == "0" && b == "1" {
		return mode
	}
	return mode + ":" + a + "," + b
}

// Speed limits in simulated nanoseconds per wall-clock second: from slow motion
// (a 2 µs IPI takes seconds to cross the screen) to ten times real time.
const (
	MinSpeedNsPerS = 100
	MaxSpeedNsPerS = 10_000_000_000
)

// ParseSpeed reads a speed token: "max" (as fast as the frame budget allows) or a
// simulated duration per wall second such as "20us", "2ms", "1s".
func ParseSpeed(tok string) (nsPerS int64, max bool, err error) {
	if tok == "max" {
		return 0, true, nil
	}
	num, unit := tok, ""
	for i, r := range tok {
		if r < '0' || r > '9' {
			num, unit = tok[:i], tok[i:]
			break
		}
	}
	n, perr := strconv.ParseInt(num, 10, 64)
	mult := map[string]int64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]
	if perr != nil || mult == 0 || n > MaxSpeedNsPerS {
		return 0, false, fmt.Errorf("%s is not a speed like 20us, 2ms, 1s or max", quote(tok))
	}
	nsPerS = n * mult
	if nsPerS < MinSpeedNsPerS || nsPerS > MaxSpeedNsPerS {
		return 0, false, fmt.Errorf("%s is outside 100ns to 10s of simulated time per second", quote(tok))
	}
	return nsPerS, false, nil
}

// Encode writes the state as a fragment without the '#': v first, then the preset,
// the knobs in order, then the view keys that differ from their defaults.
func Encode(st State) string {
	var b strings.Builder
	add := func(k, v string) {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(escape(v))
	}
	add("v", strconv.Itoa(Version))
	if st.View.Lesson != "" {
		add("lesson", st.View.Lesson)
		if st.View.LessonStep > 0 {
			add("step", strconv.Itoa(st.View.LessonStep))
		}
	}
	if st.Preset != "" {
		add("preset", st.Preset)
	}
	for _, k := range st.Knobs {
		add(k.Path, k.Value)
	}
	if len(st.Capacity) > 0 {
		add(CapacityKey, FormatCapacity(st.Capacity))
	}
	if c := FormatCompare(st.View.Compare, st.View.CompareA, st.View.CompareB); c != "" {
		add("compare", c)
	}
	if st.View.Speed != "" {
		add("speed", st.View.Speed)
	}
	if st.View.AtNs > 0 {
		add("t", FormatMoment(st.View.AtNs))
	}
	if st.View.Theme == ThemeLight {
		add("theme", ThemeLight)
	}
	if len(st.View.Hide) > 0 {
		add("hide", strings.Join(st.View.Hide, ","))
	}
	if st.View.NoGhosts {
		add("ghosts", "0")
	}
	if st.View.Embed {
		add("embed", "1")
	}
	// The page's own texts go last, each left out when it does not fit (the
	// page then says to use Share): one alone always fits MaxFragmentBytes.
	for _, t := range [...]struct{ key, text string }{{"policy", st.Policy}, {"rtapp", st.RTApp}} {
		if t.text == "" {
			continue
		}
		if v, ok := encodeText(t.text); ok && b.Len()+len(t.key)+2+len(v) <= MaxFragmentBytes {
			add(t.key, v)
		}
	}
	return b.String()
}

// escape percent-encodes everything but a conservative set, so a fragment survives
// copy and paste through chat programs and e-mail.
func escape(s string) string {
	const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:,"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if strings.IndexByte(safe, c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// validKey accepts lower-case dotted identifiers: every knob path and view key.
func validKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// validName accepts preset names: file stems like "tpcb-32vcpu".
func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// quote renders untrusted text for a message: Go-quoted (so control characters and
// markup show as escapes) and shortened.
func quote(s string) string {
	cut := false
	if len(s) > maxQuoted {
		s, cut = s[:maxQuoted], true
	}
	// Escapes can quadruple the length; shorten until the quoted form fits.
	for len(strconv.Quote(s)) > maxQuoted+8 {
		s, cut = s[:len(s)-1], true
	}
	if cut {
		return strconv.Quote(s) + "…"
	}
	return strconv.Quote(s)
}
