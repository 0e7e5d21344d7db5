package train

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/densify/densify/trainset"
)

// BenchmarkTrainEpochSynth320 is one epoch of unet-cpu (batch 2, the CPU
// default scale 0.5, i.e. 160×120 inputs) on a 30-frame 320×240 synthetic
// sequence (synth defaults, ground-truth tracks every 3 px): the training
// budget of make demo. Reports seconds per epoch.
func BenchmarkTrainEpochSynth320(b *testing.B) {
	set, _ := synthSet(b, b.TempDir(), 320, 240, 30, trainset.DefaultOptions())
	cfg := DefaultConfig()
	cfg.Epochs = 1
	b.ResetTimer()
	var sec float64
	for i := 0; i < b.N; i++ {
		s := mustRun(b, cfg, []string{set}, filepath.Join(b.TempDir(), fmt.Sprint(i)))
		sec += s.Seconds
	}
	b.ReportMetric(sec/float64(b.N), "s/epoch")
}

// BenchmarkPeakMemoryFactor trains unet-cpu for 2 epochs (batch 1) on two
// 854×480 frames (DAVIS size) at scale 0.5 with the hard-example factor 1 and
// 1000 and reports the peak RSS (VmHWM) of the training. Each measurement runs
// in a fresh process (this test binary re-executed into TestPeakMemoryHelper),
// as glibc and libtorch keep memory of earlier runs, with MALLOC_ARENA_MAX=1:
// when Go moved the training goroutine between OS threads, glibc's per-thread
// malloc arenas made the peak of one and the same run vary from 810 to 1080 MiB
// (one arena: 556–631 MiB). train.Run now keeps the whole training on one OS
// thread (unet.LockThread); the single arena stays so that the libtorch
// worker threads' arenas do not blur the comparison. The median over b.N
// runs is reported. The factor is a loss weight, so the two must match within
// that noise.
func BenchmarkPeakMemoryFactor(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Skip(err)
	}
	for _, factor := range []float64{1, 1000} {
		b.Run(fmt.Sprintf("factor=%g", factor), func(b *testing.B) {
			opt := trainset.DefaultOptions()
			opt.Factor = factor
			set, _ := synthSet(b, b.TempDir(), 854, 480, 2, opt)
			var peaks []float64
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(exe, "-test.run=^TestPeakMemoryHelper$", "-test.v")
				cmd.Env = append(os.Environ(), "MALLOC_ARENA_MAX=1", "DENSIFY_PEAK_SET="+set, "DENSIFY_PEAK_OUT="+filepath.Join(b.TempDir(), "out"))
				outb, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("%v\n%s", err, outb)
				}
				var p float64
				if i := strings.Index(string(outb), "peak-MiB "); i < 0 {
					b.Fatalf("no peak in\n%s", outb)
				} else if _, err := fmt.Sscan(string(outb[i+len("peak-MiB "):]), &p); err != nil {
					b.Fatal(err)
				}
				peaks = append(peaks, p)
			}
			sort.Float64s(peaks)
			b.ReportMetric(peaks[len(peaks)/2], "peak-MiB")
		})
	}
}

// TestPeakMemoryHelper is BenchmarkPeakMemoryFactor's child process.
func TestPeakMemoryHelper(t *testing.T) {
	set := os.Getenv("DENSIFY_PEAK_SET")
	if set == "" {
		t.Skip("only run by BenchmarkPeakMemoryFactor")
	}
	cfg := DefaultConfig()
	cfg.Epochs, cfg.Batch = 2, 1
	mustRun(t, cfg, []string{set}, os.Getenv("DENSIFY_PEAK_OUT"))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("peak-MiB %.1f (Go runtime holds %.1f MiB from the OS)", rssMiB("VmHWM"), float64(ms.Sys)/(1<<20))
}
