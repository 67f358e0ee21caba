package view_test

import (
	"testing"
	"unsafe"

	"schedplay/view"
)

// A frame equals another only when it holds the same triangles in the same
// order: the page skips painting a frame equal to the last one, so any change
// (a colour, a position, one shape more, the order) must count as one.
func TestMeshEqual(t *testing.T) {
	// Equal compares vertices as bytes: a Vertex must be its six float32s with
	// no padding between or after them.
	if n := unsafe.Sizeof(view.Vertex{}); n != 6*4 {
		t.Fatalf("a Vertex takes %d bytes, want 24 (no padding)", n)
	}
	red, blue := view.Hex("#ff0000"), view.Hex("#0000ff")
	box := func(x float32, c view.Color) func(*view.Mesh) {
		return func(m *view.Mesh) { m.FillRoundRect(view.Rect{X: x, Y: 4, W: 20, H: 10}, 3, c) }
	}
	many := func(m *view.Mesh) { // past one batch
		for i := range 5000 {
			m.FillRoundRect(view.Rect{X: float32(i % 100), Y: float32(i / 100), W: 10, H: 10}, 3, red)
		}
	}
	build := func(parts ...func(*view.Mesh)) *view.Mesh {
		t.Helper()
		var m view.Mesh
		m.FillRoundRect(view.Rect{X: 999, Y: 999, W: 5, H: 5}, 1, blue) // memory kept by Reset
		m.Reset()
		for _, p := range parts {
			p(&m)
		}
		return &m
	}
	cases := []struct {
		name string
		a, b *view.Mesh
		want bool
	}{
		{"both empty", build(), build(), true},
		{"same shape", build(box(1, red)), build(box(1, red)), true},
		{"same many batches", build(many), build(many), true},
		{"colour", build(box(1, red)), build(box(1, blue)), false},
		{"position", build(box(1, red)), build(box(1.5, red)), false},
		{"one more shape", build(box(1, red)), build(box(1, red), box(40, red)), false},
		{"order", build(box(1, red), box(40, blue)), build(box(40, blue), box(1, red)), false},
		{"empty against one", build(), build(box(1, red)), false},
		{"one more batch", build(many), build(many, box(1, red), many), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Equal(tc.b); got != tc.want {
				t.Errorf("Equal = %v, want %v", got, tc.want)
			}
			if got := tc.b.Equal(tc.a); got != tc.want {
				t.Errorf("Equal the other way = %v, want %v", got, tc.want)
			}
			var c view.Mesh
			many(&c) // CopyTo reuses and trims what dst held
			tc.a.CopyTo(&c)
			if !c.Equal(tc.a) || c.Vertices() != tc.a.Vertices() {
				t.Errorf("CopyTo: the copy (%d vertices) differs from the original (%d)", c.Vertices(), tc.a.Vertices())
			}
		})
	}
}
