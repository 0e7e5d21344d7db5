// Package models holds the U-Net presets as small embedded JSON files
// (unet-paper.json, unet-cpu.json) and the starting weights of a preset's
// first training (weights/<preset>-<name>.ckpt, see StartingWeights). It is
// pure data: the unet package decodes a preset into its Config
// (unet.Preset) and validates it.
//
// A preset file has the fields
//
//	name        preset name (must equal the file name without .json)
//	description one line for humans
//	base_width  channels of the first block; level l has base_width·2^l channels
//	depth       number of 2×2 max-pool downs (= number of bilinear ×2 ups); 4 in ACCV'20
//	edges       add a Sobel edge-magnitude channel to the RGB input
//	classes     output channels: 1 = one binary logit, K ≥ 2 = K-class logits
package models

import (
	"embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed *.json
var files embed.FS

// Default is the preset used when none is named: the CPU-sized one.
const Default = "unet-cpu"

// Names lists the embedded presets, sorted.
func Names() []string {
	entries, err := files.ReadDir(".")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Lookup returns the JSON of the preset called name (without ".json").
func Lookup(name string) ([]byte, error) {
	b, err := files.ReadFile(name + ".json")
	if err != nil {
		return nil, fmt.Errorf("unknown model preset %q (available: %s)", name, strings.Join(Names(), ", "))
	}
	return b, nil
}
