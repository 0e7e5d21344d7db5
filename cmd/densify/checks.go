package main

// Checks every command gets before it runs (issue 11): the range of every
// numeric flag, and no output path that names an input. Both are tables
// here, applied from the root command's PersistentPreRunE, so that a new
// flag is checked by adding one line; the ranges are also appended to the
// flags' --help text. The library options have their own Validate methods
// (pipeline.Options, train.Config, uncertainty.SparsifyOptions, …) with the
// same bounds, so the pipeline is checked alike.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/densify/densify/internal/pathcheck"
	"github.com/densify/densify/synth"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// numRange is the allowed interval of a numeric flag.
type numRange struct {
	lo, hi         float64
	loOpen, hiOpen bool
	note           string // e.g. "0 = auto"
}

func (r numRange) String() string {
	l, h := "[", "]"
	if r.loOpen {
		l = "("
	}
	if r.hiOpen {
		h = ")"
	}
	s := fmt.Sprintf("%s%s, %s%s", l, strconv.FormatFloat(r.lo, 'g', -1, 64), strconv.FormatFloat(r.hi, 'g', -1, 64), h)
	if r.note != "" {
		s += "; " + r.note
	}
	return s
}

func (r numRange) contains(v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	if v < r.lo || (r.loOpen && v == r.lo) || v > r.hi || (r.hiOpen && v == r.hi) {
		return false
	}
	return true
}

func closed(lo, hi float64) numRange { return numRange{lo: lo, hi: hi} }

// flagRanges gives the range of every numeric flag by name; commandRanges
// overrides it for one command ("command/flag").
var flagRanges = map[string]numRange{
	"threads":         {lo: 0, hi: 4096, note: "0 = all cores"},
	"corrupt":         closed(0, 1),
	"count":           closed(1, 1000),
	"gt-every":        closed(1, 2000),
	"width":           closed(32, 4096),
	"height":          closed(32, 4096),
	"illumination":    closed(0, 0.5),
	"noise":           closed(0, 64),
	"objects":         closed(1, synth.MaxObjects),
	"spacing":         closed(1, 1024),
	"min-length":      closed(1, 100000),
	"vis-frame":       closed(0, 1e6),
	"beta":            {lo: 0, hi: 1, loOpen: true, hiOpen: true},
	"k":               closed(1, 1000),
	"lifted-per-node": closed(1, 10000),
	"lifted-radius":   {lo: 0, hi: 1e5, loOpen: true},
	"radius":          {lo: 0, hi: 1e5, loOpen: true},
	"min-cluster":     {lo: 0, hi: 1e9, note: "0 = off"},
	"min-overlap":     closed(1, 1e6),
	"lambda":          closed(0, 1e6),
	"max-iter":        closed(1, 1e6),
	"every":           closed(1, 1e6),
	"max":             {lo: 0, hi: 1, hiOpen: true},
	"seeds":           closed(1, 1000),
	"step":            closed(1e-4, 1),
	"max-k":           {lo: 0, hi: 1e6, note: "0 = no bound"},
	"n":               closed(1, 1000),
	"eval-frames":     {lo: -1, hi: 1e9, note: "0 = the tracks' frames, -1 = all"},
	"threshold":       {lo: 0, hi: 1, loOpen: true, hiOpen: true},
	"background":      {lo: -1, hi: 1e9, note: "-1 = automatic"},
	"factor":          {lo: 0, hi: 1e6, loOpen: true},
	"isolated-radius": closed(0, 1e4),
	"min-segment":     {lo: 0, hi: 1e9, note: "0 keeps all"},
	"phi":             closed(0, 1),
	"batch":           closed(1, 4096),
	"epochs":          closed(1, 100000),
	"heatmap-every":   closed(1, 1e6),
	"lr":              {lo: 0, hi: 1, loOpen: true},
	"scale":           {lo: 0, hi: 4, note: "0 = auto"},
	"sparsify-seeds":  closed(1, 1000),
	"seed":            {lo: math.MinInt64, hi: math.MaxInt64}, // any
}

var commandRanges = map[string]numRange{
	"synth/frames":    closed(2, 2000),
	"synth/spacing":   closed(1, 1024),
	"track/threshold": closed(0, 1000),
	"predict/scale":   {lo: 0, hi: 4, note: "0 = the training scale"},
}

// rangeOf returns the range of a numeric flag of cmd (ok false: none).
func rangeOf(cmd *cobra.Command, fl *pflag.Flag) (numRange, bool) {
	switch fl.Value.Type() {
	case "int", "int64", "float64", "int32", "uint", "float32":
	default:
		return numRange{}, false
	}
	if r, ok := commandRanges[cmd.Name()+"/"+fl.Name]; ok {
		return r, true
	}
	r, ok := flagRanges[fl.Name]
	return r, ok
}

// checkRanges checks every numeric flag of cmd (given or default).
func checkRanges(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if err != nil {
			return
		}
		r, ok := rangeOf(cmd, fl)
		if !ok {
			return // TestEveryNumericFlagHasARange requires a range for every numeric flag
		}
		v, perr := strconv.ParseFloat(fl.Value.String(), 64)
		if perr != nil || !r.contains(v) {
			err = fmt.Errorf("--%s %s is out of range: want %s", fl.Name, fl.Value.String(), r)
		}
	})
	return err
}

// ioFlags names, per command, the flags holding output and input paths.
// Outputs marked tree (a trailing "/") are folders written or replaced as
// a whole: an input inside them is refused too. "ARGS" stands for the
// positional arguments.
var ioFlags = map[string]struct{ out, in []string }{
	"synth":       {out: []string{"out"}},
	"track":       {out: []string{"out", "vis", "stats"}, in: []string{"frames", "annotations"}},
	"segment":     {out: []string{"out/"}, in: []string{"tracks", "frames", "model"}},
	"fit-costs":   {out: []string{"out", "calibration"}, in: []string{"data", "tracks-dir"}},
	"multicut":    {out: []string{"out", "json"}, in: []string{"graph", "start"}},
	"uncertainty": {out: []string{"out", "clusters", "heatmaps/"}, in: []string{"graph", "labels", "tracks", "frames", "gt"}},
	"sparsify":    {out: []string{"out/"}, in: []string{"graph", "labels", "tracks", "gt", "dataset"}},
	"nbest":       {out: []string{"out/"}, in: []string{"graph", "labels", "tracks", "gt"}},
	"eval":        {out: []string{"json"}, in: []string{"gt", "tracks", "masks", "dataset"}},
	"prepare":     {out: []string{"out/"}, in: []string{"frames", "tracks", "uncertainty"}},
	"train":       {out: []string{"out"}, in: []string{"set", "ARGS"}},
	"predict":     {out: []string{"out/"}, in: []string{"model", "frames"}},
	"run":         {out: []string{"out"}, in: []string{"ARGS", "tracks"}},
	"ablate":      {out: []string{"out"}, in: []string{"ARGS", "tracks"}},
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

// checkOutputs refuses an output path that is an input (pathcheck.Distinct).
func checkOutputs(cmd *cobra.Command, args []string) error {
	io, ok := ioFlags[cmd.Name()]
	if !ok {
		return nil
	}
	var outs, ins []pathcheck.Path
	for _, o := range io.out {
		name, tree := strings.CutSuffix(o, "/")
		for _, v := range flagValues(cmd, name, args) {
			outs = append(outs, pathcheck.Path{Flag: "--" + name, Path: v, Tree: tree})
		}
	}
	for _, i := range io.in {
		flag := "--" + i
		if i == "ARGS" {
			flag = "argument"
		}
		for _, v := range flagValues(cmd, i, args) {
			ins = append(ins, pathcheck.Path{Flag: flag, Path: v})
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
func annotateHelp(c *cobra.Command) {
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		if r, ok := rangeOf(c, fl); ok && fl.Name != "seed" {
			fl.Usage += " (range " + r.String() + ")"
		}
	})
	for _, s := range c.Commands() {
		annotateHelp(s)
	}
}

// addChecks makes root check every command's flags before it runs and
// annotate the ranges in the help text.
func addChecks(root *cobra.Command) {
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if err := checkRanges(cmd); err != nil {
			return err
		}
		return checkOutputs(cmd, args)
	}
	var once sync.Once
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		once.Do(func() { annotateHelp(root) })
		help(c, args)
	})
}
