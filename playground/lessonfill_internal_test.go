package playground

import (
	"strings"
	"testing"
)

// Captions write numbers as the cards do, by the unit in the name.
func TestFormatForCaptions(t *testing.T) {
	results := []struct {
		path string
		v    float64
		want string
	}{
		{"throughput_per_s", 22722, "22.7k"},
		{"latency_us.p99", 2900, "2.90 ms"},
		{"wake_to_run_us.mean", 16.9, "16.9 µs"},
		{"schbench.wakeup_us.p99", 1007.616, "1.01 ms"},
		{"schbench.rps", 552156.7, "552k"},
		{"elapsed_s", 0.378, "378 ms"},
		{"idle_while_overloaded_frac", 0.71, "71%"},
		{"host_cpu_frac", 0.0129, "1.3%"},
		{"busy_vcpus_host_mean", 14.1, "14.1"},
		{"busy_vcpus_host_mean", 0.052, "0.05"},
		{"spin_window_mean", 2410.6, "2 411"},
	}
	for _, tc := range results {
		if got := strings.ReplaceAll(formatResult(tc.path, tc.v), "\u2009", " "); got != tc.want {
			t.Errorf("formatResult(%s, %v) = %q, want %q", tc.path, tc.v, got, tc.want)
		}
	}
}
