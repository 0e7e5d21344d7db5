package main

import (
	"path/filepath"

	"github.com/densify/densify/train"
)

// trainShard trains one model per prepared set of a shard, each in
// <out>/<sequence> whatever the number of sets of this shard (so the shards
// of a job array lay out one folder per sequence, as an unsharded run with
// several sequences does).
func trainShard(o *trainOptions) error {
	ctx, stop := signalContext()
	defer stop()
	for _, set := range o.Sets {
		s, err := train.Run(ctx, o.Config, []string{set}, filepath.Join(o.Out, train.SetName(set)), o.IO.ErrOut)
		if err != nil {
			return err
		}
		printTrained(o, s)
	}
	return nil
}
