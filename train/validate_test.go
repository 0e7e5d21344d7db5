package train

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Absurd settings are refused before anything is read or written.
func TestConfigValidateBeforeWork(t *testing.T) {
	for _, c := range []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.LR = 1e300 }, "learning rate must be in (0, 1], got 1e+300"},
		{func(c *Config) { c.LR = math.NaN() }, "learning rate"},
		{func(c *Config) { c.Epochs = 0 }, "epochs must be in [1, 100000]"},
		{func(c *Config) { c.Batch = 1 << 20 }, "batch size must be in [1, 4096]"},
		{func(c *Config) { c.Scale = -1 }, "scale must be in"},
		{func(c *Config) { c.Threads = -2 }, "threads must be in [0, 4096]"},
		{func(c *Config) { c.Preset = "nonsense" }, `unknown model preset "nonsense" (available: unet-cpu, unet-paper)`},
		{func(c *Config) { c.Device = "tpu" }, `unknown device "tpu"`},
		{func(c *Config) { c.CRFWeight = -1 }, "CRF loss weight must be in [0, 1e+06], got -1"},
		{func(c *Config) { c.CRFWeight = math.NaN() }, "CRF loss weight"},
	} {
		cfg := DefaultConfig()
		c.mod(&cfg)
		out := filepath.Join(t.TempDir(), "model")
		_, err := Run(context.Background(), cfg, []string{"/nonexistent/set"}, out, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: output folder created", c.want)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	for _, o := range []PredictOptions{{Preset: "nonsense"}, {Scale: 1e300}, {Threads: -1}, {Device: "x"}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if err := (PredictOptions{Preset: "nonsense"}).Validate(); err == nil || !strings.Contains(err.Error(), "available: unet-cpu, unet-paper") {
		t.Errorf("preset: %v", err)
	}
}
