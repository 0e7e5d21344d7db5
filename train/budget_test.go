package train

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestEffectiveEpochsHandComputed(t *testing.T) {
	c := Config{Epochs: 15, StepBudget: 600}
	for _, tc := range []struct{ perEpoch, sets, want int }{
		{52, 1, 11},  // cows: 104 frames at batch 2, 600/52 = 11.5
		{45, 1, 13},  // dance-twirl: 90 frames
		{40, 1, 15},  // 80 frames: exactly 15 epochs, the cap does not bind
		{20, 1, 15},  // short sequences keep --epochs
		{700, 1, 1},  // at least one epoch
		{156, 3, 11}, // joint over three cows-sized sets: 1800/156
	} {
		if got := c.EffectiveEpochs(tc.perEpoch, tc.sets); got != tc.want {
			t.Errorf("%d steps per epoch, %d sets: %d epochs, want %d", tc.perEpoch, tc.sets, got, tc.want)
		}
	}
	// The default: 600 steps, at most 30 epochs.
	d := DefaultConfig()
	for perEpoch, want := range map[int]int{25: 24, 20: 30, 10: 30, 52: 11} {
		if got := d.EffectiveEpochs(perEpoch, 1); got != want {
			t.Errorf("default, %d steps per epoch: %d epochs, want %d", perEpoch, got, want)
		}
	}
	if got := (Config{Epochs: 15}).EffectiveEpochs(700, 1); got != 15 {
		t.Errorf("no budget: %d epochs, want 15", got)
	}
	bad := DefaultConfig()
	bad.StepBudget = -1
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "step budget") {
		t.Errorf("negative step budget: %v", err)
	}
}

func TestStepBudgetStopsAtWholeEpochs(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 3, testOptions())
	cfg := tinyConfig(5)
	cfg.Batch = 1      // 3 steps per epoch
	cfg.StepBudget = 7 // two whole epochs fit
	s := mustRun(t, cfg, []string{set}, filepath.Join(t.TempDir(), "m"))
	if s.Epochs != 2 || s.Steps != 6 || len(s.EpochLoss) != 2 {
		t.Fatalf("budget 7 at 3 steps per epoch: %d epochs, %d steps, %d epoch losses; want 2, 6, 2", s.Epochs, s.Steps, len(s.EpochLoss))
	}
	cfg.StepBudget = 0
	if s := mustRun(t, cfg, []string{set}, filepath.Join(t.TempDir(), "m")); s.Epochs != 5 || s.Steps != 15 {
		t.Fatalf("no budget: %d epochs, %d steps; want 5, 15", s.Epochs, s.Steps)
	}
}

// The automatic scale by hand: DAVIS's 854×480 to 256/854 (0.3 to three
// decimals: 256×144), FBMS59's 640×480 to 0.4, small frames ½, CUDA 1.
func TestAutoScaleHandComputed(t *testing.T) {
	for _, c := range []struct {
		cuda bool
		w, h int
		want float64
	}{
		{false, 854, 480, 256.0 / 854},
		{false, 480, 854, 256.0 / 854},
		{false, 640, 480, 0.4},
		{false, 320, 240, 0.5},
		{false, 0, 0, 0.5},
		{true, 854, 480, 1},
	} {
		if got := AutoScale(c.cuda, c.w, c.h); got != c.want {
			t.Errorf("AutoScale(%v, %d, %d) = %v, want %v", c.cuda, c.w, c.h, got, c.want)
		}
	}
	if w, h := scaledSize(854, 480, AutoScale(false, 854, 480)); w != 256 || h != 144 {
		t.Errorf("DAVIS at the automatic scale: %d×%d, want 256×144", w, h)
	}
}

// Scale 0 resolves from the largest frames of the sets (largestFrame: the
// 640×96 set beside a 48×32 one); a set of 48×32 frames trains at ½,
// recorded in train.json's options; a missing set is named.
func TestAutoScaleFromSets(t *testing.T) {
	dir := t.TempDir()
	small, _ := synthSet(t, filepath.Join(dir, "small"), 48, 32, 2, testOptions())
	wide, _ := synthSet(t, filepath.Join(dir, "wide"), 640, 96, 2, testOptions())
	if w, h, err := largestFrame([]string{small, wide}); err != nil || w != 640 || h != 96 {
		t.Fatalf("largestFrame = %d×%d, %v; want 640×96", w, h, err)
	}
	cfg := tinyConfig(1)
	cfg.Scale = 0
	if s := mustRun(t, cfg, []string{small}, filepath.Join(dir, "m")); s.Options.Scale != 0.5 || s.Width != 24 {
		t.Fatalf("48×32 frames: scale %v, width %d; want 0.5 and 24", s.Options.Scale, s.Width)
	}
	if _, _, err := largestFrame([]string{filepath.Join(dir, "none")}); err == nil || !strings.Contains(err.Error(), "none") {
		t.Fatalf("a missing set: %v, want an error naming it", err)
	}
}
