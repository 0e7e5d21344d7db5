package main

// Checks every command gets before it runs: the range of every
// numeric flag, and no output path that names an input. Both are tables
// here, applied from the root command's PersistentPreRunE by
// internal/flagcheck, so that a new flag is checked by adding one line; the
// ranges are also appended to the flags' --help text. The library options
// have their own Validate methods (pipeline.Options, train.Config,
// uncertainty.SparsifyOptions, …) with the same bounds, so the pipeline is
// checked alike.

import (
	"math"

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
}

var commandRanges = map[string]flagcheck.Range{
	"synth/frames":    flagcheck.Closed(2, 2000),
	"synth/spacing":   flagcheck.Closed(1, 1024),
	"track/threshold": flagcheck.Closed(0, 1000),
	"predict/scale":   {Lo: 0, Hi: 4, Note: "0 = the training scale"},
}

// ioFlags names, per command, the flags holding output and input paths.
// Outputs marked tree (a trailing "/") are folders written or replaced as
// a whole: an input inside them is refused too. "ARGS" stands for the
// positional arguments.
var ioFlags = map[string]flagcheck.IO{
	"synth":       {Out: []string{"out"}},
	"track":       {Out: []string{"out", "vis", "stats"}, In: []string{"frames", "annotations"}},
	"segment":     {Out: []string{"out/"}, In: []string{"tracks", "frames", "model"}},
	"fit-costs":   {Out: []string{"out", "calibration", "fold-models/"}, In: []string{"data", "tracks-dir"}},
	"multicut":    {Out: []string{"out", "json"}, In: []string{"graph", "start"}},
	"uncertainty": {Out: []string{"out", "clusters", "heatmaps/"}, In: []string{"graph", "labels", "tracks", "frames", "gt"}},
	"sparsify":    {Out: []string{"out/"}, In: []string{"graph", "labels", "tracks", "gt", "dataset"}},
	"nbest":       {Out: []string{"out/"}, In: []string{"graph", "labels", "tracks", "gt"}},
	"eval":        {Out: []string{"json"}, In: []string{"gt", "tracks", "masks", "dataset"}},
	"prepare":     {Out: []string{"out/"}, In: []string{"frames", "tracks", "uncertainty", "segment", "gt"}},
	"decompose":   {Out: []string{"out/"}, In: []string{"image", "gt", "images", "gt-dir", "model"}},
	"fit":         {Out: []string{"out"}, In: []string{"train-images", "train-gt", "val-images", "val-gt"}},
	"train":       {Out: []string{"out"}, In: []string{"set", "ARGS"}},
	"predict":     {Out: []string{"out/"}, In: []string{"model", "frames"}},
	"run":         {Out: []string{"out"}, In: []string{"ARGS", "tracks"}},
	"ablate":      {Out: []string{"out"}, In: []string{"ARGS", "tracks"}},
	"slurm":       {Out: []string{"out"}, In: []string{"ARGS"}},
}

// checks is the table NewCmdRoot installs.
var checks = flagcheck.Table{Flags: flagRanges, Commands: commandRanges, IO: ioFlags}
