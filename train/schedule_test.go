package train

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"testing"
)

func TestCosineScheduleHandComputed(t *testing.T) {
	for _, c := range []struct {
		t    int
		want float64
	}{{0, 1e-3}, {1, 1e-3 * (1 + math.Sqrt2/2) / 2}, {2, 5e-4}, {3, 1e-3 * (1 - math.Sqrt2/2) / 2}} {
		if got := ScheduleCosine.LRAt(1e-3, c.t, 4); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("cosine, step %d of 4: %v, want %v", c.t, got, c.want)
		}
		if got := ScheduleConstant.LRAt(1e-3, c.t, 4); got != 1e-3 {
			t.Errorf("constant, step %d: %v", c.t, got)
		}
	}
	if s, err := ParseSchedule(""); err != nil || s != ScheduleConstant {
		t.Errorf("empty schedule: %v %v", s, err)
	}
	if _, err := ParseSchedule("step"); err == nil {
		t.Error("unknown schedule accepted")
	}
}

// A cosine training interrupted in epoch 2 and resumed ends with the weights
// of an uninterrupted one (the schedule depends on the step alone), and with
// other weights than a constant learning rate.
func TestCosineResumesExactly(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 5, testOptions())
	dir := t.TempDir()
	cfg := tinyConfig(3)
	cfg.Schedule = ScheduleCosine
	a := mustRun(t, cfg, []string{set}, filepath.Join(dir, "a"))
	if a.Options.Schedule != ScheduleCosine {
		t.Errorf("train.json records schedule %q", a.Options.Schedule)
	}
	constant := tinyConfig(3)
	c := mustRun(t, constant, []string{set}, filepath.Join(dir, "c"))
	ca := ckptCRCs(t, filepath.Join(dir, "a", "model.ckpt"))
	if reflect.DeepEqual(ca, ckptCRCs(t, filepath.Join(dir, "c", "model.ckpt"))) || c.Options.Schedule != "" {
		t.Fatalf("cosine and constant give the same weights, or constant records %q", c.Options.Schedule)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := cfg
	stop.OnStep = func(epoch, step int, _ float64) {
		if epoch == 2 && step == 4 {
			cancel()
		}
	}
	out := filepath.Join(dir, "r")
	if _, err := Run(ctx, stop, []string{set}, out, nil); err == nil || !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	res := cfg
	res.Resume = true
	r := mustRun(t, res, []string{set}, out)
	if r.ResumedAt != 1 || !reflect.DeepEqual(ca, ckptCRCs(t, filepath.Join(out, "model.ckpt"))) {
		t.Errorf("resumed after epoch %d; same weights as uninterrupted: %v", r.ResumedAt, reflect.DeepEqual(ca, ckptCRCs(t, filepath.Join(out, "model.ckpt"))))
	}
	// resuming a cosine training with a constant rate is refused
	other := constant
	other.Resume = true
	if _, err := Run(context.Background(), other, []string{set}, out, nil); err == nil {
		t.Error("resuming a cosine training at a constant rate accepted")
	}
}
