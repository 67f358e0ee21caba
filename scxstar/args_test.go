package scxstar

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"schedplay/engine"
)

// TestUnpackAsUnpackArgs: a helper's fast unpacking takes the same arguments
// as starlark.UnpackArgs, into the same values, and refuses the others with
// UnpackArgs' own error, for every kind of parameter, optional ones, too
// few or too many arguments, and keywords.
func TestUnpackAsUnpackArgs(t *testing.T) {
	tk := &task{}
	values := []starlark.Value{
		tk, starlark.None, starlark.True, starlark.Float(1), starlark.String("x"),
		starlark.MakeInt(0), starlark.MakeInt(-1), starlark.MakeInt64(1<<31 - 1), starlark.MakeInt64(-1 << 31),
		starlark.MakeInt64(1 << 31), starlark.MakeInt64(-1<<31 - 1), starlark.MakeInt64(1 << 62),
		starlark.MakeBigInt(new(big.Int).Lsh(big.NewInt(1), 64)),
	}
	good := map[argKind]starlark.Value{argTask: tk, argInt32: starlark.MakeInt(7), argInt64: starlark.MakeInt64(1 << 40), argString: starlark.String("msg")}
	for _, tc := range []struct {
		name   string
		params []param
	}{
		{"none", nil},
		{"dsq_insert_vtime", []param{{"p", argTask}, {"dsq", argInt32}, {"slice", argInt64}, {"vtime", argInt64}, {"enq_flags?", argInt32}}},
		{"kick_cpu", []param{{"cpu", argInt32}, {"flags?", argInt32}}},
		{"exit", []param{{"code", argInt64}, {"msg?", argString}}},
		{"error", []param{{"msg", argString}}},
	} {
		sig := newSignature(tc.name, tc.params)
		check := func(args starlark.Tuple, kw []starlark.Tuple) {
			t.Helper()
			var got, want argv
			gotErr := sig.unpack(&got, args, kw)
			wantErr := sig.unpackSlow(&want, args, kw)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || gotErr == nil && !sameArgs(sig, got, want) {
				t.Errorf("%s%v %v: unpack gives %v, %v; UnpackArgs %v, %v", tc.name, args, kw, got, gotErr, want, wantErr)
			}
		}
		for n := 0; n <= len(tc.params)+1; n++ {
			args := make(starlark.Tuple, n)
			for i := range args {
				args[i] = starlark.MakeInt(1)
				if i < len(tc.params) {
					args[i] = good[tc.params[i].kind]
				}
			}
			check(args, nil)
			for i := range args {
				for _, v := range values {
					bad := append(starlark.Tuple(nil), args...)
					bad[i] = v
					check(bad, nil)
				}
			}
			for i := n; i < len(tc.params); i++ { // the rest by keyword
				name := strings.TrimSuffix(tc.params[i].name, "?")
				for _, v := range append(values, good[tc.params[i].kind]) {
					check(args, []starlark.Tuple{{starlark.String(name), v}})
				}
			}
		}
		check(nil, []starlark.Tuple{{starlark.String("bogus"), starlark.MakeInt(1)}})
	}
	// The slow path really is UnpackArgs, into the Go types of before.
	var p *task
	var dsq, flags int32
	var slice, vtime int64
	args := starlark.Tuple{tk, starlark.MakeInt(3), starlark.MakeInt64(1 << 33), starlark.MakeInt(-5)}
	if err := starlark.UnpackArgs("dsq_insert_vtime", args, []starlark.Tuple{{starlark.String("enq_flags"), starlark.MakeInt(9)}}, "p", &p, "dsq", &dsq, "slice", &slice, "vtime", &vtime, "enq_flags?", &flags); err != nil {
		t.Fatal(err)
	}
	sig := newSignature("dsq_insert_vtime", []param{{"p", argTask}, {"dsq", argInt32}, {"slice", argInt64}, {"vtime", argInt64}, {"enq_flags?", argInt32}})
	var a argv
	err := sig.unpack(&a, args, []starlark.Tuple{{starlark.String("enq_flags"), starlark.MakeInt(9)}})
	if err != nil || a[0].task() != p || a[1].n != int64(dsq) || a[2].n != slice || a[3].n != vtime || a[4].n != int64(flags) {
		t.Errorf("unpack gives %v, %v; UnpackArgs %v %d %d %d %d", a, err, p, dsq, slice, vtime, flags)
	}
}

// sameArgs reports whether a and b are the same arguments for sig: what a
// helper reads of each parameter, as its kind says.
func sameArgs(sig signature, a, b argv) bool {
	for i, p := range sig.params {
		switch p.kind {
		case argTask:
			if a[i].task() != b[i].task() {
				return false
			}
		case argInt32, argInt64:
			if a[i].n != b[i].n {
				return false
			}
		case argString:
			if a[i].str() != b[i].str() {
				return false
			}
		case argValue:
			if a[i].v != b[i].v {
				return false
			}
		}
	}
	return true
}

// TestHelperArgumentErrors: a helper called with arguments it cannot take
// ejects the policy with UnpackArgs' message, and one called with keywords
// works as with positional arguments.
func TestHelperArgumentErrors(t *testing.T) {
	for _, tc := range []struct {
		desc, call, want string
	}{
		{"a string for a DSQ", `scx.dsq_insert(p, "x", scx.SLICE_DFL)`, "dsq_insert: for parameter dsq: got string, want int"},
		{"a DSQ out of int32", `scx.dsq_insert(p, 1 << 40, scx.SLICE_DFL)`, "dsq_insert: for parameter dsq: 1099511627776 out of range (want value in signed 32-bit range)"},
		{"None for a task", `scx.dsq_insert(None, 0, scx.SLICE_DFL)`, "dsq_insert: for parameter p: got NoneType, want task"},
		{"too few", `scx.dsq_insert(p, 0)`, "dsq_insert: missing argument for slice"},
		{"too many", `scx.kick_cpu(0, 0, 0)`, "kick_cpu: got 3 arguments, want at most 2"},
		{"an unknown keyword", `scx.kick_cpu(0, flag=1)`, `kick_cpu: unexpected keyword argument "flag"`},
		{"keywords work", `scx.dsq_insert(p, enq_flags=enq_flags, slice=scx.SLICE_DFL, dsq=0); scx.exit(code=3, msg="kw")`, "code 3: kw"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			src := "def init():\n    scx.create_dsq(0)\n\ndef dispatch(cpu, prev):\n    scx.dsq_move_to_local(0)\n\n" +
				"def enqueue(p, enq_flags):\n    " + tc.call + "\n"
			sc := withPolicy(readExample(t, "saturated-sync", "sched.policy=scx_simple", "duration_ms=30", "warmup_ms=10"), src)
			s, err := engine.NewSimScx(sc, CompilerNamed("policy.star"))
			if err != nil {
				t.Fatal(err)
			}
			s.SetVisual(false)
			res := s.Run()
			if !strings.Contains(res.ScxExit.Reason, tc.want) {
				t.Errorf("the run ends %q, want %q in it", res.ScxExit.Reason, tc.want)
			}
		})
	}
}
