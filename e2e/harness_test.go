package e2e

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"schedplay/internal/wasmbuild"
	"schedplay/web"
)

// repoRoot is the module root (the parent of this package's directory).
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// chromePath finds Chromium, or skips (fails under CI=true) when there is none.
func chromePath(t testing.TB) string {
	t.Helper()
	candidates := []string{os.Getenv("SCHEDPLAY_CHROME"), "/usr/lib/chromium/chromium", "/usr/bin/chromium"}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			candidates = append(candidates, p)
		}
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	msg := "Chromium not found (apt-get install chromium, or set SCHEDPLAY_CHROME)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true makes this a failure")
	}
	t.Skip(msg + "; skipping the browser tests")
	return ""
}

// built is the bundle's build (wasmbuild.EnsureBuilt), done once by TestMain
// before the tests start, and its log.
var built struct {
	err error
	log bytes.Buffer
}

// skipShort skips a test of the built playground in -short mode: building the
// wasm takes a minute when the build cache is cold, and the browser tests take
// minutes more. CI runs them (.ci/run runs go test without -short).
func skipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the wasm bundle and drives headless Chromium; skipped in -short mode")
	}
}

// ensureWasm fails the test when TestMain could not build the bundle.
func ensureWasm(t testing.TB) {
	t.Helper()
	skipShort(t)
	if built.err != nil {
		t.Fatalf("building the wasm: %v\n%s", built.err, built.log.String())
	}
}

// shareStore is a stand-in for the share API (owned by web/), so the Share button
// and /s/{id} pages can be tested without it.
type shareStore struct {
	mu   sync.Mutex
	data map[string][]byte
	fail bool // answer 503, as when the share service is down
}

// newServer serves static/ like `schedplay serve` does for the playground: the
// page at / and /s/{id}, wasm as application/wasm, and a stand-in share API,
// under serve's Content-Security-Policy (web.ContentSecurityPolicy), so every
// test runs the page as visitors get it: without it, the editors lost all
// their styles in production and no test saw it (issue 31).
func newServer(share *shareStore) *httptest.Server {
	root, _ := filepath.Abs("..")
	static := filepath.Join(root, "static")
	files := http.FileServer(http.Dir(static))
	sharePath := regexp.MustCompile(`^/s/[A-Za-z0-9_-]{1,64}/?$`)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", web.ContentSecurityPolicy())
		if sharePath.MatchString(r.URL.Path) {
			http.ServeFile(w, r, filepath.Join(static, "index.html"))
			return
		}
		if strings.HasSuffix(r.URL.Path, ".wasm") {
			w.Header().Set("Content-Type", "application/wasm")
		}
		files.ServeHTTP(w, r)
	})
	if share != nil {
		share.data = map[string][]byte{}
		mux.HandleFunc("POST /api/share", func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
			share.mu.Lock()
			if share.fail {
				share.mu.Unlock()
				http.Error(w, "unavailable", http.StatusServiceUnavailable)
				return
			}
			id := fmt.Sprintf("t%d", len(share.data)+1)
			share.data[id] = body
			share.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":%q,"url":%q}`, id, "/s/"+id)
		})
		mux.HandleFunc("GET /api/share/{id}", func(w http.ResponseWriter, r *http.Request) {
			share.mu.Lock()
			b, ok := share.data[r.PathValue("id")]
			share.mu.Unlock()
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(b)
		})
	}
	return httptest.NewServer(mux)
}

// shared holds the one browser and server the tests share: starting Chromium and
// compiling the 12 MB wasm are the slow parts, and one origin lets the browser
// cache the compiled module across tabs.
var shared struct {
	once    sync.Once
	err     error
	ctx     context.Context // the browser (its first tab)
	cancel  func()
	dataDir string
	srv     *httptest.Server
	share   *shareStore
}

// TestMain builds the bundle (static/schedplay.wasm, the engine worker and the
// saved states) before the tests run, unless -short skips them. It is the
// tests' fixture, built like the test binary itself before any test starts: on
// a fresh clone with a cold build cache, and beside other packages' tests, the
// build alone takes minutes, and those should not come out of the time go
// test gives the tests (its -timeout starts with them).
func TestMain(m *testing.M) {
	flag.Parse()
	if !testing.Short() {
		root, err := filepath.Abs("..")
		if err == nil {
			err = wasmbuild.EnsureBuilt(root, &built.log)
		}
		built.err = err
	}
	code := m.Run()
	if shared.cancel != nil {
		shared.cancel()
	}
	if shared.srv != nil {
		shared.srv.Close()
	}
	if shared.dataDir != "" {
		os.RemoveAll(shared.dataDir)
	}
	os.Exit(code)
}

// browser returns a new tab of the shared headless Chromium with a viewport of the
// given size, and the shared server's base URL. The flags are those a headless
// Chromium needs as root on a machine without a GPU: no sandbox, and WebGL2 on
// SwiftShader (without enable-unsafe-swiftshader Chromium warns that the software
// fallback is deprecated).
func browser(t testing.TB, width, height int) (context.Context, string) {
	t.Helper()
	skipShort(t)
	path := chromePath(t)
	ensureWasm(t)
	shared.once.Do(func() {
		shared.share = &shareStore{}
		shared.srv = newServer(shared.share)
		shared.dataDir, shared.err = os.MkdirTemp("", "schedplay-e2e-chrome-")
		if shared.err != nil {
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.NoSandbox,
			chromedp.Flag("disable-gpu", true),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("enable-unsafe-swiftshader", true),
			chromedp.UserDataDir(shared.dataDir),
			chromedp.WindowSize(1440, 900),
		)
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelC := chromedp.NewContext(actx)
		shared.ctx = ctx
		shared.cancel = func() { cancelC(); cancelA() }
		shared.err = chromedp.Do(ctx, chromedp.Navigate("about:blank"))
	})
	if shared.err != nil {
		t.Fatalf("starting Chromium: %v", shared.err)
	}
	ctx, cancel := chromedp.NewContext(shared.ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	// Any uncaught exception, console error (a failed fetch, a Go panic) or
	// security report of the browser (a CSP refusal, which never reaches the
	// console API) fails the test.
	var mu sync.Mutex
	var errs []string
	err := chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type != runtime.ConsoleAPICalledTypeError {
				return
			}
			msg = "console.error:"
			for _, a := range ev.Args {
				msg += " " + string(a.Value) + a.Description
			}
		case *cdplog.EventEntryAdded:
			// The browser's own reports: a CSP refusal comes here (source
			// "security"), not through the console API.
			if ev.Entry.Source != cdplog.EntrySourceSecurity {
				return
			}
			msg = "security: " + ev.Entry.Text + " (url " + ev.Entry.URL + ")"
		default:
			return
		}
		mu.Lock()
		errs = append(errs, msg)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range errs {
			if !expectedConsoleError(e) {
				t.Errorf("page error: %s", e)
			}
		}
	})
	base := shared.srv.URL
	if u := os.Getenv("SCHEDPLAY_E2E_URL"); u != "" {
		base = strings.TrimSuffix(u, "/")
	}
	return ctx, base
}

// expectedConsoleError lists errors a test provokes on purpose: a share id that
// does not exist, the share service refusing, a browser without Web Workers.
// And one CSP refusal no script causes: text typed over a selection across
// lines of an editor makes Chromium's editing try a style attribute on the
// line (reported against the page, with the note about style attributes);
// CodeMirror redraws the line from its state, so nothing is lost. A refusal
// a script causes names the script's URL and still fails.
func expectedConsoleError(msg string) bool {
	if strings.HasPrefix(msg, "security: ") {
		return strings.Contains(msg, "hashes do not apply to event handlers, style attributes") && !strings.HasSuffix(msg, ".js)")
	}
	return strings.Contains(msg, "404") || strings.Contains(msg, "503") || strings.Contains(msg, "no Web Workers")
}

// setDPR emulates a device pixel ratio (HiDPI screens).
func setDPR(t testing.TB, ctx context.Context, width, height int, dpr float64) {
	t.Helper()
	err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height),
		func(p *emulation.SetDeviceMetricsOverrideParams, _ *emulation.SetTouchEmulationEnabledParams) {
			p.DeviceScaleFactor = dpr
		}))
	if err != nil {
		t.Fatal(err)
	}
}

// open navigates to url (or reloads the page for url "") and waits until the page
// has drawn frames.
func open(t testing.TB, ctx context.Context, url string) {
	t.Helper()
	nav := chromedp.Navigate(url)
	if url == "" {
		nav = chromedp.Reload()
	}
	if err := chromedp.Do(ctx, nav); err != nil {
		t.Fatalf("navigate %s: %v", url, err)
	}
	waitFor(t, ctx, `window.schedplay && (() => { try { const s = window.schedplay.state(); return s.perf.frames > 2 && s.tiles > 0 } catch (e) { return false } })()`, 60*time.Second)
}

// eval evaluates a JavaScript expression into T.
func eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// pageState is the part of window.schedplay.state() the tests read.
type pageState struct {
	NowNs    int64  `json:"now_ns"`
	Playing  bool   `json:"playing"`
	Done     bool   `json:"done"`
	Fragment string `json:"fragment"`
	Preset   string `json:"preset"`
	Compare  string `json:"compare"`
	Embed    bool   `json:"embed"`
	Scenario struct {
		Seed    uint64 `json:"seed"`
		Machine struct {
			VCPUs int `json:"vcpus"`
		} `json:"machine"`
		Sched struct {
			WakePull bool `json:"wake_pull"`
			IdleSpin struct {
				Cap int64 `json:"cap"`
			} `json:"idle_spin"`
		} `json:"sched"`
		Workload struct {
			Clients int `json:"clients"`
		} `json:"workload"`
	} `json:"scenario"`
	Metrics jsontext.Value `json:"metrics"`
	CPUs    []struct {
		ID       int    `json:"id"`
		State    string `json:"state"`
		Runqueue int    `json:"runqueue"`
	} `json:"cpus"`
	Arms []struct {
		Name string `json:"name"`
	} `json:"arms"`
	Problems []string `json:"problems"`
	Tiles    int      `json:"tiles"`
	Boxes    []struct {
		Arm int     `json:"arm"`
		CPU int     `json:"cpu"`
		X   float64 `json:"x"`
		Y   float64 `json:"y"`
		W   float64 `json:"w"`
	} `json:"boxes"`
	Selected struct {
		Arm    int `json:"arm"`
		CPU    int `json:"cpu"`
		Thread int `json:"thread"`
	} `json:"selected"`
	Perf struct {
		Frames       int64   `json:"frames"`
		FirstFrameMs float64 `json:"first_frame_ms"`
		MedianMs     float64 `json:"median_ms"`
		P95Ms        float64 `json:"p95_ms"`
		MaxMs        float64 `json:"max_ms"`
		Samples      int     `json:"samples"`
		Vertices     int     `json:"vertices"`
	} `json:"perf"`
}

func state(t testing.TB, ctx context.Context) pageState { return stateAs[pageState](t, ctx) }

// stateAs reads window.schedplay.state() into the parts of it that T names.
func stateAs[T any](t testing.TB, ctx context.Context) T {
	t.Helper()
	return evalJSON[T](t, ctx, `window.schedplay.state()`)
}

// evalJSON evaluates a JavaScript expression and decodes its value, as JSON,
// into the parts of it that T names.
func evalJSON[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	raw := eval[string](t, ctx, `JSON.stringify(`+expr+`)`)
	var s T
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatalf("decoding %s: %v\n%s", expr, err, raw)
	}
	return s
}

// viewport, as screenshot's selector, captures what the window shows (a
// projector's 1920x1080) rather than the whole page.
const viewport = ":viewport"

// screenshot captures an element (CSS selector), the whole page ("") or the
// viewport (viewport) and keeps the PNG under SCHEDPLAY_SCREENSHOTS (or the
// test's temporary directory).
func screenshot(t testing.TB, ctx context.Context, sel, name string) image.Image {
	t.Helper()
	var buf []byte
	var err error
	switch sel {
	case "":
		buf, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	case viewport:
		buf, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
	default:
		buf, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	}
	if err != nil {
		t.Fatalf("screenshot %s: %v", sel, err)
	}
	dir := os.Getenv("SCHEDPLAY_SCREENSHOTS")
	switch {
	case dir == "":
		dir = t.TempDir()
	case !filepath.IsAbs(dir):
		dir = filepath.Join(repoRoot(t), dir) // relative to the repository, not to e2e/
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatalf("decoding screenshot: %v", err)
	}
	return img
}

// colourStats counts the distinct (coarsely quantised) colours of an image and the
// fraction of pixels that differ from its most common colour (the background).
func colourStats(img image.Image) (distinct int, nonBackground float64) {
	counts := map[uint32]int{}
	b := img.Bounds()
	total := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			key := (r>>12)<<8 | (g>>12)<<4 | bl>>12
			counts[key]++
			total++
		}
	}
	most := 0
	for _, c := range counts {
		most = max(most, c)
	}
	if total == 0 {
		return 0, 0
	}
	return len(counts), float64(total-most) / float64(total)
}
