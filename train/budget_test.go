package train

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/internal/npy"
	"github.com/densify/densify/trainset"
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
// decimals: 256×144) whatever the size of an object of 160 px or more;
// an object 120 px across to 48/120 = 0.4, 75 px to ½ (48/75 = 0.64,
// capped); FBMS59's 640×480 to 0.4, or 48/100 with a 100 px object; small
// frames ½; CUDA 1 whatever the object.
func TestAutoScaleHandComputed(t *testing.T) {
	for _, c := range []struct {
		cuda   bool
		w, h   int
		object float64
		want   float64
	}{
		{false, 854, 480, 0, 256.0 / 854},
		{false, 480, 854, 0, 256.0 / 854},
		{false, 854, 480, 200, 256.0 / 854},
		{false, 854, 480, 120, 0.4},
		{false, 854, 480, 75, 0.5},
		{false, 640, 480, 0, 0.4},
		{false, 640, 480, 100, 0.48},
		{false, 320, 240, 0, 0.5},
		{false, 0, 0, 0, 0.5},
		{true, 854, 480, 0, 1},
		{true, 854, 480, 75, 1},
	} {
		if got := AutoScale(c.cuda, c.w, c.h, c.object); got != c.want {
			t.Errorf("AutoScale(%v, %d, %d, %v) = %v, want %v", c.cuda, c.w, c.h, c.object, got, c.want)
		}
	}
	if w, h := scaledSize(854, 480, AutoScale(false, 854, 480, 0)); w != 256 || h != 144 {
		t.Errorf("DAVIS at the automatic scale: %d×%d, want 256×144", w, h)
	}
}

// objectExtent by hand on a set whose label maps are replaced: frame 0
// labels object the 20 pixels (10+i, 40+2i), i = 0…19, whose 5th and 95th
// percentiles (ranks 1 and 18) span 28−11 = 17 in x and 76−42 = 34 in y,
// √578; frame 1 has 4 object pixels, too few to measure; frame 2 the 20
// pixels (10+i, 5+i), 17 by 17. The median of the two measured frames is
// (√578 + 17)/2. Background (0) and unlabelled (−1) pixels count for
// nothing; a set of background only measures 0.
func TestObjectExtentHandComputed(t *testing.T) {
	const w, h = 64, 96
	set, _ := synthSet(t, t.TempDir(), w, h, 3, testOptions())
	m, err := trainset.ReadManifest(set)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Frames) != 3 {
		t.Fatalf("%d frames in the set, want 3", len(m.Frames))
	}
	write := func(f int, object func(i int) (x, y int), n int) {
		labels := make([]int16, w*h)
		for i := range labels {
			labels[i] = int16(i%2) - 1 // background and unlabelled everywhere
		}
		for i := range n {
			x, y := object(i)
			labels[y*w+x] = 1
		}
		if err := npy.Write(filepath.Join(set, m.Frames[f].Labels), &npy.Array{Shape: []int{h, w}, Int16: labels}); err != nil {
			t.Fatal(err)
		}
	}
	write(0, func(i int) (int, int) { return 10 + i, 40 + 2*i }, 20)
	write(1, func(i int) (int, int) { return 50 + i, 50 }, 4)
	write(2, func(i int) (int, int) { return 10 + i, 5 + i }, 20)
	got, err := objectExtent([]string{set})
	if want := (math.Sqrt(578) + 17) / 2; err != nil || math.Abs(got-want) > 1e-12 {
		t.Fatalf("objectExtent = %v, %v; want %v", got, err, want)
	}
	for f := range 3 {
		write(f, func(i int) (int, int) { return 0, 0 }, 0)
	}
	if got, err := objectExtent([]string{set}); err != nil || got != 0 {
		t.Fatalf("background only: objectExtent = %v, %v; want 0", got, err)
	}
	if err := os.WriteFile(filepath.Join(set, m.Frames[1].Labels), []byte("not npy"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := objectExtent([]string{set}); err == nil || !strings.Contains(err.Error(), m.Frames[1].Labels) {
		t.Fatalf("a broken label map: %v, want an error naming it", err)
	}
}

// Scale 0 resolves from the largest frames of the sets (largestFrame: the
// 640×96 set beside a 48×32 one); a set of 48×32 frames trains at ½,
// recorded in train.json's options; the 640×96 set at ½ rather than 0.4,
// for its small object, whose size train.json records; a missing set is
// named.
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
	// 640 px frames alone would train at 256/640 = 0.4; their object, about
	// 17 px across, raises the scale to the cap ½.
	object, err := objectExtent([]string{wide})
	if err != nil || object <= 0 || object >= 48/0.5 {
		t.Fatalf("objectExtent of the 640×96 set = %v, %v; want a size under 96 px", object, err)
	}
	if s := mustRun(t, cfg, []string{wide}, filepath.Join(dir, "w")); s.Options.Scale != 0.5 || s.Width != 320 || s.Object != object {
		t.Fatalf("640×96 frames: scale %v, width %d, object %v px; want 0.5, 320 and %v", s.Options.Scale, s.Width, s.Object, object)
	}
	if _, _, err := largestFrame([]string{filepath.Join(dir, "none")}); err == nil || !strings.Contains(err.Error(), "none") {
		t.Fatalf("a missing set: %v, want an error naming it", err)
	}
}
