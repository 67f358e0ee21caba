package kerneltrace

import "fmt"

// Two threads hand a token back and forth (the ping-pong of encode_test.go):
// each segment ends waiting for the other at the point of its run where the
// recording saw the wakeup.
func ExampleBuild() {
	tr, err := Read(pingPong())
	if err != nil {
		panic(err)
	}
	m, err := Build(tr, Options{})
	if err != nil {
		panic(err)
	}
	for _, t := range m.Threads {
		fmt.Printf("%s (tid %d) starts: %v after %d µs\n", t.Name(), t.Tid, t.Start.Kind, t.Start.SleepNs/1000)
		for i, s := range t.Segments {
			fmt.Printf("  %d: run %4d µs, then %v", i, s.RunNs/1000, s.End.Kind)
			if s.End.Kind == EndWakeBy {
				fmt.Printf(" %s at %d µs of its segment %d", m.Threads[s.End.Waker].Name(), s.End.AtNs/1000, s.End.WakerSeg)
			}
			fmt.Println()
		}
	}
	fmt.Printf("spurious wakeups %d, edges %d, cut at the end %d\n", m.Counts.Spurious, m.Counts.WakeEdges, m.Counts.CutLast)
	// Output:
	// A (tid 101) starts: timer after 0 µs
	//   0: run 1500 µs, then wake-by B at 2000 µs of its segment 0
	//   1: run 1500 µs, then wake-by B at 2000 µs of its segment 1
	//   2: run 1500 µs, then wake-by B at 2000 µs of its segment 2
	// B (tid 102) starts: timer after 0 µs
	//   0: run 2010 µs, then wake-by A at 1000 µs of its segment 1
	//   1: run 2010 µs, then wake-by A at 1000 µs of its segment 2
	//   2: run 2010 µs, then cut
	// spurious wakeups 1, edges 5, cut at the end 2
}
