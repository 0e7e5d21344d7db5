// Package flagcheck checks a cobra command's flags before it runs: the
// range of every numeric flag and no output path that names an input or a
// file read through one, both from tables (Table), so that a new flag is
// checked by adding one line; the ranges are also appended to the flags'
// --help text.
package flagcheck

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/densify/densify/internal/pathcheck"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Range is the allowed interval of a numeric flag; with Zero, 0 is allowed
// as well (a switch outside the interval, e.g. "0 = off").
type Range struct {
	Lo, Hi         float64
	LoOpen, HiOpen bool
	Zero           bool
	Note           string // e.g. "0 = auto"
}

func (r Range) String() string {
	l, h := "[", "]"
	if r.LoOpen {
		l = "("
	}
	if r.HiOpen {
		h = ")"
	}
	s := fmt.Sprintf("%s%s, %s%s", l, strconv.FormatFloat(r.Lo, 'g', -1, 64), strconv.FormatFloat(r.Hi, 'g', -1, 64), h)
	if r.Zero {
		s = "0 or " + s
	}
	if r.Note != "" {
		s += "; " + r.Note
	}
	return s
}

func (r Range) Contains(v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	if r.Zero && v == 0 {
		return true
	}
	if v < r.Lo || (r.LoOpen && v == r.Lo) || v > r.Hi || (r.HiOpen && v == r.Hi) {
		return false
	}
	return true
}

func Closed(lo, hi float64) Range { return Range{Lo: lo, Hi: hi} }

// IO names a command's flags holding output and input paths. Outputs
// marked tree (a trailing "/") are folders written or replaced as a whole:
// an input inside them is refused too. "ARGS" stands for the positional
// arguments. An input may name a kind after a colon ("frames:frames"): the
// files read through it (Table.Inputs) are inputs as well.
type IO struct{ Out, In []string }

// Table holds the checks: Flags gives the range of every numeric flag by
// name, Commands overrides it for one command ("command/flag"), IO the
// paths per command name, and Inputs, per kind of input, the files read
// through an input path of that kind (the frames and ground truth of a
// frame folder, the files a list names, …).
type Table struct {
	Flags, Commands map[string]Range
	IO              map[string]IO
	Inputs          map[string]func(path string) []string
}

// RangeOf returns the range of a numeric flag of cmd (ok false: none).
func (t Table) RangeOf(cmd *cobra.Command, fl *pflag.Flag) (Range, bool) {
	switch fl.Value.Type() {
	case "int", "int64", "float64", "int32", "uint", "float32":
	default:
		return Range{}, false
	}
	if r, ok := t.Commands[cmd.Name()+"/"+fl.Name]; ok {
		return r, true
	}
	r, ok := t.Flags[fl.Name]
	return r, ok
}

// CheckRanges checks every numeric flag of cmd (given or default).
func (t Table) CheckRanges(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if err != nil {
			return
		}
		r, ok := t.RangeOf(cmd, fl)
		if !ok {
			return // TestEveryNumericFlagHasARange requires a range for every numeric flag
		}
		v, perr := strconv.ParseFloat(fl.Value.String(), 64)
		if perr != nil || !r.Contains(v) {
			err = fmt.Errorf("--%s %s is out of range: want %s", fl.Name, fl.Value.String(), r)
		}
	})
	return err
}

func flagValues(cmd *cobra.Command, name string, args []string) []string {
	if name == "ARGS" {
		return args
	}
	fl := cmd.Flags().Lookup(name)
	if fl == nil {
		return nil
	}
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return []string{fl.Value.String()}
}

// CheckOutputs refuses an output path that is an input, or a file read
// through one (pathcheck.Distinct): the one rule every output flag of
// every command goes through.
func (t Table) CheckOutputs(cmd *cobra.Command, args []string) error {
	io, ok := t.IO[cmd.Name()]
	if !ok {
		return nil
	}
	var outs, ins []pathcheck.Path
	for _, o := range io.Out {
		name, tree := strings.CutSuffix(o, "/")
		for _, v := range flagValues(cmd, name, args) {
			outs = append(outs, pathcheck.Path{Flag: "--" + name, Path: v, Tree: tree})
		}
	}
	for _, i := range io.In {
		i, kind, _ := strings.Cut(i, ":")
		flag := "--" + i
		if i == "ARGS" {
			flag = "argument"
		}
		for _, v := range flagValues(cmd, i, args) {
			ins = append(ins, pathcheck.Path{Flag: flag, Path: v})
			if expand := t.Inputs[kind]; expand != nil && v != "" {
				for _, f := range expand(v) {
					ins = append(ins, pathcheck.Path{Flag: flag, Path: f, Within: v})
				}
			}
		}
	}
	// Two outputs of one command must differ as well.
	for a := range outs {
		for b := a + 1; b < len(outs); b++ {
			if err := pathcheck.Distinct(outs[a:a+1], outs[b:b+1]); err != nil && outs[a].Path != "" {
				return fmt.Errorf("%s and %s name the same file %s", outs[a].Flag, outs[b].Flag, outs[a].Path)
			}
		}
	}
	return pathcheck.Distinct(outs, ins)
}

// annotateHelp appends each numeric flag's range to its usage text.
func (t Table) annotateHelp(c *cobra.Command) {
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		if r, ok := t.RangeOf(c, fl); ok && fl.Name != "seed" {
			fl.Usage += " (range " + r.String() + ")"
		}
	})
	for _, s := range c.Commands() {
		t.annotateHelp(s)
	}
}

// Install makes root check every command's flags before it runs and
// annotate the ranges in the help text.
func (t Table) Install(root *cobra.Command) {
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if err := t.CheckRanges(cmd); err != nil {
			return err
		}
		return t.CheckOutputs(cmd, args)
	}
	var once sync.Once
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		once.Do(func() { t.annotateHelp(root) })
		help(c, args)
	})
}
