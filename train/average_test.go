package train

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/densify/densify/unet"
	"github.com/sugarme/gotch"
)

// --average 3 makes model.ckpt the element-wise mean of the last three
// epochs' checkpoints (checked against the files, tensor by tensor); the
// epoch checkpoints stay as trained; resuming the finished training with
// --average 0 restores the last epoch's weights.
func TestAverageOfTheLastEpochs(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 5, testOptions())
	out := filepath.Join(t.TempDir(), "m")
	cfg := tinyConfig(4)
	cfg.Average = 3
	sum := mustRun(t, cfg, []string{set}, out)
	if len(sum.Averaged) != 3 || sum.Averaged[0] != 2 || sum.Averaged[2] != 4 {
		t.Fatalf("averaged epochs %v, want [2 3 4]", sum.Averaged)
	}
	h, avg, err := unet.ReadCheckpoint(filepath.Join(out, "model.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	var ep [3][][]float32
	for k := range ep {
		if _, ep[k], err = unet.ReadCheckpoint(epochCkpt(filepath.Join(out, "epochs"), k+2)); err != nil {
			t.Fatal(err)
		}
	}
	differs := false
	for i := range avg {
		for j, x := range avg[i] {
			want := (float64(ep[0][i][j]) + float64(ep[1][i][j]) + float64(ep[2][i][j])) / 3
			if math.Abs(float64(x)-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Fatalf("%s[%d] = %v, want the mean %v", h.Tensors[i].Name, j, x, want)
			}
			differs = differs || x != ep[2][i][j]
		}
	}
	if !differs {
		t.Fatal("the average equals the last epoch: the test cannot tell")
	}
	var info CheckpointInfo
	if err := json.Unmarshal(h.Extra, &info); err != nil || info.Epoch != 4 || len(info.AveragedEpochs) != 3 || len(info.PriorShift) == 0 {
		t.Errorf("model.ckpt record %+v (%v), want epoch 4, three averaged epochs and the prior shift", info, err)
	}
	// a model that predicts loads it
	if _, _, err := unet.Open(filepath.Join(out, "model.ckpt"), gotch.CPU); err != nil {
		t.Fatal(err)
	}
	last := ckptCRCs(t, epochCkpt(filepath.Join(out, "epochs"), 4))
	res := cfg
	res.Average, res.Resume = 0, true
	if s := mustRun(t, res, []string{set}, out); s.Averaged != nil {
		t.Errorf("resumed with --average 0: averaged %v", s.Averaged)
	}
	if got := ckptCRCs(t, filepath.Join(out, "model.ckpt")); !reflect.DeepEqual(got, last) {
		t.Fatal("after --average 0, model.ckpt does not hold the last epoch's weights")
	}
}

// --keep-epochs 1 with --average 2 keeps the checkpoints of the last two
// epochs only (what the average reads) and ends with the weights of a run
// that keeps every epoch; a run interrupted in epoch 4 resumes from the
// kept epoch 3 to the same weights; resuming the finished training with a
// larger average is refused with a message naming the missing epoch.
func TestKeepEpochs(t *testing.T) {
	set, _ := synthSet(t, t.TempDir(), 48, 32, 5, testOptions())
	dir := t.TempDir()
	cfg := tinyConfig(5)
	cfg.Average = 2
	mustRun(t, cfg, []string{set}, filepath.Join(dir, "all"))
	keep := cfg
	keep.KeepEpochs = 1
	out := filepath.Join(dir, "kept")
	mustRun(t, keep, []string{set}, out)
	names := func(d string) []string {
		es, err := os.ReadDir(filepath.Join(d, "epochs"))
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, e := range es {
			n = append(n, e.Name())
		}
		return n
	}
	if got, want := names(out), []string{"epoch-004.ckpt", "epoch-005.ckpt", "last.adam"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("epochs/ holds %v, want %v", got, want)
	}
	if len(names(filepath.Join(dir, "all"))) != 6 {
		t.Fatalf("--keep-epochs 0 holds %v, want five checkpoints and last.adam", names(filepath.Join(dir, "all")))
	}
	want := ckptCRCs(t, filepath.Join(dir, "all", "model.ckpt"))
	if got := ckptCRCs(t, filepath.Join(out, "model.ckpt")); !reflect.DeepEqual(got, want) {
		t.Fatal("keeping fewer epochs changed model.ckpt")
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := keep
	stop.OnStep = func(epoch, step int, _ float64) {
		if epoch == 4 {
			cancel()
		}
	}
	killed := filepath.Join(dir, "killed")
	if _, err := Run(ctx, stop, []string{set}, killed, nil); err == nil {
		t.Fatal("the interrupted run did not stop")
	}
	if got := names(killed); !reflect.DeepEqual(got, []string{"epoch-002.ckpt", "epoch-003.ckpt", "last.adam"}) {
		t.Fatalf("after epoch 3, epochs/ holds %v", got)
	}
	res := keep
	res.Resume = true
	if r := mustRun(t, res, []string{set}, killed); r.ResumedAt != 3 {
		t.Errorf("resumed after epoch %d, want 3", r.ResumedAt)
	}
	if got := ckptCRCs(t, filepath.Join(killed, "model.ckpt")); !reflect.DeepEqual(got, want) {
		t.Fatal("the resumed run ends with other weights")
	}

	more := res
	more.Average = 3
	if _, err := Run(context.Background(), more, []string{set}, out, nil); err == nil || !strings.Contains(err.Error(), "epoch-003.ckpt") {
		t.Errorf("a larger average over dropped epochs: %v", err)
	}
}
