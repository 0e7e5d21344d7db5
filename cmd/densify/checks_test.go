package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// nonPathFlags are the string flags that hold no path (names, choices,
// Slurm resources); every other string flag of every command must be in
// ioFlags, so that the output-is-an-input rule sees it.
var nonPathFlags = map[string]bool{
	"device": true, "flow": true, "preset": true, "refine": true, "schedule": true, "sequences": true, "shard": true,
	"solver": true, "split": true, "gamma-costs": true, "name": true, "command": true, "job-name": true,
	"mem": true, "partition": true, "sbatch": true, "time": true,
}

func commandsByName(root *cobra.Command) map[string]*cobra.Command {
	m := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		m[c.Name()] = c
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return m
}

// ioName is the flag name of an ioFlags entry ("frames:frames" → frames).
func ioName(e string) (name, kind string) {
	name, kind, _ = strings.Cut(strings.TrimSuffix(e, "/"), ":")
	return name, kind
}

func TestEveryPathFlagIsChecked(t *testing.T) {
	cmds := commandsByName(NewCmdRoot(NewFactory()))
	for name, c := range cmds {
		listed := map[string]bool{}
		for _, e := range append(slices.Clone(ioFlags[name].Out), ioFlags[name].In...) {
			n, kind := ioName(e)
			listed[n] = true
			if n != "ARGS" && c.Flags().Lookup(n) == nil {
				t.Errorf("ioFlags: %s has no flag --%s", name, n)
			}
			if kind != "" && inputKinds[kind] == nil {
				t.Errorf("ioFlags: %s --%s: no input kind %q", name, n, kind)
			}
		}
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			switch fl.Value.Type() {
			case "string", "stringArray", "stringSlice":
				if !listed[fl.Name] && !nonPathFlags[fl.Name] {
					t.Errorf("%s --%s is neither in ioFlags nor a known non-path flag", name, fl.Name)
				}
			}
		})
	}
}

// ioFixture is a synthetic dataset with an input of every kind, and for
// each kind the value given on the command line and the files read
// through it.
type ioFixture struct {
	root, data, seq, def, frame, label, tracks string
	values                                     map[string]string   // kind → command-line value
	victims                                    map[string][]string // kind → files read through it
}

func newIOFixture(t *testing.T) *ioFixture {
	t.Helper()
	root := t.TempDir()
	data := filepath.Join(root, "data")
	if out, err := densify(t, "synth", "--out", data, "--tracks", "--frames", "4", "--width", "64", "--height", "48", "--gt-every", "2"); err != nil {
		t.Fatalf("synth: %v\n%s", err, out)
	}
	f := &ioFixture{root: root, data: data, seq: filepath.Join(data, "synth01")}
	f.def = filepath.Join(f.seq, "GroundTruth", "synth01Def.dat")
	f.frame = filepath.Join(f.seq, "synth01_0002.png")
	f.label = filepath.Join(f.seq, "GroundTruth", "synth01_0003.ppm")
	f.tracks = filepath.Join(f.seq, "synth01Tracks4_gt.dat")
	write := func(name, content string) string {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("in/plain.txt", "x\n")
	seg := write("seg/segment.json", "{}\n")
	cam := write("seg/camera.csv", "x\n")
	graph := write("list/g.txt", "1 0\n")
	evalList := write("list/eval.txt", f.seq+"\t"+f.tracks+"\n")
	sparsifyList := write("list/sparsify.txt", "s\t"+graph+"\t"+graph+"\t"+f.tracks+"\t"+f.seq+"\n")
	f.values = map[string]string{
		"": plain, "frames": f.seq, "gt": f.seq, "tree": filepath.Join(f.seq, "GroundTruth"),
		"glob": filepath.Join(f.seq, "*.dat"), "segment": seg, "dataset": data,
		"evallist": evalList, "sparsifylist": sparsifyList,
	}
	f.victims = map[string][]string{
		"": {plain}, "frames": {f.frame, f.def, f.label}, "gt": {f.def, f.label}, "tree": {f.def, f.label},
		"glob": {f.tracks}, "segment": {seg, cam}, "dataset": {f.frame, f.def, f.label},
		"evallist": {evalList, f.def, f.label, f.tracks}, "sparsifylist": {sparsifyList, graph, f.tracks, f.label},
	}
	return f
}

// checkOutputs parses args on a fresh command tree and applies the
// output-is-an-input rule to the command.
func checkOutputs(t *testing.T, name string, args []string) error {
	t.Helper()
	c := commandsByName(NewCmdRoot(NewFactory()))[name]
	if err := c.ParseFlags(args); err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return checks.CheckOutputs(c, c.Flags().Args())
}

// The one rule, for every output flag of every command: an output naming
// an input, or a file read through one (a frame of --frames, a label
// image or the Def.dat of --gt, a file a list names, …), is refused; an
// output elsewhere is not.
func TestNoOutputIsAnInput(t *testing.T) {
	f := newIOFixture(t)
	n := 0
	for name, io := range ioFlags {
		for _, o := range io.Out {
			out, _ := ioName(o)
			for _, i := range io.In {
				in, kind := ioName(i)
				inArgs := []string{"--" + in, f.values[kind]}
				if in == "ARGS" {
					inArgs = []string{f.values[kind]}
				}
				fresh := append(slices.Clone(inArgs), "--"+out, filepath.Join(t.TempDir(), "new"))
				if err := checkOutputs(t, name, fresh); err != nil {
					t.Errorf("%s %v: %v", name, fresh, err)
				}
				for _, v := range f.victims[kind] {
					args := append(slices.Clone(inArgs), "--"+out, v)
					err := checkOutputs(t, name, args)
					if err == nil || !strings.Contains(err.Error(), "--"+out+" "+v) || !strings.Contains(err.Error(), "refusing to overwrite an input") {
						t.Errorf("%s %v: %v", name, args, err)
					}
					n++
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d cases", n)
	}
}
