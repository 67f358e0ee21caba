package sharetest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// PreviewScenario is a small comparison (two arms, idle pull off and on) whose
// link preview every host computes completely within a few hundred thousand
// engine events.
func PreviewScenario(n int) []byte {
	return fmt.Appendf(nil, `{"version":1,"name":"preview-%d","seed":%d,"duration_ms":300,"warmup_ms":100,`+
		`"series_interval_ms":20,"machine":{"vcpus":4},"workload":{"kind":"request_server","clients":8},`+
		`"arms":[{"name":"pull off","set":{"sched.wake_pull":"false"}},{"name":"pull on","set":{"sched.wake_pull":"true"}}]}`, n, n+1)
}

// The tags the server adds to the page's head are between these comments.
const (
	injectedStart = "<!-- link preview (schedplay/web) -->\n"
	injectedEnd   = "<!-- end of link preview -->\n"
)

// CheckPage checks that body is page with the link-preview tags added (in its
// head) and nothing else changed.
func CheckPage(t testing.TB, body, page []byte) {
	t.Helper()
	i := bytes.Index(body, []byte(injectedStart))
	j := bytes.Index(body, []byte(injectedEnd))
	if i < 0 || j < i {
		t.Fatalf("the page has no link-preview tags: %.400s", body)
	}
	if rest := append(bytes.Clone(body[:i]), body[j+len(injectedEnd):]...); !bytes.Equal(rest, page) {
		t.Errorf("without its link-preview tags the page is\n%s\nwant the playground page\n%s", rest, page)
	}
}

// PageMeta is what a link unfurler or an oEmbed consumer reads from a page's
// head: meta tags by property or name, and the oEmbed discovery link.
type PageMeta struct {
	Meta   map[string]string
	OEmbed string // href of <link rel="alternate" type="application/json+oembed">
}

// ReadMeta parses an HTML page as a consumer would (golang.org/x/net/html).
func ReadMeta(t testing.TB, page []byte) PageMeta {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("the page does not parse as HTML: %v", err)
	}
	m := PageMeta{Meta: map[string]string{}}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			a := map[string]string{}
			for _, at := range n.Attr {
				a[at.Key] = at.Val
			}
			switch {
			case n.Data == "meta" && a["property"] != "":
				m.Meta[a["property"]] = a["content"]
			case n.Data == "meta" && a["name"] != "":
				m.Meta[a["name"]] = a["content"]
			case n.Data == "link" && a["rel"] == "alternate" && a["type"] == "application/json+oembed":
				m.OEmbed = a["href"]
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return m
}

// local is where the test fetches u: the host under test stands in for the
// public URL it was configured with.
func (h Host) local(u string) string {
	if h.PublicURL != "" {
		if rest, ok := strings.CutPrefix(u, h.PublicURL+"/"); ok {
			return h.Base + "/" + rest
		}
	}
	return u
}

// resolve makes ref absolute against the page at pageURL, as a browser would.
func resolve(t testing.TB, pageURL, ref string) string {
	t.Helper()
	base, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	u, err := base.Parse(ref)
	if err != nil {
		t.Fatalf("%q is not a URL: %v", ref, err)
	}
	return u.String()
}

// OEmbedReply is the part of an oEmbed response the contract checks.
type OEmbedReply struct {
	Version         string `json:"version"`
	Type            string `json:"type"`
	Title           string `json:"title"`
	HTML            string `json:"html"`
	Width           int    `json:"width"`
	Height          int    `json:"height"`
	ThumbnailURL    string `json:"thumbnail_url"`
	ThumbnailWidth  int    `json:"thumbnail_width"`
	ThumbnailHeight int    `json:"thumbnail_height"`
}

// iframeSrc returns the src, width and height of the one iframe in an oEmbed
// html, parsed as a consumer inserting it would.
func iframeSrc(t testing.TB, fragment string) (src, width, height string) {
	t.Helper()
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(fragment), body)
	if err != nil || len(nodes) != 1 || nodes[0].Data != "iframe" {
		t.Fatalf("oEmbed html is not one iframe: %q (%v)", fragment, err)
	}
	for _, a := range nodes[0].Attr {
		switch a.Key {
		case "src":
			src = a.Val
		case "width":
			width = a.Val
		case "height":
			height = a.Val
		}
	}
	return src, width, height
}

// previewContract checks the link preview of a fresh share: the page's tags,
// the card they name, the oEmbed response found through the page's discovery
// link, and the SVG chart, each followed as its consumer would.
func previewContract(t *testing.T, h Host) {
	client, base := h.Client, h.Base
	r := Share(t, client, base, PreviewScenario(1))
	pageURL := base + "/s/" + r.ID
	resp, body := Do(t, client, http.MethodGet, pageURL, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /s/%s: %s", r.ID, resp.Status)
	}
	CheckPage(t, body, h.Page)
	m := ReadMeta(t, body)

	t.Run("tags", func(t *testing.T) {
		for key, want := range map[string]string{
			"og:title":      "schedplay: preview-1: pull off vs pull on (sched.wake_pull)",
			"og:url":        h.PublicURL + "/s/" + r.ID,
			"og:image":      h.PublicURL + "/s/" + r.ID + ".png",
			"twitter:card":  "summary_large_image",
			"twitter:image": h.PublicURL + "/s/" + r.ID + ".png",
		} {
			if got := m.Meta[key]; got != want {
				t.Errorf("%s = %q, want %q", key, got, want)
			}
		}
		if d := m.Meta["og:description"]; !strings.HasPrefix(d, "In the model, pull on: ") || !strings.Contains(d, "throughput") {
			t.Errorf("og:description %q does not give the headline result", d)
		}
	})

	t.Run("card", func(t *testing.T) {
		resp, img := Do(t, client, http.MethodGet, h.local(resolve(t, pageURL, m.Meta["og:image"])), nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("GET og:image: %s %q", resp.Status, resp.Header.Get("Content-Type"))
		}
		checkHeaders(t, resp)
		cfg, err := png.DecodeConfig(bytes.NewReader(img))
		if err != nil || cfg.Width != 1200 || cfg.Height != 630 {
			t.Errorf("og:image is %dx%d (%v), want a 1200x630 PNG", cfg.Width, cfg.Height, err)
		}
		if _, err := png.Decode(bytes.NewReader(img)); err != nil {
			t.Errorf("og:image does not decode: %v", err)
		}
	})

	t.Run("oEmbed consumer", func(t *testing.T) {
		if m.OEmbed == "" {
			t.Fatal("no oEmbed discovery link")
		}
		endpoint := h.local(resolve(t, pageURL, m.OEmbed))
		for _, tc := range []struct {
			desc, extra   string
			width, height int
		}{
			{"as discovered", "", 960, 540},
			{"maxwidth", "&maxwidth=480", 480, 270},
			{"maxheight", "&maxheight=200", 355, 200},
			{"both", "&maxwidth=400&maxheight=400", 400, 225},
			{"larger than needed", "&maxwidth=4000&maxheight=4000", 960, 540},
		} {
			t.Run(tc.desc, func(t *testing.T) {
				resp, data := Do(t, client, http.MethodGet, endpoint+tc.extra, nil)
				if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
					t.Fatalf("GET %s: %s %q %s", endpoint+tc.extra, resp.Status, resp.Header.Get("Content-Type"), data)
				}
				var o OEmbedReply
				if err := json.Unmarshal(data, &o); err != nil {
					t.Fatalf("oEmbed reply is not JSON: %v: %s", err, data)
				}
				if o.Version != "1.0" || o.Type != "rich" || o.Width != tc.width || o.Height != tc.height || !strings.Contains(o.Title, "preview-1") {
					t.Errorf("oEmbed reply %+v, want version 1.0, type rich, %dx%d, titled after the scenario", o, tc.width, tc.height)
				}
				src, w, hgt := iframeSrc(t, o.HTML)
				if w != fmt.Sprint(tc.width) || hgt != fmt.Sprint(tc.height) {
					t.Errorf("iframe is %sx%s, want %dx%d", w, hgt, tc.width, tc.height)
				}
				if want := h.PublicURL + "/s/" + r.ID + "#embed=1"; src != want {
					t.Errorf("iframe src %q, want %q", src, want)
				}
				// The iframe's page is the share's page (resolved as the embedding
				// page would when the server has no public URL: against itself).
				if resp, _ := Do(t, client, http.MethodGet, h.local(resolve(t, pageURL, src)), nil); resp.StatusCode != http.StatusOK {
					t.Errorf("GET the iframe's src: %s", resp.Status)
				}
				if thumb := o.ThumbnailURL != ""; thumb != (h.PublicURL != "" && tc.width == 960) {
					t.Errorf("thumbnail %q (%dx%d) for a %dx%d embed", o.ThumbnailURL, o.ThumbnailWidth, o.ThumbnailHeight, o.Width, o.Height)
				}
			})
		}
		// The view the link was shared with goes into the iframe, in embed mode.
		q := url.Values{"url": {pageURL + "#v=1&theme=light&embed=0"}, "format": {"json"}}
		if h.PublicURL != "" {
			q.Set("url", h.PublicURL+"/s/"+r.ID+"#v=1&theme=light&embed=0")
		}
		_, data := Do(t, client, http.MethodGet, base+"/oembed?"+q.Encode(), nil)
		var o OEmbedReply
		json.Unmarshal(data, &o)
		if src, _, _ := iframeSrc(t, o.HTML); !strings.HasSuffix(src, "/s/"+r.ID+"#v=1&theme=light&embed=1") {
			t.Errorf("iframe src %q does not keep the link's view (v=1&theme=light) in embed mode", src)
		}
	})

	t.Run("chart", func(t *testing.T) {
		var backgrounds []string
		for _, theme := range []string{"", "?theme=dark", "?theme=light"} {
			resp, data := Do(t, client, http.MethodGet, pageURL+".svg"+theme, nil)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml; charset=utf-8" {
				t.Fatalf("GET /s/%s.svg%s: %s %q", r.ID, theme, resp.Status, resp.Header.Get("Content-Type"))
			}
			checkHeaders(t, resp)
			root, bg, text := readSVG(t, data)
			if root != (xml.Name{Space: "http://www.w3.org/2000/svg", Local: "svg"}) || !strings.Contains(text, "preview-1") {
				t.Errorf("GET /s/%s.svg%s: root %v, text %q; want an SVG titled after the scenario", r.ID, theme, root, text)
			}
			backgrounds = append(backgrounds, bg)
		}
		if backgrounds[0] != backgrounds[1] || backgrounds[1] == backgrounds[2] {
			t.Errorf("backgrounds (default, dark, light) = %q: want dark by default and light different", backgrounds)
		}
	})

	long := strings.Repeat("L", 4000)
	for _, tc := range []struct {
		desc, method, path string
		status             int
		publicOnly         bool // only a server with a public URL can tell a link elsewhere
	}{
		{"oEmbed as XML", "GET", "/oembed?format=xml&url=" + url.QueryEscape(pageURL), http.StatusNotImplemented, false},
		{"oEmbed without url", "GET", "/oembed?format=json", http.StatusBadRequest, false},
		{"oEmbed of an unknown share", "GET", "/oembed?url=" + url.QueryEscape(h.PublicURL+"/s/AAAAAAAAAAA"), http.StatusNotFound, false},
		{"oEmbed of a malformed id", "GET", "/oembed?url=" + url.QueryEscape(h.PublicURL+"/s/not*an*id"), http.StatusNotFound, false},
		{"oEmbed of another page", "GET", "/oembed?url=" + url.QueryEscape(h.PublicURL+"/about"), http.StatusNotFound, false},
		{"oEmbed of another host", "GET", "/oembed?url=" + url.QueryEscape("https://elsewhere.example/s/"+r.ID), http.StatusNotFound, false},
		{"oEmbed of a long url", "GET", "/oembed?url=" + long, http.StatusNotFound, false},
		{"oEmbed maxwidth not a number", "GET", "/oembed?maxwidth=wide&url=" + url.QueryEscape(pageURL), http.StatusBadRequest, false},
		{"oEmbed maxheight zero", "GET", "/oembed?maxheight=0&url=" + url.QueryEscape(pageURL), http.StatusBadRequest, false},
		{"POST oEmbed", "POST", "/oembed", http.StatusMethodNotAllowed, false},
		{"card of an unknown share", "GET", "/s/AAAAAAAAAAA.png", http.StatusNotFound, false},
		{"chart of an unknown share", "GET", "/s/AAAAAAAAAAA.svg", http.StatusNotFound, false},
		{"chart of a long id", "GET", "/s/" + long + ".svg", http.StatusNotFound, false},
		{"chart in an unknown theme", "GET", "/s/" + r.ID + ".svg?theme=sepia", http.StatusBadRequest, false},
		{"POST a card", "POST", "/s/" + r.ID + ".png", http.StatusMethodNotAllowed, false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if tc.publicOnly && h.PublicURL == "" {
				t.Skip("without a public URL every host's link is taken as this server's")
			}
			resp, body := Do(t, client, tc.method, base+tc.path, nil)
			if resp.StatusCode != tc.status {
				t.Fatalf("%s %.80s: %s, want %d; body %.300s", tc.method, tc.path, resp.Status, tc.status, body)
			}
			checkHeaders(t, resp)
			var e ErrorReply
			if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
				t.Errorf("error body is not {\"error\": ...}: %v: %.300s", err, body)
			}
			if bytes.Contains(body, []byte(long[:100])) {
				t.Errorf("the reply repeats the request: %.200s", body)
			}
		})
	}
}

// readSVG parses an SVG document with encoding/xml and returns its root
// element, the fill of its first rect (the background) and all its text.
func readSVG(t testing.TB, data []byte) (root xml.Name, bg, text string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return root, bg, text
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%.500s", err, data)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root.Local == "" {
				root = el.Name
			}
			for _, a := range el.Attr {
				if el.Name.Local == "rect" && a.Name.Local == "fill" && bg == "" {
					bg = a.Value
				}
			}
		case xml.CharData:
			text += string(el)
		}
	}
}
