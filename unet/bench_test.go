package unet

import (
	"math/rand"
	"os"
	"testing"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/nn"
)

// Frame size of the benchmarks: DAVIS 480p.
const benchW, benchH = 854, 480

func benchModel(b *testing.B, preset string) *Model {
	if err := SetThreads(0); err != nil {
		b.Fatal(err)
	}
	cfg, err := Preset(preset)
	if err != nil {
		b.Fatal(err)
	}
	dev, err := ParseDevice("auto")
	if err != nil {
		b.Fatal(err)
	}
	ManualSeed(1)
	m, err := New(cfg, dev)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// benchTrainStep times one training step (forward in train mode, BCE, backward,
// Adam) on one 854×480 frame, batch 1, all cores. Reports seconds per step.
func benchTrainStep(b *testing.B, preset string) {
	m := benchModel(b, preset)
	opt, err := nn.DefaultAdamConfig().Build(m.VS, 1e-3)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	img := randImage(rng, 1, benchH, benchW)
	lab := make([]float32, benchH*benchW)
	for i := range lab {
		lab[i] = float32(rng.Intn(2))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		err := Run(func(s *Scope) error {
			x, err := Tensor(s, img, []int64{1, 3, benchH, benchW}, m.Device)
			if err != nil {
				return err
			}
			y, err := Tensor(s, lab, []int64{1, 1, benchH, benchW}, m.Device)
			if err != nil {
				return err
			}
			logits, err := m.Forward(s, x, true)
			if err != nil {
				return err
			}
			return opt.BackwardStep(bceLoss(s, logits, y))
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/step")
	b.ReportMetric(float64(m.NumParams()), "params")
}

func BenchmarkTrainStep854x480CPUPreset(b *testing.B) { benchTrainStep(b, "unet-cpu") }

// unet-paper (17.3 M parameters) took 102 s per step on the 2-core development
// machine (under load), too long for `make bench`: it runs when CUDA is available or
// when DENSIFY_BENCH_PAPER=1.
func BenchmarkTrainStep854x480Paper(b *testing.B) {
	if os.Getenv("DENSIFY_BENCH_PAPER") != "1" && !gotch.CUDA.IsAvailable() {
		b.Skip("unet-paper on CPU takes ~100 s/step on 2 cores; set DENSIFY_BENCH_PAPER=1 to run it")
	}
	benchTrainStep(b, "unet-paper")
}

// BenchmarkInfer854x480CPUPreset times inference (eval mode, no gradients) plus
// the sigmoid on one 854×480 frame.
func BenchmarkInfer854x480CPUPreset(b *testing.B) {
	m := benchModel(b, "unet-cpu")
	img := randImage(rand.New(rand.NewSource(2)), 1, benchH, benchW)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		err := Run(func(s *Scope) error {
			return NoGrad(func() error {
				x, err := Tensor(s, img, []int64{1, 3, benchH, benchW}, m.Device)
				if err != nil {
					return err
				}
				y, err := m.Forward(s, x, false)
				if err != nil {
					return err
				}
				p := s.T(y.Sigmoid(false))
				_, err = Float32s(p)
				return err
			})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(sec, "s/frame")
	b.ReportMetric(1/sec, "frames/s")
}
