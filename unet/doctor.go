package unet

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/nn"
)

// DoctorOptions selects what Doctor checks.
type DoctorOptions struct {
	Device  string // "cpu", "cuda" or "auto"
	Threads int    // intra-op threads to set; ≤ 0 = all cores
}

// Doctor prints the native stack densify runs on — Go version, the libtorch library
// actually loaded (and its version), CUDA availability, libtorch's thread count — and
// runs one forward/backward/Adam step of a tiny U-Net on the chosen device, checking
// that the loss is finite and decreases over a few steps. It returns an error with a
// hint when something is off. (OpenCV is checked by the command, which imports gocv.)
func Doctor(w io.Writer, o DoctorOptions) error {
	fmt.Fprintf(w, "go:        %s %s/%s, %d CPU(s)\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	lib, ver := libtorchVersion()
	fmt.Fprintf(w, "libtorch:  %s (%s)\n", ver, lib)
	cuda := gotch.CUDA.IsAvailable()
	if cuda {
		fmt.Fprintf(w, "cuda:      available, %d device(s), cuDNN %v\n", gotch.CUDA.DeviceCount(), gotch.CUDA.CudnnIsAvailable())
	} else {
		fmt.Fprintf(w, "cuda:      not available (CPU-only libtorch or no GPU; LIBTORCH=/path/to/cuda-libtorch make setup for GPUs)\n")
	}
	defer LockThread()() // the thread count below is the calling OS thread's
	before := Threads()
	if err := SetThreads(o.Threads); err != nil {
		return fmt.Errorf("%v (hint: check OMP_NUM_THREADS / MKL_NUM_THREADS)", err)
	}
	fmt.Fprintf(w, "threads:   %d intra-op (libtorch started with %d)\n", Threads(), before)
	fmt.Fprintf(w, "blocks:    %s\n", blockCacheSummary())
	dev, err := ParseDevice(o.Device)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "device:    %s\n", deviceName(dev))
	t0 := time.Now()
	first, last, err := smokeTrain(dev, 5)
	if err != nil {
		return fmt.Errorf("tiny U-Net step on %s failed: %v (hint: run `make setup` again; SETUP_FORCE=1 rebuilds gotch)", deviceName(dev), err)
	}
	fmt.Fprintf(w, "unet:      5 forward/backward/Adam steps of a tiny U-Net on %s in %v, BCE %.4f → %.4f\n",
		deviceName(dev), time.Since(t0).Round(time.Millisecond), first, last)
	if math.IsNaN(first) || math.IsInf(first, 0) || math.IsNaN(last) || math.IsInf(last, 0) {
		return fmt.Errorf("non-finite loss (hint: broken libtorch build; rerun make setup with SETUP_FORCE=1)")
	}
	if !(last < first) {
		return fmt.Errorf("loss did not decrease (%.4f → %.4f): gradients are not flowing (hint: rerun make setup with SETUP_FORCE=1)", first, last)
	}
	return nil
}

func deviceName(d gotch.Device) string {
	if d.IsCuda() {
		return fmt.Sprintf("cuda:%d", d.Value)
	}
	return "cpu"
}

// smokeTrain fits a tiny U-Net (width 4, depth 2) to one 32×32 toy image for steps
// Adam steps and returns the first and last BCE.
func smokeTrain(dev gotch.Device, steps int) (first, last float64, err error) {
	ManualSeed(1)
	m, err := New(Config{Name: "doctor", BaseWidth: 4, Depth: 2, Edges: true, Classes: 1}, dev)
	if err != nil {
		return 0, 0, err
	}
	opt, err := nn.DefaultAdamConfig().Build(m.VS, 1e-2)
	if err != nil {
		return 0, 0, err
	}
	const size = 32
	img := make([]float32, 3*size*size)
	lab := make([]float32, size*size)
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			if x >= 8 && x < 20 && y >= 10 && y < 24 {
				lab[y*size+x] = 1
				for c := 0; c < 3; c++ {
					img[(c*size+y)*size+x] = 0.9
				}
			} else {
				for c := 0; c < 3; c++ {
					img[(c*size+y)*size+x] = float32((x*7+y*13+c*5)%17) / 40
				}
			}
		}
	}
	for i := 0; i < steps; i++ {
		err := Run(func(s *Scope) error {
			x, err := Tensor(s, img, []int64{1, 3, size, size}, dev)
			if err != nil {
				return err
			}
			t, err := Tensor(s, lab, []int64{1, 1, size, size}, dev)
			if err != nil {
				return err
			}
			logits, err := m.Forward(s, x, true)
			if err != nil {
				return err
			}
			loss := s.T(logits.BinaryCrossEntropyWithLogits(t, noBias, noBias, 1, false))
			if err := opt.BackwardStep(loss); err != nil {
				return err
			}
			v, err := Float32s(loss)
			if err != nil {
				return err
			}
			if i == 0 {
				first = float64(v[0])
			}
			last = float64(v[0])
			return nil
		})
		if err != nil {
			return 0, 0, err
		}
	}
	return first, last, nil
}

// libtorchVersion finds the libtorch_cpu shared object mapped into this process and
// its version: build-version of an official libtorch, else the Debian package
// version of libtorch-dev, else the soname suffix.
func libtorchVersion() (path, version string) {
	path = "libtorch_cpu not found in /proc/self/maps"
	if f, err := os.Open("/proc/self/maps"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) >= 6 && strings.Contains(filepath.Base(fs[5]), "libtorch_cpu.so") {
				path = fs[5]
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(path)), "build-version")); err == nil {
		return path, "libtorch " + strings.TrimSpace(string(b))
	}
	if out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "libtorch-dev").Output(); err == nil && len(out) > 0 {
		return path, "libtorch " + string(out) + " (Debian libtorch-dev)"
	}
	if i := strings.Index(path, ".so."); i >= 0 {
		return path, "libtorch " + path[i+4:]
	}
	return path, "libtorch (version unknown)"
}
