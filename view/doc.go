// Package view is the playground's drawing vocabulary, in plain Go: colours,
// geometry, tile layout, a stroke font for CPU numbers, the triangle mesh every
// frame is painted from, number formatting and the chart series behind the HTML
// charts. It imports neither Ebiten nor syscall/js, so everything that decides what
// the canvas shows runs and is tested natively; the Ebiten layer only copies a Mesh
// into DrawTriangles.
//
// Coordinates are device pixels with y down. Colours are straight (not
// premultiplied) alpha. Shapes are opaque wherever they overlap others, so one
// DrawTriangles call can paint a whole frame in order (later triangles on top)
// without blending seams where stroke segments overlap.
package view
