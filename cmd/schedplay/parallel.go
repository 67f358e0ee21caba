package main

import (
	"fmt"
	"sync"

	"schedplay/engine"
)

// job is one simulation of a sweep or calibration: the scenario and a label that
// names it in errors.
type job struct {
	label string
	sc    engine.Scenario
}

// runAll runs the jobs on up to n goroutines (a.parallel) and returns the results
// in job order. Every run is independent and seeded by its own scenario, so the
// results (and all output built from them) do not depend on n or on scheduling;
// only wall time does. The first failing job in job order is reported.
func (a *app) runAll(jobs []job, n int) ([]engine.Results, error) {
	out := make([]engine.Results, len(jobs))
	err := a.parallel(len(jobs), n, func(i int) (err error) {
		out[i], err = a.runSafe(jobs[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// forEachParallel calls do(i) for every i in [0, count) on up to n goroutines and
// returns the error of the lowest i that failed. The goroutines take the jobs in
// index order, each the next one when it is free.
func forEachParallel(count, n int, do func(i int) error) error {
	errs := make([]error, count)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(n, count)) {
		wg.Go(func() {
			for i := range next {
				errs[i] = do(i)
			}
		})
	}
	for i := range count {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// runSafe runs one job and turns an engine panic into an error naming the job, so
// that a model bug in one sweep point reports which point instead of a stack trace.
func (a *app) runSafe(j job) (res engine.Results, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: the engine failed: %v", j.label, p)
		}
	}()
	res, err = a.simulate(j.sc)
	if err != nil {
		err = fmt.Errorf("%s: %w", j.label, err)
	}
	return res, err
}

// measureSafe is runSafe for a run measured over several windows.
func (a *app) measureSafe(label string, sc engine.Scenario, ws []engine.Window) (res []engine.Results, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: the engine failed: %v", label, p)
		}
	}()
	res, err = a.measure(sc, ws)
	if err != nil {
		err = fmt.Errorf("%s: %w", label, err)
	}
	return res, err
}
