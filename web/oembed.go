package web

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"schedplay/preview"
)

// oEmbed (https://oembed.com): GET /oembed?url=LINK&maxwidth=&maxheight=&format=json
// answers a "rich" response whose html is an <iframe> of the playground's
// embed view of the share LINK names (/s/{id} with #embed=1 added to its
// fragment: stage and metric cards only). As the spec says: 404 for a url this
// server has no share for, 501 for a format other than json; a malformed
// parameter is a 400.

// The iframe's size without maxwidth/maxheight: the page's own embed code
// (playground/share.go) uses 960x540, and the embed view fits any 16:9 box.
const (
	embedW = 960
	embedH = 540
)

// oembedReply is the JSON response; width and height are required for rich.
type oembedReply struct {
	Version string `json:"version"`
	Type    string `json:"type"`
	Title   string `json:"title"`
	// Description is the link description the page's OpenGraph tags give (the
	// model's headline result, the published figures and the calibration's
	// verdict on them). oEmbed defines no such member but lets a provider add
	// its own; consumers that show a summary read it.
	Description     string `json:"description,omitzero"`
	ProviderName    string `json:"provider_name"`
	ProviderURL     string `json:"provider_url,omitzero"`
	HTML            string `json:"html"`
	Width           int    `json:"width"`
	Height          int    `json:"height"`
	ThumbnailURL    string `json:"thumbnail_url,omitzero"`
	ThumbnailWidth  int    `json:"thumbnail_width,omitzero"`
	ThumbnailHeight int    `json:"thumbnail_height,omitzero"`
}

func (s *Server) handleOEmbed(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, http.MethodGet, http.MethodHead)
		return
	}
	q := r.URL.Query()
	if f := q.Get("format"); f != "" && f != "json" {
		writeError(w, http.StatusNotImplemented, "", "only format=json is supported")
		return
	}
	maxW, err1 := maxParam(q, "maxwidth")
	maxH, err2 := maxParam(q, "maxheight")
	for _, err := range []error{err1, err2} {
		if err != nil {
			writeError(w, http.StatusBadRequest, "", err.Error())
			return
		}
	}
	raw := q.Get("url")
	if raw == "" {
		writeError(w, http.StatusBadRequest, "", "url is required: the share link to embed, such as "+s.link("/s/ID"))
		return
	}
	link, err := url.Parse(raw)
	if err != nil {
		writeError(w, http.StatusBadRequest, "", "url is not a URL")
		return
	}
	base, id, ok := s.shareOf(link, r.Host)
	if !ok {
		writeError(w, http.StatusNotFound, "", "url is not a share link of this server ("+s.link("/s/ID")+")")
		return
	}
	if _, ok := s.lookup(w, r, id, writeNotFoundJSON); !ok {
		return
	}
	title, desc := "schedplay: shared scenario "+id, ""
	if p, ok, err := s.storedPreview(r.Context(), id); ok {
		title, desc = "schedplay: "+p.Title(), p.Description()
	} else if err != nil {
		s.log.Error("web: reading a preview", "id", id, "err", err)
	}
	width, height := fit(embedW, embedH, maxW, maxH)
	src := base + "/s/" + id + "#" + embedFragment(link)
	reply := oembedReply{
		Version: "1.0", Type: "rich", Title: title, Description: desc, ProviderName: "schedplay", Width: width, Height: height,
		HTML: fmt.Sprintf(`<iframe src="%s" width="%d" height="%d" title="%s" style="border:0" loading="lazy" allowfullscreen></iframe>`,
			html.EscapeString(src), width, height, html.EscapeString(title)),
	}
	// The thumbnail must respect maxwidth and maxheight too, and there is only
	// the one size of card; an absolute link is needed outside this site.
	if base != "" {
		reply.ProviderURL = base + "/"
		if (maxW == 0 || maxW >= preview.CardW) && (maxH == 0 || maxH >= preview.CardH) {
			reply.ThumbnailURL, reply.ThumbnailWidth, reply.ThumbnailHeight = base+"/s/"+id+".png", preview.CardW, preview.CardH
		}
	}
	writeJSON(w, http.StatusOK, reply)
}

// shareOf finds the share ID a link names, and the base of the iframe's
// address: this server's public URL when it has one (an absolute link
// elsewhere is not one of its shares); without one, the link's own scheme and
// host when that host is the one the request came to (an oEmbed consumer asks
// the provider of the page it embeds, so a link to another host is a forgery
// that would put this server's name on someone else's iframe), or "" (a path
// from the root, as this server's own links are then).
func (s *Server) shareOf(link *url.URL, requestHost string) (base, id string, ok bool) {
	switch {
	case link.Scheme == "" && link.Host == "": // a path on this server
		base = s.publicURL
	case s.publicURL != "":
		if !strings.EqualFold(link.Scheme+"://"+link.Host, s.publicURL) {
			return "", "", false
		}
		base = s.publicURL
	case (link.Scheme == "http" || link.Scheme == "https") && link.Host != "":
		if !strings.EqualFold(link.Host, requestHost) {
			return "", "", false
		}
		base = link.Scheme + "://" + link.Host
	default:
		return "", "", false
	}
	id, ok = strings.CutPrefix(link.Path, "/s/")
	id = strings.TrimSuffix(id, "/")
	return base, id, ok && validID(id)
}

// maxParam reads maxwidth or maxheight: absent is 0 (no limit), otherwise a
// positive number of pixels.
func maxParam(q url.Values, name string) (int, error) {
	v := q.Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s must be a positive number of pixels", name)
	}
	return n, nil
}

// fit scales w x h down, keeping its shape, until it fits maxW x maxH (0 is no
// limit); it never grows.
func fit(w, h, maxW, maxH int) (int, int) {
	scale := 1.0
	if maxW > 0 {
		scale = min(scale, float64(maxW)/float64(w))
	}
	if maxH > 0 {
		scale = min(scale, float64(maxH)/float64(h))
	}
	return max(int(float64(w)*scale), 1), max(int(float64(h)*scale), 1)
}

// maxFragment bounds the fragment carried from a link into the iframe: the
// page itself refuses longer ones (playground/urlstate.MaxFragmentBytes).
const maxFragment = 4096

// embedFragment is the link's fragment with embed=1: the view the link was
// shared with (theme, speed, ...), in the embed layout. An embed key already
// there is replaced; a fragment too long for the page is dropped.
func embedFragment(link *url.URL) string {
	frag := link.EscapedFragment()
	if len(frag) > maxFragment {
		frag = ""
	}
	var keep []string
	for kv := range strings.SplitSeq(frag, "&") {
		if k, _, _ := strings.Cut(kv, "="); kv != "" && k != "embed" {
			keep = append(keep, kv)
		}
	}
	return strings.Join(append(keep, "embed=1"), "&")
}
