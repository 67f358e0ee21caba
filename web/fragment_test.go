package web

import (
	"testing"

	"schedplay/playground/urlstate"
)

// The iframe oEmbed builds carries the link's fragment to the page, which reads
// at most urlstate.MaxFragmentBytes of it: the two limits must agree. (A test may
// import the page's package; web itself does not, TestDeps.)
func TestMaxFragmentIsThePage(t *testing.T) {
	if maxFragment != urlstate.MaxFragmentBytes {
		t.Errorf("oEmbed carries fragments up to %d bytes, the page reads %d", maxFragment, urlstate.MaxFragmentBytes)
	}
}
