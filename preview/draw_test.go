package preview

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/view"
)

// tiled is a two-arm preview whose arms have every vCPU in one state.
func tiled(stateA, stateB string, vcpus int) *Preview {
	p := compare(engine.WorkloadRequestServer, true,
		engine.Results{ThroughputPerS: 7800, Completed: 1, LatencyUs: engine.LatencySummary{Mean: 7700}},
		engine.Results{ThroughputPerS: 22700, Completed: 1, LatencyUs: engine.LatencySummary{Mean: 2600}})
	p.VCPUs = vcpus
	for i, st := range []string{stateA, stateB} {
		for range vcpus {
			t := Tile{State: st}
			if st == "running" {
				t.Run, t.Chips, t.Queued = "w", "wkW", 40
			}
			p.Arms[i].Tiles = append(p.Arms[i].Tiles, t)
		}
		p.Arms[i].Series = []float64{1, 2, 3}
		p.Arms[i].SeriesMs = 1200
	}
	p.Arms[1].IPIs = []IPI{{"wakeup", 0, 5}, {"pull", 3, 9}, {"donate", 9, 3}, {"wakeup", 0, 999}}
	return p
}

// pixels counts the card's pixels of exactly colour c.
func pixels(t *testing.T, p *Preview, c view.Color) int {
	t.Helper()
	data, err := p.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != CardW || b.Dy() != CardH {
		t.Fatalf("card is %v, want %dx%d", b, CardW, CardH)
	}
	n := 0
	for y := range CardH {
		for x := range CardW {
			r, g, b, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(b>>8) == c.B {
				n++
			}
		}
	}
	return n
}

// TestCardStates checks that the tiles' states reach the image: 64 tiles of
// about 54 px cover tens of thousands of pixels in their state's fill, while the
// brand mark and the legend use each fill on a few hundred.
func TestCardStates(t *testing.T) {
	th := view.Dark()
	for _, tc := range []struct {
		desc   string
		a, b   string
		fill   view.Color
		filled bool
	}{
		{"running shows blue", "running", "running", th.Running, true},
		{"halted shows no blue", "halted", "halted", th.Running, false},
		{"spinning shows its fill", "spinning", "spinning", th.SpinFill, true},
		{"halted shows no spin fill", "halted", "irq", th.SpinFill, false},
		{"irq shows purple", "irq", "halted", th.IRQ, true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			n := pixels(t, tiled(tc.a, tc.b, 32), tc.fill)
			if tc.filled != (n > 20000) || (!tc.filled && n > 2000) {
				t.Errorf("%d pixels of %v; want many: %v", n, tc.fill, tc.filled)
			}
		})
	}
}

func TestCardSizes(t *testing.T) {
	for _, n := range []int{1, 3, 128} {
		p := tiled("running", "spinning", n)
		if _, err := p.PNG(); err != nil {
			t.Errorf("%d vCPUs: %v", n, err)
		}
	}
	if _, err := (&Preview{}).PNG(); err == nil {
		t.Error("a preview without arms drew a card")
	}
}

// svgDoc is what TestSVG reads back from a chart.
type svgDoc struct {
	root       xml.Name
	paths      int
	text       string
	background string
}

func parseSVG(t *testing.T, data []byte) svgDoc {
	t.Helper()
	var d svgDoc
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return d
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, data)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if d.root.Local == "" {
				d.root = el.Name
			}
			if el.Name.Local == "path" {
				d.paths++
			}
			if el.Name.Local == "rect" && d.background == "" {
				for _, a := range el.Attr {
					if a.Name.Local == "fill" {
						d.background = a.Value
					}
				}
			}
		case xml.CharData:
			d.text += string(el)
		}
	}
}

func TestSVG(t *testing.T) {
	p := tiled("running", "halted", 4)
	p.Name = `<script>alert("x")</script> & co`
	for _, tc := range []struct {
		theme, bg string
	}{{"dark", "#161b22"}, {"light", "#ffffff"}} {
		t.Run(tc.theme, func(t *testing.T) {
			th, _ := view.PaletteByName(tc.theme)
			data := p.SVG(th)
			d := parseSVG(t, data)
			if d.root.Space != "http://www.w3.org/2000/svg" || d.root.Local != "svg" {
				t.Errorf("root element %v, want svg in the SVG namespace", d.root)
			}
			if d.paths != 2 {
				t.Errorf("%d paths, want one line per arm", d.paths)
			}
			if d.background != tc.bg {
				t.Errorf("background %q, want the %s theme's %q", d.background, tc.theme, tc.bg)
			}
			if !strings.Contains(d.text, p.Name) || bytes.Contains(data, []byte("<script")) {
				t.Errorf("the name is not escaped text: %s", data)
			}
			for _, want := range []string{"7.80k → 22.7k", "2.9x", "A · pull off", "B · pull on"} {
				if !strings.Contains(d.text, want) {
					t.Errorf("chart text lacks %q:\n%s", want, d.text)
				}
			}
		})
	}
}
