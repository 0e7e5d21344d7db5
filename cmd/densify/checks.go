package main

// Checks every command gets before it runs: the range of every numeric
// flag, and no output path that names an input or a file read through one
// (a frame of --frames, a label image of --gt). Both are tables
// here, applied from the root command's PersistentPreRunE by
// internal/flagcheck, so that a new flag is checked by adding one line; the
// ranges are also appended to the flags' --help text. The library options
// have their own Validate methods (pipeline.Options, train.Config,
// uncertainty.SparsifyOptions, …) with the same bounds, so the pipeline is
// checked alike.

import (
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/eval"
	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/uncertainty"

	"github.com/densify/densify/internal/flagcheck"
	"github.com/densify/densify/refine"
	"github.com/densify/densify/slurm"
	"github.com/densify/densify/synth"
	"github.com/densify/densify/train"
)

// flagRanges gives the range of every numeric flag by name; commandRanges
// overrides it for one command ("command/flag").
var flagRanges = map[string]flagcheck.Range{
	"threads":             {Lo: 0, Hi: 4096, Note: "0 = all cores"},
	"corrupt":             flagcheck.Closed(0, 1),
	"count":               flagcheck.Closed(1, 1000),
	"gt-every":            flagcheck.Closed(1, 2000),
	"width":               flagcheck.Closed(32, 4096),
	"height":              flagcheck.Closed(32, 4096),
	"illumination":        flagcheck.Closed(0, 0.5),
	"blur":                flagcheck.Closed(0, 1),
	"noise":               flagcheck.Closed(0, 64),
	"objects":             flagcheck.Closed(1, synth.MaxObjects),
	"spacing":             flagcheck.Closed(1, 1024),
	"min-length":          flagcheck.Closed(1, 100000),
	"consistency-rel":     flagcheck.Closed(0, 1000),
	"consistency-abs":     flagcheck.Closed(0, 1e6),
	"boundary-rel":        flagcheck.Closed(0, 1000),
	"boundary-abs":        {Lo: -1, Hi: 1e6, Note: "negative = off"},
	"appearance":          {Lo: 0, Hi: 100, Note: "0 = off"},
	"logit-shift":         flagcheck.Closed(-20, 20),
	"vis-frame":           flagcheck.Closed(0, 1e6),
	"beta":                {Lo: 0, Hi: 1, LoOpen: true, HiOpen: true},
	"k":                   flagcheck.Closed(1, 1000),
	"long-range-per-node": flagcheck.Closed(0, 10000),
	"long-range-radius":   {Lo: 0, Hi: 1e5, LoOpen: true},
	"lifted-per-node":     flagcheck.Closed(1, 10000),
	"lifted-radius":       {Lo: 0, Hi: 1e5, LoOpen: true},
	"radius":              {Lo: 0, Hi: 1e5, LoOpen: true},
	"min-cluster":         {Lo: 0, Hi: 1e9, Note: "0 = off"},
	"background-split":    {Lo: 0, Hi: 100, Note: "0 = off"},
	"min-overlap":         flagcheck.Closed(1, 1e6),
	"lambda":              flagcheck.Closed(0, 1e6),
	"max-iter":            flagcheck.Closed(1, 1e6),
	"max-stall":           {Lo: -1, Hi: 1e9, Note: "-1 = never; 0 is refused"},
	"full-sweep":          {Lo: -1, Hi: 1e9, Note: "-1 = no second phase; 0 is refused"},
	"v-cycles":            flagcheck.Closed(1, 100),
	"group-moves":         {Lo: -1, Hi: 1e6, Note: "-1 = none; 0 is refused"},
	"join-evict":          {Lo: -1, Hi: 1e6, Note: "-1 = none; 0 is refused"},
	"neighbourhood":       {Lo: 0, Hi: 1e9, Note: "0 = off"},
	"fusions":             flagcheck.Closed(0, 1000),
	"every":               flagcheck.Closed(1, 1e6),
	"max":                 {Lo: 0, Hi: 1, HiOpen: true},
	"seeds":               flagcheck.Closed(1, 1000),
	"step":                flagcheck.Closed(1e-4, 1),
	"max-k":               {Lo: 0, Hi: 1e6, Note: "0 = no bound"},
	"n":                   flagcheck.Closed(1, 1000),
	"eval-frames":         {Lo: -1, Hi: 1e9, Note: "0 = the tracks' frames, -1 = all"},
	"threshold":           {Lo: 0, Hi: 1, LoOpen: true, HiOpen: true},
	"background":          {Lo: -1, Hi: 1e9, Note: "-1 = automatic"},
	"factor":              {Lo: 0, Hi: 1e6, LoOpen: true},
	"far-background":      flagcheck.Closed(0, 2),
	"background-residual": {Lo: 0, Hi: 1e6, Note: "0 = off"},
	"far-gap":             {Lo: 0, Hi: 1e4, Note: "0 = off"},
	"cut-margin":          flagcheck.Closed(0, 1e4),
	"support-radius":      {Lo: 0, Hi: 1e4, Note: "0 = off"},
	"support-length":      {Lo: 0, Hi: 1e6, Note: "0 = no cap"},
	"colour-window":       {Lo: 0, Hi: 1000, Note: "frames; 0 = off"},
	"unsteady":            {Lo: 0, Hi: 1000, Note: "0 = off"},
	"isolated-radius":     flagcheck.Closed(0, 1e4),
	"min-segment":         {Lo: 0, Hi: 1e9, Note: "0 keeps all"},
	"phi":                 flagcheck.Closed(0, 1),
	"batch":               flagcheck.Closed(1, 4096),
	"epochs":              flagcheck.Closed(1, 100000),
	"step-budget":         flagcheck.Closed(0, train.MaxStepBudget),
	"heatmap-every":       flagcheck.Closed(1, 1e6),
	"lr":                  {Lo: 0, Hi: 1, LoOpen: true},
	"scale":               {Lo: 0, Hi: 4, Note: "0 = auto"},
	"sparsify-seeds":      flagcheck.Closed(1, 1000),
	"seed":                {Lo: math.MinInt64, Hi: math.MaxInt64}, // any
	"limit":               {Lo: 0, Hi: 1e9, Note: "0 = all"},
	"workers":             flagcheck.Closed(1, 256),
	"neighbours":          flagcheck.Closed(4, 8),
	"lifted":              flagcheck.Closed(0, 1000),
	"min-size":            {Lo: 0, Hi: 1e9, Note: "0 = off"},
	"stride":              flagcheck.Closed(1, 64),
	"tolerance":           flagcheck.Closed(0, 100),
	"per-image":           flagcheck.Closed(1, 1e7),
	"shards":              {Lo: 0, Hi: slurm.MaxShards, Note: "0 = one per sequence"},
	"cpus-per-task":       {Lo: 0, Hi: 4096, Note: "0 = the cluster's default"},
	"gpus-per-task":       flagcheck.Closed(0, 64),
	"temporal":            {Lo: 0, Hi: refine.MaxTemporalRadius, Note: "0 = off"},
	"temperature":         {Lo: 0, Hi: uncertainty.MaxTemperature, Note: fmt.Sprintf("0 = %g", uncertainty.DefaultTemperature)},
	"prune":               {Lo: 0, Hi: 1, HiOpen: true, Note: fmt.Sprintf("0 = %g", train.DefaultPrune)},
	"primary-margin":      flagcheck.Closed(0, 10),
	"average":             {Lo: 0, Hi: 100000, Note: "0 or 1 = the last weights"},
	"keep-epochs":         {Lo: 0, Hi: 100000, Note: "0 = every epoch"},
	"crf-weight":          {Lo: 0, Hi: train.MaxCRFWeight, Note: "0 = off"},
	"round-crf-weight":    {Lo: 0, Hi: train.MaxCRFWeight, Note: "0 = off"},
	"net-weight":          {Lo: 0, Hi: 1e6},
	"colour-weight":       {Lo: 0, Hi: 1e6},
	"smooth":              {Lo: 0, Hi: 1e6},
	"components":          flagcheck.Closed(1, 10),
	"cuts":                flagcheck.Closed(1, 10),
	"confident":           {Lo: 0.5, Hi: 1, HiOpen: true},
	"band":                {Lo: 0, Hi: 1, LoOpen: true},
	"cut-scale":           {Lo: 0, Hi: 1, LoOpen: true},
	"dense-crf":           {Lo: 0, Hi: 1e6, Note: "0 = off"},
	"min-right":           {Lo: 0, Hi: 1, Note: fmt.Sprintf("0 = %g", train.DefaultMinRight)},
	"rounds":              {Lo: 0, Hi: pipeline.MaxRounds, Note: "0 = none"},
	"pseudo-confidence":   {Lo: 0.5, Hi: 1, LoOpen: true, HiOpen: true, Zero: true},
	"pseudo-band":         flagcheck.Closed(0, 1e4),
	"pseudo-weight":       {Lo: 0, Hi: 1e6, Note: fmt.Sprintf("0 = %g", train.DefaultPseudoWeight)},
}

var commandRanges = map[string]flagcheck.Range{
	"uncertainty/temperature": {Lo: 0, Hi: uncertainty.MaxTemperature, Note: "0 or 1 = u itself"},
	"synth/frames":            flagcheck.Closed(2, 2000),
	"synth/spacing":           flagcheck.Closed(1, 1024),
	"track/threshold":         flagcheck.Closed(0, 1000),
	"predict/scale":           {Lo: 0, Hi: 4, Note: "0 = the training scale"},
}

// ioFlags names, per command, the flags holding output and input paths.
// Outputs marked tree (a trailing "/") are folders written or replaced as
// a whole: an input inside them is refused too. "ARGS" stands for the
// positional arguments. An input's kind (after the colon, see inputKinds)
// adds the files read through it: no output may name one of those either.
var ioFlags = map[string]flagcheck.IO{
	"synth":       {Out: []string{"out"}},
	"track":       {Out: []string{"out", "vis", "stats", "flows/"}, In: []string{"frames:frames", "annotations:tree"}},
	"segment":     {Out: []string{"out/"}, In: []string{"tracks", "frames:frames", "model"}},
	"fit-costs":   {Out: []string{"out", "calibration", "fold-models/"}, In: []string{"data:dataset", "tracks-dir"}},
	"multicut":    {Out: []string{"out", "json"}, In: []string{"graph", "start"}},
	"uncertainty": {Out: []string{"out", "clusters", "heatmaps/"}, In: []string{"graph", "labels", "tracks", "frames:frames", "gt:gt"}},
	"sparsify":    {Out: []string{"out/"}, In: []string{"graph", "labels", "tracks", "gt:gt", "dataset:sparsifylist"}},
	"nbest":       {Out: []string{"out/"}, In: []string{"graph", "labels", "tracks", "gt:gt"}},
	"eval":        {Out: []string{"json"}, In: []string{"gt:gt", "tracks:glob", "masks:tree", "dataset:evallist"}},
	"prepare":     {Out: []string{"out/"}, In: []string{"frames:frames", "tracks", "uncertainty", "segment:segment", "gt:gt"}},
	"decompose":   {Out: []string{"out/"}, In: []string{"image", "gt", "images:tree", "gt-dir:tree", "model"}},
	"fit":         {Out: []string{"out"}, In: []string{"train-images:tree", "train-gt:tree", "val-images:tree", "val-gt:tree"}},
	"train":       {Out: []string{"out"}, In: []string{"set:tree", "pseudo:tree", "init", "error-model", "ARGS:dataset", "cost-model"}},
	"predict":     {Out: []string{"out/"}, In: []string{"model", "frames:frames", "flows:tree"}},
	"refine":      {Out: []string{"out/"}, In: []string{"frames:frames", "prob:tree"}},
	"run":         {Out: []string{"out"}, In: []string{"ARGS:dataset", "tracks", "cost-model", "init"}},
	"ablate":      {Out: []string{"out"}, In: []string{"ARGS:dataset", "tracks", "cost-model", "init"}},
	"slurm":       {Out: []string{"out"}, In: []string{"ARGS:dataset"}},
}

// inputKinds lists the files read through an input path of each kind.
// Unreadable inputs give what could be listed; the command itself reports
// them.
var inputKinds = map[string]func(path string) []string{
	// a frame folder: its images, and its GroundTruth/ folder
	"frames": func(dir string) []string {
		return append(imagesIn(dir), treeFiles(filepath.Join(dir, "GroundTruth"))...)
	},
	"gt":   gtFiles,
	"tree": treeFiles,
	"glob": func(p string) []string { m, _ := filepath.Glob(p); return m },
	// segment.json and the camera residuals beside it
	"segment": func(p string) []string {
		return []string{filepath.Join(filepath.Dir(p), motiongraph.CameraResidualsFile)}
	},
	// a dataset root or one sequence: the frames and ground truth of each
	"dataset": func(root string) []string {
		seqs, _ := dataset.FindSequences(root)
		var out []string
		for _, s := range seqs {
			out = append(out, imagesIn(s.FramesDir)...)
			if s.GTPath != "" {
				out = append(out, gtFiles(s.GTPath)...)
			}
		}
		return out
	},
	// eval --dataset: every ground truth, Tracks file and mask folder listed
	"evallist": func(p string) []string {
		entries, _ := eval.ReadList(p)
		var out []string
		for _, e := range entries {
			out = append(append(append(out, e.GT), gtFiles(e.GT)...), treeFiles(e.Target)...)
		}
		return out
	},
	// sparsify --dataset: every graph, labels, Tracks file and ground truth listed
	"sparsifylist": func(p string) []string {
		ins, _ := uncertainty.ReadSequenceList(p)
		var out []string
		for _, in := range ins {
			out = append(append(out, in.Graph, in.Labels, in.Tracks, in.GT), gtFiles(in.GT)...)
		}
		return out
	},
}

// gtFiles lists the Def.dat and its label images, or the DAVIS PNGs.
func gtFiles(p string) []string {
	def, images, _ := dataset.GroundTruthFiles(p)
	if def != "" {
		images = append(images, def)
	}
	return images
}

// imagesIn lists the image files directly in dir.
func imagesIn(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if !e.IsDir() && dataset.IsImageFile(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// treeFiles lists the files below p (p itself when it is a file).
func treeFiles(p string) []string {
	var out []string
	filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, f)
		}
		return nil
	})
	return out
}

// checks is the table NewCmdRoot installs.
var checks = flagcheck.Table{Flags: flagRanges, Commands: commandRanges, IO: ioFlags, Inputs: inputKinds}
