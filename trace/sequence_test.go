package trace

import (
	"slices"
	"testing"

	"schedplay/engine"
)

// TestTwoCPUSequences runs the tiny two-vCPU scenario (testdata/two-cpu.json: RX
// pinned to vCPU 0, the backends on vCPU 1, both halting when idle) and checks
// the sequence each track shows and the mechanism behind it: a wake of a thread
// on the halted vCPU 1 is a wakeup IPI from vCPU 0, and vCPU 1 then shows the
// halted-vCPU wake, the interrupt and the woken backend. Durations come from the
// scenario's costs.
func TestTwoCPUSequences(t *testing.T) {
	const us = 1000
	for _, tc := range []struct {
		name string
		sets []string
		opts Options
		// want is the prefix of slice names on each vCPU.
		want [2][]string
		// check looks further at the trace.
		check func(t *testing.T, sc engine.Scenario, p *parsed, st Stats)
	}{
		{
			name: "remote wakes of a halted vCPU",
			opts: Options{UntilNs: 1500 * us},
			want: [2][]string{
				{"spin", "halt", "waking", "irq", "rx #0", "spin", "halt", "waking", "irq", "rx #0", "spin", "halt"},
				{"irq", "spawner #1", "backend #2", "spin", "halt", "waking", "irq", "backend #2", "spin", "halt", "waking", "irq", "backend #2"},
			},
			check: func(t *testing.T, sc engine.Scenario, p *parsed, st Stats) {
				checkRemoteWakes(t, sc, p, "ipi_sent")
			},
		},
		{
			name: "window",
			opts: Options{StartNs: 300 * us, UntilNs: 900 * us},
			want: [2][]string{
				{"spin", "halt", "waking", "irq", "rx #0", "spin", "halt"},
				{"waking", "irq", "backend #2", "spin", "halt", "waking", "irq", "backend #2", "spin", "halt"},
			},
			check: func(t *testing.T, sc engine.Scenario, p *parsed, st Stats) {
				checkCoverage(t, p, 2, 300*us, 900*us)
				if len(p.Flows) != 1 {
					t.Errorf("%d flows, want the one IPI sent inside the window", len(p.Flows))
				}
				checkRemoteWakes(t, sc, p, "ipi_sent")
			},
		},
		{
			name: "no decisions",
			opts: Options{UntilNs: 1500 * us, NoDecisions: true},
			want: [2][]string{
				{"spin", "halt", "waking", "irq", "rx #0", "spin", "halt", "waking", "irq", "rx #0", "spin", "halt"},
				{"irq", "spawner #1", "backend #2", "spin", "halt", "waking", "irq", "backend #2", "spin", "halt", "waking", "irq", "backend #2"},
			},
			check: func(t *testing.T, sc engine.Scenario, p *parsed, st Stats) {
				for tid, l := range p.Instants {
					for _, e := range l {
						if e.Cat == "decision" {
							t.Fatalf("tid %d: decision %q with NoDecisions", tid, e.Name)
						}
					}
				}
				checkRemoteWakes(t, sc, p, "send wakeup IPI")
			},
		},
		{
			// Three backends on vCPU 1 and idle pull on: the idle vCPU 0 asks the
			// loaded vCPU 1 to donate; vCPU 1 donates in its interrupt handler.
			name: "pull and donate",
			sets: []string{"workload.clients=3", "sched.wake_pull=true"},
			opts: Options{},
			check: func(t *testing.T, sc engine.Scenario, p *parsed, st Stats) {
				kinds := map[string]int{}
				for _, f := range p.Flows {
					kinds[f.Name]++
					switch f.Name {
					case "pull":
						if f.FromTid == f.ToTid || f.SendAnchor.Name != "pull_request" {
							t.Fatalf("pull flow tid %d -> %d after %q, want from the idle vCPU after its pull_request decision", f.FromTid, f.ToTid, f.SendAnchor.Name)
						}
					case "donate":
						if f.FromTid == f.ToTid || f.SendAnchor.Name != "donate" {
							t.Fatalf("donate flow tid %d -> %d after %q, want after the victim's donate decision", f.FromTid, f.ToTid, f.SendAnchor.Name)
						}
						// The donor migrated the thread to the puller just before.
						var migrated bool
						for _, e := range p.Instants[f.FromTid] {
							if e.Cat == "migrate" && e.TsNs == f.SentNs && int(e.Args["to"].(float64)) == f.ToTid-1 {
								migrated = true
							}
						}
						if !migrated {
							t.Fatalf("donate flow at %d from tid %d without a migrate instant to vCPU %d", f.SentNs, f.FromTid, f.ToTid-1)
						}
					}
					if got := f.ArrivedNs - f.SentNs; got != sc.Machine.Costs.IPILatencyNs {
						t.Fatalf("%s IPI took %d ns, want ipi_latency_ns %d", f.Name, got, sc.Machine.Costs.IPILatencyNs)
					}
				}
				if kinds["pull"] == 0 || kinds["donate"] == 0 || st.Migrations == 0 {
					t.Fatalf("flows by kind %v, %d migrations: want pulls, donations and migrations", kinds, st.Migrations)
				}
			},
		},
		{
			name: "completion counter",
			opts: Options{CompletionBucketNs: 250 * us},
			check: func(t *testing.T, sc engine.Scenario, p *parsed, st Stats) {
				obs, _ := observeRun(t, sc, sc.DurationMs*1_000_000)
				var want, got int64
				for _, o := range obs {
					if o.Kind == engine.VisComplete {
						want++
					}
				}
				// Samples are written when the value changes: sum each sample's
				// value times the buckets it holds for.
				end := sc.DurationMs * 1_000_000
				for i, c := range p.Counters {
					next := end
					if i+1 < len(p.Counters) {
						next = p.Counters[i+1].TsNs
					}
					buckets := (next - c.TsNs + 250*us - 1) / (250 * us)
					got += int64(c.Args["per_250us"].(float64)) * buckets
				}
				if want == 0 || got != want {
					t.Fatalf("counter adds up to %d completions, the run had %d", got, want)
				}
			},
		},
		{
			name: "max bytes",
			opts: Options{MaxBytes: 6000},
			check: func(t *testing.T, sc engine.Scenario, p *parsed, st Stats) {
				if !st.Truncated || st.EndNs >= sc.DurationMs*1_000_000 {
					t.Fatalf("Stats %+v: want a trace truncated before the horizon", st)
				}
				if st.Bytes > 6000+2000 {
					t.Fatalf("%d bytes, want MaxBytes plus a few events at most", st.Bytes)
				}
				if tr, _ := p.Other["truncated"].(bool); !tr {
					t.Errorf("otherData.truncated is %v", p.Other["truncated"])
				}
				checkCoverage(t, p, 2, 0, st.EndNs)
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := loadScenario(t, "testdata/two-cpu.json", tc.sets...)
			_, st, p := writeTrace(t, sc, tc.opts)
			for cpu, want := range tc.want {
				got := p.names(cpu + 1)
				if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
					t.Errorf("vCPU %d shows\n%q\nwant it to start with\n%q", cpu, got, want)
				}
			}
			if tc.check != nil {
				tc.check(t, sc, p, st)
			}
		})
	}
}

// checkRemoteWakes checks every wakeup arrow of the two-CPU scenario: from the
// RX thread on vCPU 0, sent right after anchor ("ipi_sent" decision or "send
// wakeup IPI"), arriving ipi_latency_ns later on vCPU 1, which is halted and shows
// the wake (halt_exit_ns + halted_wake_ns), the interrupt (irq_handle_ns) and the
// woken backend; spins that end in a halt last cap x spin_iter_ps.
func checkRemoteWakes(t *testing.T, sc engine.Scenario, p *parsed, anchor string) {
	t.Helper()
	c := sc.Machine.Costs
	if len(p.Flows) == 0 {
		t.Fatal("no IPI arrows")
	}
	for _, f := range p.Flows {
		if f.Name != "wakeup" || f.FromTid != 1 || f.ToTid != 2 {
			t.Fatalf("flow %s tid %d -> %d, want wakeup tid 1 -> 2", f.Name, f.FromTid, f.ToTid)
		}
		if f.SendAnchor.Name != anchor || f.SendAnchor.Args["thread"] != "backend #2" {
			t.Fatalf("flow at %d starts at %q (args %v), want %q about backend #2", f.SentNs, f.SendAnchor.Name, f.SendAnchor.Args, anchor)
		}
		if got := f.ArrivedNs - f.SentNs; got != c.IPILatencyNs {
			t.Fatalf("IPI took %d ns, want ipi_latency_ns %d", got, c.IPILatencyNs)
		}
		from, ok := p.sliceAt(1, f.SentNs)
		if !ok || from.Name != "rx #0" {
			t.Fatalf("IPI sent at %d while vCPU 0 shows %q, want rx #0", f.SentNs, from.Name)
		}
		l := p.Slices[2]
		i := slices.IndexFunc(l, func(s tSlice) bool { return s.StartNs == f.ArrivedNs })
		if i < 1 || l[i-1].Name != "halt" || i+2 >= len(l) {
			t.Fatalf("no halt then slices from the arrival at %d on vCPU 1: %v", f.ArrivedNs, l)
		}
		wake, irq, run := l[i], l[i+1], l[i+2]
		if wake.Name != "waking" || wake.End-wake.StartNs != c.HaltExitNs+c.HaltedWakeNs {
			t.Errorf("after the IPI: %q for %d ns, want waking for %d", wake.Name, wake.End-wake.StartNs, c.HaltExitNs+c.HaltedWakeNs)
		}
		if irq.Name != "irq" || irq.End-irq.StartNs != c.IRQHandleNs {
			t.Errorf("then %q for %d ns, want irq for %d", irq.Name, irq.End-irq.StartNs, c.IRQHandleNs)
		}
		if run.Name != "backend #2" || run.Args["role"] != "worker" || run.Args["pinned"] != false {
			t.Errorf("then %q %v, want backend #2 (worker, not pinned)", run.Name, run.Args)
		}
	}
	spin := sc.Sched.IdleSpin.Cap * c.SpinIterPs / 1000
	for tid, l := range p.Slices {
		for i := 1; i+1 < len(l); i++ {
			if l[i].Name == "spin" && l[i+1].Name == "halt" && l[i].StartNs > l[0].StartNs {
				if d := l[i].End - l[i].StartNs; d != spin {
					t.Errorf("tid %d: spin at %d lasted %d ns before halting, want %d", tid, l[i].StartNs, d, spin)
				}
			}
		}
	}
}
