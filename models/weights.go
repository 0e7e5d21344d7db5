package models

import (
	"embed"
	"fmt"
	"sort"
	"strings"
)

// Starting weights are U-Net checkpoints embedded beside the presets,
// weights/<preset>-<name>.ckpt: networks that densify trained on the
// prepared sets of many videos (densify train --joint), whose labels come
// from the segmentation, not from an annotation. A sequence's first
// training starts from them instead of a random initialisation (transfer
// of features between tasks: Yosinski et al., "How transferable are
// features in deep neural networks?", NeurIPS 2014).
//
// weights/unet-cpu-davis.ckpt is the unet-cpu network trained on the
// prepared sets of the twenty DAVIS 2016 development sequences, with
// densify train --joint --variant uniform --seed 1 --step-budget 200
// --scale 0.25 and one --set per sequence (docs/results.md, "Starting
// weights trained on the twenty", gives the command and what it measured).

//go:embed weights/*.ckpt
var weights embed.FS

// DefaultStartingWeights is the name of the starting weights a preset's
// training uses by default, when the preset has them.
const DefaultStartingWeights = "davis"

// StartingWeightsNames lists the names of the starting weights embedded for
// preset, sorted.
func StartingWeightsNames(preset string) []string {
	entries, err := weights.ReadDir("weights")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if rest, ok := strings.CutPrefix(e.Name(), preset+"-"); ok {
			if n, ok := strings.CutSuffix(rest, ".ckpt"); ok {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}

// StartingWeights returns the checkpoint of the starting weights called
// name for preset.
func StartingWeights(preset, name string) ([]byte, error) {
	b, err := weights.ReadFile("weights/" + preset + "-" + name + ".ckpt")
	if err != nil {
		have := StartingWeightsNames(preset)
		if len(have) == 0 {
			return nil, fmt.Errorf("preset %s has no embedded starting weights", preset)
		}
		return nil, fmt.Errorf("preset %s has no starting weights %q (embedded: %s)", preset, name, strings.Join(have, ", "))
	}
	return b, nil
}
