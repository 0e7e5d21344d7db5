package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"sync"

	"github.com/densify/densify/internal/npy"
	"github.com/densify/densify/trainset"
)

// fakeDensifier stands in for the U-Net: its "model" remembers the prepared
// set, and prediction labels every pixel with the class of the nearest
// labelled pixel of that frame's sparse label map (a breadth-first
// flood from the labelled pixels, 4-neighbourhood), or background for frames
// without labels. It records the requests it got.
type fakeDensifier struct {
	mu        sync.Mutex
	trains    []TrainRequest
	predicts  []PredictRequest
	failTrain error
}

func (f *fakeDensifier) Name() string { return "fake" }

type fakeModel struct {
	Sets    []string `json:"sets"`
	Variant string   `json:"variant"`
	// Manifests holds the size of every set's manifest.json, so that, as
	// a trained model does, the model changes with the set's contents.
	Manifests []int `json:"manifests"`
}

func (f *fakeDensifier) Train(ctx context.Context, req TrainRequest) (*TrainResult, error) {
	f.mu.Lock()
	f.trains = append(f.trains, req)
	f.mu.Unlock()
	if f.failTrain != nil {
		// a killed training leaves a partial model folder behind
		if err := os.MkdirAll(req.Out, 0o755); err != nil {
			return nil, err
		}
		return nil, f.failTrain
	}
	if err := os.MkdirAll(req.Out, 0o755); err != nil {
		return nil, err
	}
	ck := filepath.Join(req.Out, "model.json")
	m := fakeModel{Sets: req.Sets, Variant: req.Variant}
	for _, set := range req.Sets {
		b, err := os.ReadFile(filepath.Join(set, "manifest.json"))
		if err != nil {
			return nil, err
		}
		m.Manifests = append(m.Manifests, len(b))
	}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(ck, b, 0o644); err != nil {
		return nil, err
	}
	return &TrainResult{Checkpoint: ck, Epochs: 1, FinalLoss: 0.5}, nil
}

func (f *fakeDensifier) Predict(ctx context.Context, req PredictRequest) error {
	f.mu.Lock()
	f.predicts = append(f.predicts, req)
	f.mu.Unlock()
	b, err := os.ReadFile(req.Checkpoint)
	if err != nil {
		return err
	}
	var m fakeModel
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if len(m.Sets) != 1 {
		return errors.New("fake: one set expected")
	}
	mb, err := os.ReadFile(filepath.Join(m.Sets[0], "manifest.json"))
	if err != nil {
		return err
	}
	var man trainset.Manifest
	if err := json.Unmarshal(mb, &man); err != nil {
		return err
	}
	byFrame := map[int]string{}
	for _, mf := range man.Frames {
		byFrame[mf.Frame] = filepath.Join(m.Sets[0], mf.Labels)
	}
	W, H := man.Width, man.Height
	for fi := range req.Frames {
		lab := make([]int16, W*H)
		if p, ok := byFrame[fi]; ok {
			a, err := npy.Read(p)
			if err != nil {
				return err
			}
			lab = floodFill(a.Int16, W, H)
		}
		img := image.NewGray(image.Rect(0, 0, W, H))
		for i, l := range lab {
			if l > 0 {
				img.Pix[i] = 255
			}
		}
		fh, err := os.Create(filepath.Join(req.Out, fmt.Sprintf("%05d.png", fi)))
		if err != nil {
			return err
		}
		if err := png.Encode(fh, img); err != nil {
			fh.Close()
			return err
		}
		if err := fh.Close(); err != nil {
			return err
		}
	}
	return nil
}

// floodFill labels unlabelled pixels (-1) with the label of the nearest
// labelled pixel in breadth-first order; all background without labels.
func floodFill(lab []int16, W, H int) []int16 {
	out := make([]int16, len(lab))
	copy(out, lab)
	var q []int
	for i, l := range out {
		if l >= 0 {
			q = append(q, i)
		}
	}
	if len(q) == 0 {
		return make([]int16, len(lab))
	}
	for len(q) > 0 {
		i := q[0]
		q = q[1:]
		x, y := i%W, i/W
		for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			nx, ny := x+d[0], y+d[1]
			if nx < 0 || ny < 0 || nx >= W || ny >= H {
				continue
			}
			j := ny*W + nx
			if out[j] < 0 {
				out[j] = out[i]
				q = append(q, j)
			}
		}
	}
	return out
}
