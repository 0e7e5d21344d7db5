package unet

import (
	"math/rand"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/nn"
	"github.com/sugarme/gotch/ts"
)

// TestScopeSurvivesGCPressure runs 1000 Adam steps of a small conv–batchnorm–ReLU
// net while the garbage collector runs continuously (GC percent 1 and a goroutine
// calling runtime.GC in a loop). Without the Scope discipline (every intermediate kept
// reachable until Close) gotch's finalizers free tensors libtorch is still reading and
// this crashed with SIGSEGV in batch_norm after ~100 steps; see scope.go.
func TestScopeSurvivesGCPressure(t *testing.T) {
	steps := 1000
	if testing.Short() {
		steps = 200
	}
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()

	// The layers are built with gotch's nn constructors, whose initialisers
	// switch libtorch's thread-local grad mode off and on (see New): pinned to
	// one OS thread, a migration under this GC pressure cannot leave another
	// thread with gradients disabled (a flaky "does not require grad").
	defer LockThread()()
	ManualSeed(11)
	vs := nn.NewVarStore(gotch.CPU)
	root := vs.Root()
	cc := nn.DefaultConv2DConfig()
	cc.Padding = []int64{1, 1}
	c1 := nn.NewConv2D(root.Sub("c1"), 3, 8, 3, cc)
	bn := newBN(root.Sub("bn"), 8)
	c2 := nn.NewConv2D(root.Sub("c2"), 8, 1, 3, cc)
	opt, err := nn.DefaultAdamConfig().Build(vs, 1e-2)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(11))
	const n, size = 2, 12
	img, lab := toyBatch(rng, n, size)
	var first, last float32
	for i := 0; i < steps; i++ {
		err := Run(func(s *Scope) error {
			x, err := Tensor(s, img, []int64{n, 3, size, size}, gotch.CPU)
			if err != nil {
				return err
			}
			y, err := Tensor(s, lab, []int64{n, 1, size, size}, gotch.CPU)
			if err != nil {
				return err
			}
			h := s.T(ts.Conv2d(x, c1.Ws, c1.Bs, unit, unit, unit, 1))
			h = s.T(ts.BatchNorm(h, bn.w, bn.b, bn.mean, bn.vari, true, bnMomentum, bnEps, true))
			h = s.T(h.Relu(false))
			h = s.T(ts.Conv2d(h, c2.Ws, c2.Bs, unit, unit, unit, 1))
			loss := bceLoss(s, h, y)
			if err := opt.BackwardStep(loss); err != nil {
				return err
			}
			v, err := Float32s(loss)
			if err != nil {
				return err
			}
			if i == 0 {
				first = v[0]
			}
			last = v[0]
			return nil
		})
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	runtime.KeepAlive(vs)
	t.Logf("%d steps under GC pressure, BCE %.4f → %.4f", steps, first, last)
	if !(last < first) {
		t.Errorf("loss did not decrease: %.4f → %.4f", first, last)
	}
}
