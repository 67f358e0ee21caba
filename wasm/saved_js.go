package main

import (
	"strings"
	"sync"
	"syscall/js"

	"schedplay/docs"
	"schedplay/engine"
	"schedplay/internal/shareapi"
	"schedplay/playground"
)

// The page's saved states (playground.SavedStates): the bundle's index
// (checkpoints/index.txt, fetched as the page starts, a few hundred bytes) says
// which scenarios have a pack; a scenario's pack (checkpoints/KEY.ckp) is
// fetched the first time the model asks for it, at its first jump. On a share
// page (/s/{id}) the share's own states (/api/share/{id}/checkpoints, for this
// engine) are fetched at the first jump too; a share made before they existed has none
// (404), and the page runs from zero as it always did.
type savedShell struct {
	store   *playground.SavedStates
	shareID string

	mu          sync.Mutex
	engine      string          // this build's engine's calibration fingerprint, once read
	index       map[string]bool // nil until the index has arrived
	waiting     []engine.ScenarioKey
	shareAsked  bool
	uint8Array  js.Value
	arrayBuffer js.Value
}

// newSavedStates returns the store the model reads, and starts fetching the
// index. shareID is the share page's ID, or "".
func newSavedStates(shareID string) *playground.SavedStates {
	g := js.Global()
	s := &savedShell{shareID: shareID, uint8Array: g.Get("Uint8Array"), arrayBuffer: g.Get("ArrayBuffer")}
	s.store = playground.NewSavedStates(s.want)
	s.fetch("/checkpoints/index.txt", func(b []byte) {
		idx := map[string]bool{}
		for _, line := range strings.Split(string(b), "\n") {
			if key, _, _ := strings.Cut(line, " "); key != "" && !strings.HasPrefix(key, "#") {
				idx[key] = true
			}
		}
		s.mu.Lock()
		s.index = idx
		waiting := s.waiting
		s.waiting = nil
		s.mu.Unlock()
		for _, k := range waiting {
			s.want(k)
		}
	})
	return s.store
}

// want fetches key's states when the index lists them, and the share's once.
func (s *savedShell) want(key engine.ScenarioKey) {
	s.mu.Lock()
	share := s.shareID != "" && !s.shareAsked
	s.shareAsked = s.shareAsked || share
	listed := s.index[key.String()]
	if s.index == nil {
		s.waiting = append(s.waiting, key)
	}
	s.mu.Unlock()
	if !share && !listed {
		return
	}
	// The engine's calibration fingerprint names it: the server answers with
	// a share's states only its own engine made (shareapi.StatesPath),
	// and the bundle's packs are asked for under the same name, so a browser
	// that cached one from another build does not hand it to this engine.
	fp := s.fingerprint()
	if share {
		s.fetch(shareapi.StatesPath(s.shareID, fp), func(b []byte) { s.add(b, playground.SavedWithShare) })
	}
	if listed {
		s.fetch("/checkpoints/"+key.String()+".ckp?e="+shareapi.EngineTag(fp), func(b []byte) { s.add(b, playground.SavedWithPage) })
	}
}

// fingerprint is the engine's calibration fingerprint, read once (it takes
// decoding the verdict table).
func (s *savedShell) fingerprint() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.engine == "" {
		table, _ := docs.Load()
		s.engine = table.Fingerprint
	}
	return s.engine
}

func (s *savedShell) add(pack []byte, origin string) {
	if err := s.store.Add(pack, origin); err != nil {
		logError(err)
	}
}

// fetch GETs url and calls done with the body when the answer is 200; any
// other answer or a network error leaves the page as it is (it runs from
// zero), so it is not reported.
func (s *savedShell) fetch(url string, done func([]byte)) {
	var onResp, onBody, onErr js.Func
	release := func() { onResp.Release(); onBody.Release(); onErr.Release() }
	onResp = js.FuncOf(func(_ js.Value, args []js.Value) any {
		if r := args[0]; r.Get("ok").Bool() {
			return r.Call("arrayBuffer")
		}
		return nil
	})
	onBody = js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer release()
		if len(args) == 0 || !args[0].InstanceOf(s.arrayBuffer) {
			return nil
		}
		u8 := s.uint8Array.New(args[0])
		b := make([]byte, u8.Length())
		js.CopyBytesToGo(b, u8)
		go done(b) // off the event loop's callback: done takes locks
		return nil
	})
	onErr = js.FuncOf(func(js.Value, []js.Value) any { release(); return nil })
	js.Global().Call("fetch", url).Call("then", onResp).Call("then", onBody).Call("catch", onErr)
}
