package main

import (
	"github.com/densify/densify/sampling"
	"github.com/spf13/pflag"
)

// addPrepareFlags binds the training-data options (shared by prepare, train and run).
func addPrepareFlags(f *pflag.FlagSet, o *sampling.Options) {
	f.BoolVar(&o.Multi, "multi", o.Multi, "multi-label mode (one class per segment) instead of background vs moving objects")
	f.IntVar(&o.Background, "background", o.Background, "cluster id of the background (-1: the cluster with most points on the image border)")
	f.IntVar(&o.MinSegment, "min-segment", o.MinSegment, "drop segments with fewer trajectories (0 keeps all)")
	f.BoolVar(&o.DropIsolated, "drop-isolated", o.DropIsolated, "drop foreground points with no same-class point within --isolated-radius")
	f.Float64Var(&o.IsolatedRadius, "isolated-radius", o.IsolatedRadius, "radius in pixels for --drop-isolated")
	f.BoolVar(&o.BorderPoints, "border-points", o.BorderPoints, "add background points along the image borders (every 10 px, 5 and 15 px in)")
	f.BoolVar(&o.Balance, "balance", o.Balance, "class balance weights ⌊n_major/n_minor/10⌋+1 (ACCV'20)")
	f.Float64Var(&o.Phi, "phi", o.Phi, "segment-uncertainty threshold φ: hard examples only in segments with mean uncertainty > φ")
	f.Float64Var(&o.Factor, "factor", o.Factor, "loss weight of hard examples (oversampling factor; 1 disables)")
}
