package engine

import (
	"bytes"
	"testing"
)

// FuzzCheckpoint: Resume never panics or hangs on any bytes, allocates only
// what their length can hold, and what it accepts is a state it writes back
// the same way (decoding again gives the same bytes). The seeds are real
// checkpoints of six workloads (rt-app's included) under the three policies; the fuzzer's
// checkpoint is given the key of the scenario it is resumed on, so its body is
// what gets mutated, not only the key that would refuse it at once.
//
//	go test ./engine -run '^$' -fuzz FuzzCheckpoint -fuzztime 1m
func FuzzCheckpoint(f *testing.F) {
	type seed struct {
		name string
		sets []string
		at   int64
	}
	seeds := []seed{
		{"tpcb-32vcpu", []string{"duration_ms=60", "warmup_ms=20", "workload.clients=6", "machine.vcpus=3"}, 1500e3},
		// Row locks with waiters (one branch row for six clients).
		{"tpcb-32vcpu", []string{"duration_ms=60", "warmup_ms=20", "workload.clients=6", "machine.vcpus=3", "workload.tpcb_scale=1"}, 30e6},
		// Three RX queues with RSS, and workers that exit and are reused.
		{"thread-per-conn", []string{"duration_ms=60", "warmup_ms=20", "workload.clients=6", "machine.vcpus=3",
			"workload.rx_queues=3", "workload.rss=true", "workload.requests_per_conn=3"}, 20e6},
		{"durable-write", []string{"duration_ms=60", "warmup_ms=20", "workload.clients=5", "machine.vcpus=3"}, 1500e3},
		{"hackbench", []string{"workload.hackbench.groups=1", "workload.hackbench.fds=3", "workload.hackbench.loops=20", "sched.policy=scx_simple", "machine.vcpus=2"}, 60e3},
		{"saturated-sync", []string{"duration_ms=20", "warmup_ms=5", "sched.policy=linux", "workload.sync_pairs.spinners=2", "workload.sync_pairs.pairs=1"}, 3e6},
	}
	var scs []Scenario
	for _, sd := range seeds {
		sc := loadExample(f, sd.name, sd.sets...)
		s, err := NewSim(sc)
		if err != nil {
			f.Fatal(err)
		}
		s.RunUntil(sd.at)
		ck, err := s.AppendCheckpoint(nil, CheckpointOptions{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(len(scs)), ck)
		scs = append(scs, sc)
	}
	// An rt-app workload with threads blocked on each kind of object.
	for _, at := range []int64{2e6, 9_500_000} {
		sc := rtappScenario(ckRTAppMix)
		sc.DurationMs = 20
		s, err := NewSim(sc)
		if err != nil {
			f.Fatal(err)
		}
		s.RunUntil(at)
		ck, err := s.AppendCheckpoint(nil, CheckpointOptions{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(len(scs)), ck)
		scs = append(scs, sc)
	}
	keyAt := len(ckMagic) + 1 // after the magic and the one-byte version
	f.Fuzz(func(t *testing.T, pick uint8, data []byte) {
		sc := scs[int(pick)%len(scs)]
		if len(data) >= keyAt+len(ScenarioKey{}) {
			data = bytes.Clone(data)
			k := sc.Key()
			copy(data[keyAt:], k[:])
		}
		s, err := Resume(sc, data)
		if err != nil {
			if s != nil {
				t.Fatal("Resume returned a simulation with its error")
			}
			return
		}
		ck, err := s.AppendCheckpoint(nil, CheckpointOptions{})
		if err != nil {
			t.Fatalf("an accepted checkpoint cannot be written back: %v", err)
		}
		s2, err := Resume(sc, ck)
		if err != nil {
			t.Fatalf("an accepted checkpoint, written back, is refused: %v", err)
		}
		ck2, _ := s2.AppendCheckpoint(nil, CheckpointOptions{})
		if !bytes.Equal(ck, ck2) {
			t.Fatal("an accepted checkpoint does not write back the same way twice")
		}
	})
}
