package train

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/densify/densify/unet"
	"github.com/sugarme/gotch/ts"
)

// rssMiB reads the resident set size (VmRSS) or its peak (VmHWM) of this process.
func rssMiB(field string) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// Every tensor of a step lives in the step's Scope and is freed when it ends,
// so neither the number of live libtorch tensors nor RSS may grow with the
// number of steps. 200 steps of a tiny model; the live-tensor count (gotch's
// registry, after a GC) must be identical at steps 50 and 200. RSS is only
// checked loosely: gotch attaches a 100 KB Go buffer to every tensor handle
// (to push its GC), so the Go heap swings by tens of MiB between collections.
func TestTrainingMemoryDoesNotGrow(t *testing.T) {
	if testing.Short() {
		t.Skip("300 steps")
	}
	if rssMiB("VmRSS") == 0 {
		t.Skip("no /proc/self/status")
	}
	set, _ := synthSet(t, t.TempDir(), 48, 32, 10, testOptions())
	cfg := tinyConfig(20)
	cfg.Batch = 1
	var at50, at300 float64
	var live50, live300 int
	measure := func() (float64, int) {
		runtime.GC()
		debug.FreeOSMemory()
		return rssMiB("VmRSS"), len(ts.ExistingTensors)
	}
	cfg.OnStep = func(epoch, step int, loss float64) {
		switch step {
		case 50:
			at50, live50 = measure()
		case 200:
			at300, live300 = measure()
		}
	}
	s := mustRun(t, cfg, []string{set}, filepath.Join(t.TempDir(), "out"))
	if s.Steps != 200 {
		t.Fatalf("%d steps, want 200", s.Steps)
	}
	t.Logf("after 50 steps: RSS %.1f MiB, %d live tensors; after 200: %.1f MiB, %d", at50, live50, at300, live300)
	if live300 != live50 {
		t.Errorf("live tensors %d after 50 steps, %d after 200: a step leaks tensors", live50, live300)
	}
	if at300-at50 > 16 {
		t.Errorf("RSS grew by %.1f MiB over 150 steps", at300-at50)
	}
}

// Where a tensor's memory comes from must not change a result: the same
// training with libtorch's own allocator and with every block (≥ 1 KiB) taken
// from unet's block cache ends with the same weights (tensor CRCs) and
// losses, and the cached run did reuse blocks.
func TestBlockCacheKeepsResults(t *testing.T) {
	t.Cleanup(func() {
		unet.TrimBlockCache()
		if err := unet.SetBlockCache(unet.DefaultBlockCacheMin, unet.DefaultBlockCacheMax); err != nil {
			t.Error(err)
		}
	})
	set, _ := synthSet(t, t.TempDir(), 48, 32, 5, testOptions())
	dir := t.TempDir()
	cfg := tinyConfig(2)
	unet.TrimBlockCache()
	if err := unet.SetBlockCache(0, 0); err != nil {
		t.Fatal(err)
	}
	off := mustRun(t, cfg, []string{set}, filepath.Join(dir, "off"))
	if err := unet.SetBlockCache(1<<10, 1<<30); err != nil {
		t.Fatal(err)
	}
	h0, _, _, _ := unet.BlockCacheStats()
	on := mustRun(t, cfg, []string{set}, filepath.Join(dir, "on"))
	h1, _, _, _ := unet.BlockCacheStats()
	if h1-h0 < uint64(on.Steps) {
		t.Fatalf("%d blocks reused over %d steps: the cache was not used", h1-h0, on.Steps)
	}
	if a, b := ckptCRCs(t, filepath.Join(dir, "off", "model.ckpt")), ckptCRCs(t, filepath.Join(dir, "on", "model.ckpt")); !reflect.DeepEqual(a, b) {
		t.Errorf("weights differ with the block cache: CRCs %v vs %v", a, b)
	}
	if !reflect.DeepEqual(off.EpochLoss, on.EpochLoss) {
		t.Errorf("losses differ with the block cache: %v vs %v", off.EpochLoss, on.EpochLoss)
	}
}
