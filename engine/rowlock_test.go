package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRowLocksOffIdenticalToBefore: with no row locks the TPC-B preset gives,
// byte for byte, the results the engine gave before row locks existed
// (testdata/golden_tpcb_nolocks.json was written by that engine and is never
// rewritten by -update).
func TestRowLocksOffIdenticalToBefore(t *testing.T) {
	for _, tc := range []struct{ desc, arm, file string }{
		{"pull off", "pull off", "golden_tpcb_nolocks_off.json"},
		{"pull on", "pull on", "golden_tpcb_nolocks_on.json"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			r := runExample(t, "tpcb-32vcpu", tc.arm, "machine.vcpus=16", "workload.clients=48", "duration_ms=400", "warmup_ms=100")
			got := resultsJSON(t, r)
			path := filepath.Join("testdata", tc.file)
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("results differ from %s:\n got %s\nwant %s", path, got, want)
			}
		})
	}
}
