package flagcheck

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestTableChecksRangesAndPaths(t *testing.T) {
	open := Range{Lo: 0, Hi: 1, LoOpen: true, HiOpen: true, Note: "x"}
	if open.String() != "(0, 1); x" || open.Contains(0) || !open.Contains(0.5) || open.Contains(1) || Closed(1, 2).String() != "[1, 2]" {
		t.Fatalf("range %v", open)
	}
	orZero := Range{Lo: 0.5, Hi: 1, LoOpen: true, HiOpen: true, Zero: true, Note: "0 = off"}
	if orZero.String() != "0 or (0.5, 1); 0 = off" || !orZero.Contains(0) || orZero.Contains(0.25) || orZero.Contains(0.5) || !orZero.Contains(0.75) || orZero.Contains(-1) {
		t.Fatalf("range %v", orZero)
	}
	tab := Table{Flags: map[string]Range{"k": Closed(1, 10)}, IO: map[string]IO{"c": {Out: []string{"out"}, In: []string{"in"}}}}
	cmd := &cobra.Command{Use: "c", RunE: func(*cobra.Command, []string) error { return nil }}
	var k int
	var in, out string
	cmd.Flags().IntVar(&k, "k", 1, "")
	cmd.Flags().StringVar(&in, "in", "", "")
	cmd.Flags().StringVar(&out, "out", "", "")
	tab.Install(cmd)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--k", "11"}, "--k 11 is out of range: want [1, 10]"},
		{[]string{"--in", "a.txt", "--out", "a.txt"}, "a.txt"},
		{[]string{"--k", "10", "--in", "a.txt", "--out", "b.txt"}, ""},
	} {
		k = 1 // flags keep their values between runs
		cmd.SetArgs(c.args)
		err := cmd.Execute()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
		}
	}
}

// An input of a kind stands for the files read through it as well.
func TestInputKinds(t *testing.T) {
	tab := Table{IO: map[string]IO{"c": {Out: []string{"out"}, In: []string{"in:list"}}},
		Inputs: map[string]func(string) []string{"list": func(p string) []string { return []string{p + ".a", p + ".b"} }}}
	cmd := &cobra.Command{Use: "c"}
	var in, out string
	cmd.Flags().StringVar(&in, "in", "", "")
	cmd.Flags().StringVar(&out, "out", "", "")
	for _, c := range []struct {
		out, want string
	}{
		{"l.b", "--out l.b is the input --in l (l.b): refusing to overwrite an input"},
		{"l", "--out l is the input --in l: refusing"},
		{"l.c", ""},
	} {
		in, out = "l", c.out
		err := tab.CheckOutputs(cmd, nil)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("--out %s: err = %v, want %q", c.out, err, c.want)
		}
	}
}
