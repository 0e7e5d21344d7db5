package train

import (
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
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
