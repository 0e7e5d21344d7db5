package unet

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

// scripts/setup.sh patches gotch's generated in-place wrappers to keep the
// receiver's C handle (and free the alias libtorch returns) instead of
// replacing it and leaking the old one. After x.Relu_() the handle must be the
// same, the values rectified, and a struct copy taken before (as
// VarStore.Variables hands out) must see the new values through the same
// handle. Fails on an unpatched gotch (make setup).
func TestInPlaceKeepsHandle(t *testing.T) {
	err := Run(func(s *Scope) error {
		x, err := Tensor(s, []float32{-1, 2, -3, 4}, []int64{4}, gotch.CPU)
		if err != nil {
			return err
		}
		alias := *x
		before := x.Ctensor()
		must(x.Relu_())
		if x.Ctensor() != before {
			t.Errorf("Relu_ replaced the tensor's handle: gotch's in-place wrappers are not patched (run make setup)")
		}
		for _, v := range []*ts.Tensor{x, &alias} {
			got, err := Float32s(v)
			if err != nil {
				return err
			}
			if want := []float32{0, 2, 0, 4}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
				t.Errorf("after Relu_: %v, want %v", got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Free drops a tensor at once and takes it out of the scope; the scope's
// other tensors stay usable and Close does not free it twice.
func TestScopeFree(t *testing.T) {
	s := NewScope()
	a, err := Tensor(s, []float32{1, 2}, []int64{2}, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Tensor(s, []float32{3, 4}, []int64{2}, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	s.Free(a)
	if s.Len() != 1 || a.Ctensor() != nil {
		t.Errorf("after Free: %d tensors in scope, handle %v (want 1, nil)", s.Len(), a.Ctensor())
	}
	if v, err := Float32s(b); err != nil || v[1] != 4 {
		t.Errorf("other tensor after Free: %v, %v", v, err)
	}
	s.Free(nil)
	s.Close()
}

// Scope.Close must free its scalars at once (scripts/setup.sh patch d: gotch's
// Scalar.Drop was a no-op). A scalar left to the garbage collector is a small
// C allocation that pins glibc's heap between a step's large tensor
// allocations; training RSS then grew ~5 MB per step at 854×480. gotch
// registers each live scalar in ts.ExistingScalars (under a name derived from
// the tensor count, so a tensor is made before each scalar to keep the names
// apart) and removes it when the C scalar is freed. The collector is off, and
// earlier finalizers have run, so only Close can free them here. Fails on an
// unpatched gotch (make setup).
func TestScopeFreesScalars(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	runtime.GC()
	time.Sleep(100 * time.Millisecond) // let the finalizer goroutine finish
	before := len(ts.ExistingScalars)
	s := NewScope()
	for _, v := range []float64{0.5, 1e-3, 0.999} {
		if _, err := Tensor(s, []float32{1}, []int64{1}, gotch.CPU); err != nil {
			t.Fatal(err)
		}
		s.Float(v)
	}
	if got := len(ts.ExistingScalars) - before; got != 3 {
		t.Fatalf("%d scalars registered, want 3", got)
	}
	s.Close()
	if got := len(ts.ExistingScalars) - before; got != 0 {
		t.Errorf("%d of 3 scalars still allocated after Scope.Close (gotch without patch d? run make setup)", got)
	}
}
