package main

import (
	"bytes"
	"testing"

	"github.com/densify/densify/train"
)

// The training summary names, for prune, the labels it dropped per class:
// 5 of 1000 background pixels, 30 of 40 object pixels.
func TestPrintTrainedPrune(t *testing.T) {
	var out bytes.Buffer
	o := &trainOptions{IO: &IOStreams{Out: &out}}
	printTrained(o, &train.Summary{Out: "m", Checkpoint: "m/model.ckpt", Epochs: 2, Steps: 10,
		Pruned: []train.ClassPruned{{Class: 0, Labelled: 1000, Dropped: 5}, {Class: 1, Labelled: 40, Dropped: 30}}})
	want := "m: 2 epochs, 10 steps, final loss 0.0000, 0.0 s, 0 parameters → m/model.ckpt\n" +
		"m: prune dropped the labels of 5 of 1000 background pixels (0.5 %); 30 of 40 object pixels (75.0 %)\n"
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
	}
	// other variants print no prune line
	out.Reset()
	printTrained(o, &train.Summary{Out: "m", Checkpoint: "m/model.ckpt"})
	if bytes.Contains(out.Bytes(), []byte("prune")) {
		t.Errorf("a prune line without pruning:\n%s", out.String())
	}
}
