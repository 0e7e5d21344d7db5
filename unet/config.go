package unet

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/densify/densify/models"
)

// Config describes one U-Net; presets live in models/*.json (see package models).
type Config struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// BaseWidth is the channel count of the first block; encoder level l has
	// BaseWidth·2^l channels (the bottleneck keeps BaseWidth·2^(Depth-1), as in the
	// bilinear U-Net, whose up path halves channels before concatenation).
	BaseWidth int `json:"base_width"`
	// Depth is the number of 2×2 max-pool downs and of bilinear ×2 ups (4 in ACCV'20).
	Depth int `json:"depth"`
	// Edges adds a Sobel edge-magnitude channel (see Sobel) to the RGB input.
	Edges bool `json:"edges"`
	// Classes is the number of output logits per pixel: 1 = binary (one logit,
	// sigmoid → foreground probability), K ≥ 2 = K-class logits (softmax).
	Classes int `json:"classes"`
}

// Preset returns the preset called name from models/ (e.g. "unet-cpu", "unet-paper").
func Preset(name string) (Config, error) {
	b, err := models.Lookup(name)
	if err != nil {
		return Config{}, err
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("models/%s.json: %v", name, err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("models/%s.json: %v", name, err)
	}
	return c, nil
}

// Validate checks the ranges of every field.
func (c Config) Validate() error {
	switch {
	case c.Name == "":
		return fmt.Errorf("config has no name")
	case c.BaseWidth < 1 || c.BaseWidth > 1024:
		return fmt.Errorf("base_width %d outside [1, 1024]", c.BaseWidth)
	case c.Depth < 1 || c.Depth > 6:
		return fmt.Errorf("depth %d outside [1, 6]", c.Depth)
	case c.Classes < 1 || c.Classes > 256:
		return fmt.Errorf("classes %d outside [1, 256]", c.Classes)
	}
	return nil
}

// InputChannels is the number of channels the first convolution sees: 3 (RGB) plus
// one for the Sobel map when Edges is set. Forward always takes RGB; it adds the edges.
func (c Config) InputChannels() int {
	if c.Edges {
		return 4
	}
	return 3
}

// MinSize is the smallest image side the network accepts: 2^Depth (every level
// must keep at least one pixel after floor-halving).
func (c Config) MinSize() int { return 1 << c.Depth }

// sameArchitecture reports whether weights of a and b are interchangeable (the
// description may differ).
func sameArchitecture(a, b Config) bool {
	return a.Name == b.Name && a.BaseWidth == b.BaseWidth && a.Depth == b.Depth &&
		a.Edges == b.Edges && a.Classes == b.Classes
}

func (c Config) String() string {
	e := "RGB"
	if c.Edges {
		e = "RGB+Sobel"
	}
	return fmt.Sprintf("%s (base width %d, depth %d, %s input, %d output channel(s))", c.Name, c.BaseWidth, c.Depth, e, c.Classes)
}
