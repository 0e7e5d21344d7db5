package train

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/densify/densify/unet"
	"github.com/sugarme/gotch"
)

// benchSamples makes n random training frames of w×h: uniform RGB, ~5 %
// labelled pixels (labels 0/1, weight 1), like the PyTorch reference, with
// their edge maps computed once (setEdges), as train.Run does and as the
// reference keeps its inputs.
func benchSamples(tb testing.TB, n, w, h int, seed uint64) []*sample {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []*sample
	for k := 0; k < n; k++ {
		s := &sample{frame: k, W: w, H: h, RGB: make([]byte, 3*w*h), Labels: make([]int16, w*h),
			Weights: make([]float32, w*h), Hard: make([]uint8, w*h)}
		for i := range s.RGB {
			s.RGB[i] = byte(rng.IntN(256))
		}
		for i := range s.Labels {
			s.Labels[i] = -1
			if rng.Float64() > 0.95 {
				s.Labels[i] = int16(rng.IntN(2))
				s.Weights[i] = 1
				s.SumW++
			}
		}
		out = append(out, s)
	}
	if err := setEdges(out); err != nil {
		tb.Fatal(err)
	}
	return out
}

func benchTrainer(tb testing.TB, threads int) (*unet.Model, *adam) {
	if err := unet.SetThreads(threads); err != nil {
		tb.Fatal(err)
	}
	mc, err := unet.Preset("unet-cpu")
	if err != nil {
		tb.Fatal(err)
	}
	unet.ManualSeed(1)
	m, err := unet.New(mc, gotch.CPU)
	if err != nil {
		tb.Fatal(err)
	}
	opt, err := newAdam(m, 1e-3)
	if err != nil {
		tb.Fatal(err)
	}
	return m, opt
}

// BenchmarkTrainStepGo times densify's own training step (trainStep:
// forward, weighted BCE, backward, Adam) at the shapes of the side-by-side
// benchmark, 2 threads, without the PyTorch reference (for profiling).
func BenchmarkTrainStepGo(b *testing.B) {
	for _, sh := range speedShapes {
		b.Run(sh.String(), func(b *testing.B) {
			m, opt := benchTrainer(b, 2)
			defer opt.Close()
			ss := benchSamples(b, sh.N, sh.W, sh.H, 1)
			flip := make([]bool, sh.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := trainStep(m, opt, makeBatch(ss, flip), 1, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/step")
		})
	}
}

// BenchmarkTrainStepCRF times trainStep at the DAVIS working shape (two
// 256×144 frames, AutoScale's, 2 threads) without and with the relaxed Potts loss
// (crfLoss; its cost is that of 12 shifted products and their gradients).
func BenchmarkTrainStepCRF(b *testing.B) {
	for _, crf := range []float64{0, 4} {
		b.Run(fmt.Sprintf("crf=%g", crf), func(b *testing.B) {
			m, opt := benchTrainer(b, 2)
			defer opt.Close()
			ss := benchSamples(b, 2, 256, 144, 1)
			flip := make([]bool, 2)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := trainStep(m, opt, makeBatch(ss, flip), 1, crf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/step")
		})
	}
}

type speedShape struct{ N, W, H int }

func (s speedShape) String() string { return fmt.Sprintf("%dx%dx%d", s.N, s.W, s.H) }

var speedShapes = []speedShape{{1, 854, 480}, {2, 427, 240}, {1, 214, 120}}

// speedPairs is the number of fresh densify/PyTorch worker pairs a shape's
// rounds are spread over (BenchmarkVsPyTorch). One process's inference step
// at 854×480 runs up to 1.5-fold slower or faster than the next process's,
// for both implementations alike; with 3 pairs a run's ratio still ranged
// 0.75–1.22 over seven runs whose pooled ratio was 1.008, so the medians are
// taken over 6 processes of each.
const speedPairs = 6

// The side-by-side benchmark against PyTorch. Both implementations run as
// worker processes that build their model and data, then answer "step" with
// the seconds of one step, and "quit" with their peak resident set (VmHWM).
// The parent alternates the two (densify, PyTorch, PyTorch, densify, …) so
// that the load of a shared machine hits both alike, and reports medians.
// The densify worker is this test binary re-executed into TestSpeedWorker;
// the PyTorch one is testdata/torch_reference.py on Debian's python3-torch
// (the libtorch densify links).

// torchPython is the Python of Debian's python3-torch (DENSIFY_TORCH_PYTHON
// overrides it; pyenv's or a venv's python would bring another libtorch).
func torchPython() string {
	if p := os.Getenv("DENSIFY_TORCH_PYTHON"); p != "" {
		return p
	}
	return "/usr/bin/python3"
}

// torchAvailable reports whether python3-torch can be imported.
func torchAvailable() error {
	py := torchPython()
	out, err := exec.Command(py, "-c", "import torch, numpy; print(torch.__version__)").CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return fmt.Errorf("no side-by-side measurement: %s cannot import torch and numpy (%v: %s); install Debian's python3-torch (apt-get install python3-torch) to measure densify against PyTorch on the same libtorch", py, err, msg)
	}
	return nil
}

type speedWorker struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
	log  *bytes.Buffer
}

func startWorker(tb testing.TB, name string, cmd *exec.Cmd) *speedWorker {
	w := &speedWorker{name: name, cmd: cmd, log: &bytes.Buffer{}}
	var err error
	if w.in, err = cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = w.log
	if err := cmd.Start(); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	w.out = bufio.NewScanner(stdout)
	w.expect(tb, "ready")
	return w
}

// expect reads lines up to one starting with prefix and returns the rest.
func (w *speedWorker) expect(tb testing.TB, prefix string) string {
	for w.out.Scan() {
		if rest, ok := strings.CutPrefix(w.out.Text(), prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	_ = w.cmd.Wait()
	tb.Fatalf("%s worker ended before %q: %v\n%s", w.name, prefix, w.out.Err(), w.log)
	return ""
}

// numbers sends cmd and returns the numbers of the answer line starting with prefix.
func (w *speedWorker) numbers(tb testing.TB, cmd, prefix string) []float64 {
	if _, err := fmt.Fprintln(w.in, cmd); err != nil {
		tb.Fatalf("%s: %v\n%s", w.name, err, w.log)
	}
	var out []float64
	for _, f := range strings.Fields(w.expect(tb, prefix)) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			tb.Fatalf("%s: %v", w.name, err)
		}
		out = append(out, v)
	}
	return out
}

// step runs one step and returns its wall-clock and CPU seconds.
func (w *speedWorker) step(tb testing.TB) (wall, cpu float64) {
	v := w.numbers(tb, "step", "seconds ")
	if len(v) != 2 {
		tb.Fatalf("%s: step answered %v, want wall and CPU seconds", w.name, v)
	}
	return v[0], v[1]
}

func (w *speedWorker) quit(tb testing.TB) float64 {
	peak := w.numbers(tb, "quit", "peak-MiB ")[0]
	_ = w.in.Close()
	if err := w.cmd.Wait(); err != nil {
		tb.Fatalf("%s: %v\n%s", w.name, err, w.log)
	}
	return peak
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// speedRounds is the number of measured steps per implementation: b.N when
// asked for with -benchtime Nx (N > 1), else DENSIFY_SPEED_ROUNDS, else def.
func speedRounds(b *testing.B, def int) int {
	if b.N > 1 {
		return b.N
	}
	if v, err := strconv.Atoi(os.Getenv("DENSIFY_SPEED_ROUNDS")); err == nil && v > 0 {
		return v
	}
	return def
}

// speedEnv is the environment of both workers: this process's, with
// OMP_WAIT_POLICY=PASSIVE unless it is set. libtorch's OpenMP threads
// otherwise spin while they wait; on a machine whose cores are shared with
// other work a spinning thread takes the core its partner needs, and one and
// the same step took 0.05 to 1.1 s (2 threads, 2 busy cores), which no
// number of rounds averages out. Passive waiting affects both alike.
func speedEnv() []string {
	env := os.Environ()
	if os.Getenv("OMP_WAIT_POLICY") == "" {
		env = append(env, "OMP_WAIT_POLICY=PASSIVE")
	}
	return env
}

// BenchmarkVsPyTorch measures densify's training step (trainStep: unet-cpu,
// Sobel edges, weighted BCE, Adam) and inference (predictFrame: 8-bit frame
// to mask) against the same computation in PyTorch, interleaved, 2 intra-op
// threads each. Metrics: median wall-clock seconds per step of each
// (densify-s, pytorch-s), their ratio (densify/PyTorch) and the median of the
// per-round ratios (ratio-paired); median CPU seconds per step (user + system
// of all the worker's threads) and their ratio (cpu-ratio), which machine load
// disturbs much less than wall-clock time; the peak RSS (VmHWM) of the
// workers, the median over the speedPairs processes of each (densify-peak-MiB,
// pytorch-peak-MiB: one process's peak varies by about 100 MiB from the next
// one's at 854×480) and the largest (…-peak-max-MiB).
// It is skipped, saying so, when python3-torch is not installed.
func BenchmarkVsPyTorch(b *testing.B) {
	if err := torchAvailable(); err != nil {
		if !testing.Verbose() {
			// go test prints a benchmark's skip only with -v; make bench
			// (internal/tools/benchjson) lists it from these two lines.
			fmt.Printf("--- SKIP: %s\n    %v\n", b.Name(), err)
		}
		b.Skip(err)
	}
	exe, err := os.Executable()
	if err != nil {
		b.Skip(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "torch_reference.py"))
	if err != nil {
		b.Fatal(err)
	}
	const threads = 2
	for _, mode := range []string{"train", "infer"} {
		for _, sh := range speedShapes {
			if mode == "infer" && sh.N != 1 {
				continue
			}
			b.Run(mode+"/"+sh.String(), func(b *testing.B) {
				rounds := speedRounds(b, max(2*speedPairs, min(42, int(4e6/float64(sh.N*sh.W*sh.H)))))
				spec := fmt.Sprintf("%s:%d:%d:%d:%d", mode, sh.N, sh.W, sh.H, threads)
				var ds, ps, rs, dc, pcs []float64
				var dm, pm []float64 // peak RSS of each worker
				// The rounds are spread over speedPairs fresh pairs of workers:
				// one process's step time at 854×480 varies up to 1.5-fold from
				// one process to the next (memory placement), for both alike,
				// which one pair would report as a ratio.
				for pair := 0; pair < speedPairs; pair++ {
					gc := exec.Command(exe, "-test.run=^TestSpeedWorker$")
					gc.Env = append(speedEnv(), "DENSIFY_SPEED_WORKER="+spec)
					pc := exec.Command(torchPython(), script, "--mode", mode, "--n", fmt.Sprint(sh.N), "--w", fmt.Sprint(sh.W),
						"--h", fmt.Sprint(sh.H), "--threads", fmt.Sprint(threads))
					pc.Env = speedEnv()
					d := startWorker(b, "densify", gc)
					p := startWorker(b, "pytorch", pc)
					for i := 0; i < 2; i++ { // warm-up: first steps allocate and plan
						d.step(b)
						p.step(b)
					}
					for i := pair; i < rounds; i += speedPairs {
						var td, tp, cd, cp float64
						if i%2 == 0 {
							td, cd = d.step(b)
							tp, cp = p.step(b)
						} else {
							tp, cp = p.step(b)
							td, cd = d.step(b)
						}
						ds, ps, rs = append(ds, td), append(ps, tp), append(rs, td/tp)
						dc, pcs = append(dc, cd), append(pcs, cp)
					}
					dm, pm = append(dm, d.quit(b)), append(pm, p.quit(b))
				}
				b.ReportMetric(median(ds), "densify-s")
				b.ReportMetric(median(ps), "pytorch-s")
				b.ReportMetric(median(ds)/median(ps), "ratio")
				b.ReportMetric(median(rs), "ratio-paired")
				b.ReportMetric(median(dc), "densify-cpu-s")
				b.ReportMetric(median(pcs), "pytorch-cpu-s")
				b.ReportMetric(median(dc)/median(pcs), "cpu-ratio")
				b.ReportMetric(median(dm), "densify-peak-MiB")
				b.ReportMetric(median(pm), "pytorch-peak-MiB")
				b.ReportMetric(slices.Max(dm), "densify-peak-max-MiB")
				b.ReportMetric(slices.Max(pm), "pytorch-peak-max-MiB")
				b.Logf("%s %s: densify wall %.3f", mode, sh, ds)
				b.Logf("%s %s: pytorch wall %.3f", mode, sh, ps)
				b.Logf("%s %s: densify CPU %.3f", mode, sh, dc)
				b.Logf("%s %s: pytorch CPU %.3f", mode, sh, pcs)
				b.Logf("%s %s: peak MiB densify %.0f, pytorch %.0f", mode, sh, dm, pm)
			})
		}
	}
}

// cpuSeconds is the user + system time of all threads of this process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// TestSpeedWorker is BenchmarkVsPyTorch's densify worker (DENSIFY_SPEED_WORKER
// = mode:N:W:H:threads); skipped otherwise.
func TestSpeedWorker(t *testing.T) {
	spec := os.Getenv("DENSIFY_SPEED_WORKER")
	if spec == "" {
		t.Skip("only run by BenchmarkVsPyTorch")
	}
	var mode string
	var n, w, h, threads int
	if _, err := fmt.Sscanf(strings.ReplaceAll(spec, ":", " "), "%s %d %d %d %d", &mode, &n, &w, &h, &threads); err != nil {
		t.Fatalf("DENSIFY_SPEED_WORKER=%q: %v", spec, err)
	}
	// One OS thread for the whole run, as train.Run and Predict do.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m, opt := benchTrainer(t, threads)
	defer opt.Close()
	var step func() error
	switch mode {
	case "train":
		ss := benchSamples(t, n, w, h, 1)
		flip := make([]bool, n)
		var buf batch
		step = func() error {
			_, err := trainStep(m, opt, buf.fill(ss, flip), 1, 0)
			return err
		}
	case "infer":
		rng := rand.New(rand.NewPCG(2, 7))
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = byte(rng.IntN(256))
			if i%4 == 3 {
				img.Pix[i] = 255
			}
		}
		step = func() error {
			_, _, err := predictFrame(m, img, 1, nil, false)
			return err
		}
	default:
		t.Fatalf("unknown mode %q", mode)
	}
	fmt.Println("ready")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		switch sc.Text() {
		case "step":
			t0, c0 := time.Now(), cpuSeconds()
			if err := step(); err != nil {
				t.Fatal(err)
			}
			fmt.Printf("seconds %.6f %.6f\n", time.Since(t0).Seconds(), cpuSeconds()-c0)
		case "quit":
			fmt.Printf("peak-MiB %.1f\n", rssMiB("VmHWM"))
			return
		}
	}
}
