package web

import (
	"bytes"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"

	"schedplay/internal/shareapi"
	"schedplay/preview"
)

// handleSharePage serves the playground page for a known share ID, with the link
// preview's tags added to its head: OpenGraph and Twitter-card tags (title,
// headline result, the card) and the oEmbed discovery link. The page's script
// sees the /s/{id} path and fetches /api/share/{id} itself.
//
// Only a stored preview is used: a share without one (made before previews
// existed) gets tags from its scenario alone rather than keep the page waiting
// for the engine; its card, which the tags name, computes the preview.
func (s *Server) handleSharePage(w http.ResponseWriter, r *http.Request, id string) {
	canonical, ok := s.lookup(w, r, id, writeNotFoundPage)
	if !ok {
		return
	}
	page, err := s.page(r.Context())
	if err != nil {
		s.internalError(w, r, fmt.Errorf("loading the playground page: %w", err))
		return
	}
	p, ok, err := s.storedPreview(r.Context(), id)
	if err != nil { // the page is still worth serving; the tags are not
		s.log.Error("web: reading a preview", "id", id, "err", err)
	}
	var title, desc string
	alt := "vCPU tiles and headline numbers of "
	if ok {
		title, desc = p.Title(), p.Description()
		if p.PolicyError != nil {
			alt = "Why the policy does not compile, in "
		}
	} else {
		title, desc = scenarioSummary(canonical)
	}
	tags := s.headTags(id, title, desc, alt)
	writeBody(w, r, "text/html; charset=utf-8", "no-cache", injectHead(page, tags))
}

// scenarioSummary names a share that has no preview yet, from its scenario.
func scenarioSummary(canonical []byte) (title, desc string) {
	sc, err := shareapi.DecodeScenario(canonical)
	if err != nil {
		return "a shared scenario", "A guest scheduler scenario in schedplay."
	}
	title = sc.Name
	if title == "" {
		title = "a shared scenario"
	}
	if len(sc.Arms) >= 2 {
		title += ": " + sc.Arms[0].Name + " vs " + sc.Arms[1].Name
	}
	return clip(title, 120), fmt.Sprintf("%d vCPUs, %s workload, simulated in schedplay.", sc.Machine.VCPUs, sc.Workload.Kind)
}

// link is an absolute link to path on this server when it knows its public URL,
// else a path from the root (see WithPublicURL).
func (s *Server) link(path string) string { return s.publicURL + path }

// headTags renders the link-preview tags of share id; alt starts the card's
// alternative text, which ends with the title.
func (s *Server) headTags(id, title, desc, alt string) []byte {
	page := s.link("/s/" + id)
	oembed := s.link("/oembed?format=json&url=" + url.QueryEscape(page))
	var b bytes.Buffer
	b.WriteString("<!-- link preview (schedplay/web) -->\n")
	meta := func(attr, key, value string) {
		fmt.Fprintf(&b, "<meta %s=\"%s\" content=\"%s\">\n", attr, key, html.EscapeString(value))
	}
	title = "schedplay: " + title
	meta("property", "og:type", "website")
	meta("property", "og:site_name", "schedplay")
	meta("property", "og:title", title)
	meta("property", "og:description", desc)
	meta("property", "og:url", page)
	meta("property", "og:image", page+".png")
	meta("property", "og:image:type", "image/png")
	meta("property", "og:image:width", strconv.Itoa(preview.CardW))
	meta("property", "og:image:height", strconv.Itoa(preview.CardH))
	meta("property", "og:image:alt", alt+title)
	meta("name", "twitter:card", "summary_large_image")
	meta("name", "twitter:title", title)
	meta("name", "twitter:description", desc)
	meta("name", "twitter:image", page+".png")
	fmt.Fprintf(&b, "<link rel=\"alternate\" type=\"application/json+oembed\" href=\"%s\" title=\"%s\">\n",
		html.EscapeString(oembed), html.EscapeString(title))
	b.WriteString("<!-- end of link preview -->\n")
	return b.Bytes()
}

// injectHead puts tags at the end of page's head (before "</head>", in any
// case). A page without that end tag gets them after its doctype, or at its
// start: a parser puts leading meta and link elements into the head either way,
// but anything before the doctype would put the page in quirks mode.
func injectHead(page, tags []byte) []byte {
	i := indexFold(page, "</head>")
	if i < 0 {
		i = 0
		if d := indexFold(page, "<!doctype"); d == 0 {
			i = bytes.IndexByte(page, '>') + 1
		}
	}
	out := make([]byte, 0, len(page)+len(tags))
	out = append(out, page[:i]...)
	out = append(out, tags...)
	return append(out, page[i:]...)
}

// indexFold is the index of the first ASCII-case-insensitive match of s in
// page, or -1. Lower-casing the whole page instead could change its length
// (some upper-case letters lower-case to longer UTF-8).
func indexFold(page []byte, s string) int {
	for j := 0; j+len(s) <= len(page); j++ {
		if bytes.EqualFold(page[j:j+len(s)], []byte(s)) {
			return j
		}
	}
	return -1
}
