package video

import (
	"image"
	"syscall"
	"testing"
	"time"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/refine"
	"github.com/densify/densify/trajectory"
)

// BenchmarkTrack measures end-to-end tracking speed (flow forward and
// backward + tracker, frames already decoded) on the first 10 frames of
// DAVIS blackswan at 854×480, for each flow method.
func BenchmarkTrack(b *testing.B) {
	frames, err := ReadFrames(davisFrames(b, "blackswan", 10))
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range Methods {
		b.Run(string(m), func(b *testing.B) {
			var ts *trajectory.TrackSet
			cpu0 := cpuSeconds()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if ts, _, err = Track(frames, trajectory.DefaultTrackerOptions(), m, nil); err != nil {
					b.Fatal(err)
				}
			}
			el := time.Since(start).Seconds()
			b.ReportMetric(float64(b.N*(len(frames)-1))/el, "frames/s")
			b.ReportMetric(float64(len(ts.Tracks)), "tracks")
			// CPU time is robust to other processes sharing the machine.
			b.ReportMetric((cpuSeconds()-cpu0)*1000/float64(b.N*(len(frames)-1)), "cpu-ms/frame")
		})
	}
}

// BenchmarkFlow measures one dense flow computation between two 854×480
// DAVIS frames (ms/frame; tracking needs two per frame).
func BenchmarkFlow(b *testing.B) {
	frames, err := ReadFrames(davisFrames(b, "blackswan", 2))
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range Methods {
		b.Run(string(m), func(b *testing.B) {
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, err := Flow(frames[0], frames[1], m); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(time.Since(start).Seconds()*1000/float64(b.N), "ms/frame")
		})
	}
}

// cpuSeconds is the user + system CPU time of this process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkRefine measures the default mask refinement (refine.Mask with
// GrabCut) of one 854×480 frame: DAVIS car-shadow with its car grown by a
// 30 px halo.
func BenchmarkRefine(b *testing.B) {
	img, _, halo := davisHalo(b, "car-shadow", 30)
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, _, err := refine.Mask(img, halo, refine.DefaultOptions(), GrabCut{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/frame")
}

// BenchmarkTemporal measures the default temporal fusion of probability maps
// (refine.Temporal, K = refine.DefaultTemporalRadius, DIS flow) per 854×480
// frame over 12 DAVIS blackswan frames: 2K flows per frame (each once) and
// the weighted sampling of the neighbours' maps.
func BenchmarkTemporal(b *testing.B) {
	paths := davisFrames(b, "blackswan", 12)
	imgs := make([]image.Image, len(paths))
	for i, p := range paths {
		im, err := dataset.ReadImage(p)
		if err != nil {
			b.Fatal(err)
		}
		imgs[i] = im
	}
	w, h := imgs[0].Bounds().Dx(), imgs[0].Bounds().Dy()
	prob := make([]float32, w*h)
	for i := range prob {
		prob[i] = float32(i%w) / float32(w)
	}
	start := time.Now()
	for i := 0; i < b.N; i++ {
		t, err := refine.NewTemporal(refine.DefaultTemporalOptions(), DenseFlow{Method: DIS})
		if err != nil {
			b.Fatal(err)
		}
		for _, im := range imgs {
			if _, err := t.Push(im, prob); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := t.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N*len(imgs)), "s/frame")
}
