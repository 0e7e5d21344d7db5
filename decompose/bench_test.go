package decompose

import (
	"image"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/densify/densify/bsds"
	"github.com/densify/densify/internal/testutil"
)

// benchImage returns a real 481×321 BSDS val image, or a synthetic one of the
// same size when ../shared is absent.
func benchImage(b *testing.B) (image.Image, string) {
	p := filepath.Join(testutil.BSDSDev(), "images", "val", "101085.jpg")
	if img, err := bsds.ReadImage(p); err == nil {
		return img, "bsds-101085"
	}
	img := image.NewRGBA(image.Rect(0, 0, 481, 321))
	for y := 0; y < 321; y++ {
		for x := 0; x < 481; x++ {
			v := uint8((x/60+y/40)%2*150 + (x*13+y*7)%40)
			img.Pix[4*(y*481+x)], img.Pix[4*(y*481+x)+1], img.Pix[4*(y*481+x)+2], img.Pix[4*(y*481+x)+3] = v, 255-v, v/2, 255
		}
	}
	return img, "synthetic"
}

// peakHeap samples the live heap every millisecond while f runs and returns
// the largest value seen (MiB), after a GC before the start.
func peakHeap(f func()) float64 {
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	f()
	close(done)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > peak.Load() {
		peak.Store(ms.HeapInuse)
	}
	return float64(peak.Load()) / (1 << 20)
}

// BenchmarkDecompose is one 481×321 image with the defaults: boundary map,
// graph (8-neighbour E, 8 lifted offsets per pixel), GAEC, node-level KLj,
// absorption of segments below 200 px and the per-pixel uncertainty (the
// γ of Kardoost & Keuper, UAI 2021, Eq. 12, the layered Γ and the
// single-node γ₁). Metrics: s/image, per-stage seconds, edges and peak-MiB
// (live heap sampled every ms).
func BenchmarkDecompose(b *testing.B) {
	img, name := benchImage(b)
	b.Logf("image: %s, GOMAXPROCS %d", name, runtime.GOMAXPROCS(0))
	opt := DefaultOptions()
	debug.FreeOSMemory()
	var r *Result
	var peak float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		p := peakHeap(func() { r, err = Decompose(img, opt) })
		if err != nil {
			b.Fatal(err)
		}
		peak = max(peak, p)
	}
	b.StopTimer()
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/image")
	b.ReportMetric(peak, "peak-MiB")
	b.ReportMetric(float64(len(r.Graph.Edges)), "edges")
	b.ReportMetric(r.Timing.GAEC, "gaec-s")
	b.ReportMetric(r.Timing.KLj, "klj-s")
	b.ReportMetric(r.Timing.Absorb, "absorb-s")
	b.ReportMetric(r.Timing.Boundary+r.Timing.Graph, "map+graph-s")
	b.ReportMetric(r.Timing.Uncertainty, "uncertainty-s")
}
