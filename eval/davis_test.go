package eval

import (
	"testing"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/testutil"
)

// DAVIS ground truth scored against its own annotation PNGs as dense masks:
// F = 1, one extracted object of one visible object, full density.
func TestDAVISSelf(t *testing.T) {
	root := testutil.DAVISDev(t)
	_, ann := dataset.DAVISPaths(root, "car-shadow")
	gt, err := dataset.LoadGroundTruth(ann)
	if err != nil {
		t.Fatal(err)
	}
	if len(gt.Frames) != 40 {
		t.Fatalf("car-shadow has %d labelled frames, want 40", len(gt.Frames))
	}
	gt.Frames = gt.Frames[:12] // keep the test fast: ReadMaskDir decodes labelled frames only
	masks, err := ReadMaskDir(ann, gt)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Masks(gt, masks, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.F != 1 || r.Precision != 1 || r.Recall != 1 || r.Objects != 1 || r.Visible != 1 ||
		r.Density != 100 || r.AvgRegionDensity != 100 || r.IoU != 1 || r.JMean != 1 || r.LabelledFrames != len(gt.Frames) {
		t.Errorf("self evaluation: %+v", r)
	}
	// Shift the masks right by 20 pixels: still high but imperfect.
	w := gt.Frames[0].Width
	for _, m := range masks {
		for y := 0; y < m.Height; y++ {
			row := m.Labels[y*w : (y+1)*w]
			copy(row[20:], row[:w-20])
		}
	}
	r, err = Masks(gt, masks, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(r.F > 0.5 && r.F < 1 && r.IoU < 1 && r.IoU > 0.3) {
		t.Errorf("shifted masks: F %.4f IoU %.4f", r.F, r.IoU)
	}
	t.Logf("car-shadow shifted by 20 px: P %.4f R %.4f F %.4f IoU %.4f J %.4f", r.Precision, r.Recall, r.F, r.IoU, r.JMean)
}

// BenchmarkDenseEvalDAVIS scores the annotation masks of one 854×480 DAVIS
// sequence (blackswan, 50 frames) as dense masks: "read" includes decoding
// the PNG masks, "score" is the evaluation alone.
func BenchmarkDenseEvalDAVIS(b *testing.B) {
	root := testutil.DAVISDev(b)
	_, ann := dataset.DAVISPaths(root, "blackswan")
	gt, err := dataset.LoadGroundTruth(ann)
	if err != nil {
		b.Fatal(err)
	}
	masks, err := ReadMaskDir(ann, gt)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("score", func(b *testing.B) {
		for b.Loop() {
			if _, err := Masks(gt, masks, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/seq")
		b.ReportMetric(float64(len(gt.Frames)*b.N)/b.Elapsed().Seconds(), "frames/s")
	})
	b.Run("read+score", func(b *testing.B) {
		for b.Loop() {
			m, err := ReadMaskDir(ann, gt)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Masks(gt, m, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/seq")
		b.ReportMetric(float64(len(gt.Frames)*b.N)/b.Elapsed().Seconds(), "frames/s")
	})
}
