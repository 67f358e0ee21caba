// Package rtapp decodes rt-app workload descriptions so that schedplay can
// replay them as simulated tasks.
//
// rt-app (github.com/scheduler-tools/rt-app) runs threads that follow a
// script of events (run for 5 ms, sleep 10 ms, lock a mutex, wait on a
// timer, ...) described in a "JSON-like" file: C comments, trailing commas
// and repeated keys are allowed (doc/tutorial.txt). Decode reads such a file
// as rt-app's parser (src/rt-app_parse_config.c) does, with
// github.com/go-json-experiment/json's jsontext token decoder after a
// pre-pass that blanks comments and trailing commas without moving bytes,
// so every error can name the key path and the line:col of the file:
//
//	tasks.thread0.phases.p1.run0: line 12 col 9: want an integer number of µs, got "ten"
//
// The model is Description → Tasks → Phases → Events, all in file order.
// An event's kind is its key without trailing digits ("run0", "sleep12"),
// and repeated keys are kept as separate events, as rt-app's workgen script
// keeps them by renaming (each noted, with workgen's name for it); a
// "suspend" with no value, which workgen fills with its task's name, is
// read so. Durations are µs, as in rt-app.
//
// # Keys
//
// KeyStatus (printable with KeyTable) says for every key what Decode does:
//
// Modelled: global, tasks; duration, default_policy, log_size; instance, delay,
// phases, loop, cpus, policy (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE,
// SCHED_FIFO, SCHED_RR), priority; events run, runtime, sleep, timer, lock,
// unlock, wait, signal, broad, sync, barrier, suspend, resume, yield,
// sem_post, sem_wait.
//
// No-op (checked, listed in Description.Notes, otherwise ignored because a
// CPU scheduler simulator has nothing they change): resources (legacy),
// calibration, pi_enabled (false only), lock_pages, logdir, log_basename,
// ftrace, gnuplot, io_device, mem_buffer_size, cumulative_slack,
// nodes_membind, util_min, util_max, and an empty taskgroup (a non-empty one
// is a task group the model places the thread in). Other keys of
// "global" and of the root are ignored, as rt-app ignores them.
//
// Refused (Decode fails, since ignoring them would change the workload):
// pi_enabled true, and the events mem, memrun, iorun; a SCHED_DEADLINE task whose reservation sched_setattr would
// refuse (__checkparam_dl). Whether the engine models what a file asks for
// (a class, a custom slice) is the engine's to say.
//
// # Checks beyond rt-app's
//
// rt-app accepts some files that cannot run as meant; Decode refuses them:
// an event key that is not an event name plus digits (rt-app would match it
// by prefix), unknown keys in tasks and phases, a repeated task name or
// property, a phase with loop 0 (rt-app would loop until overflow), a wait
// or sync without its mutex or without holding it, a signal or broad
// without holding its waiters' mutex, a mutex locked twice, unlocked
// without being held, or still held at the end of its phase (or by a
// suspend or resume on its name), a condition variable used with two
// mutexes (suspend and resume pair a name's with the mutex of that name),
// a barrier used twice by one task or with
// fewer than 2 participating threads, a shared timer used in both modes.
// Limits (MaxInputBytes, MaxInstances, MaxLoop, ...) bound the input and
// the workload.
package rtapp
