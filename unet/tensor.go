package unet

/*
#include <stdint.h>
extern void at_manual_seed(int64_t seed);
*/
import "C"

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"

	"github.com/sugarme/gotch"
	lib "github.com/sugarme/gotch/libtch"
	"github.com/sugarme/gotch/ts"
)

// ManualSeed seeds libtorch's random generators (weight initialisation, dropout);
// gotch has the C function but no Go wrapper. Same seed + CPU ⇒ same weights.
func ManualSeed(seed int64) { C.at_manual_seed(C.int64_t(seed)) }

// ParseDevice maps "cpu", "cuda" (error when CUDA is not available) and "auto"
// (CUDA when available, else CPU) to a gotch device.
func ParseDevice(name string) (gotch.Device, error) {
	switch strings.ToLower(name) {
	case "cpu", "":
		return gotch.CPU, nil
	case "cuda", "gpu":
		if !gotch.CUDA.IsAvailable() {
			return gotch.CPU, fmt.Errorf("CUDA requested but not available to libtorch (CPU-only libtorch, or no GPU/driver); use --device cpu, or rebuild with LIBTORCH=/path/to/cuda-libtorch make setup")
		}
		return gotch.CudaBuilder(0), nil
	case "auto":
		return gotch.CudaIfAvailable(), nil
	}
	return gotch.CPU, fmt.Errorf("unknown device %q (cpu, cuda or auto)", name)
}

// Tensor copies data (row-major, len = product of shape) into a float32 tensor on
// dev, owned by s.
func Tensor(s *Scope, data []float32, shape []int64, dev gotch.Device) (*ts.Tensor, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("unet: negative dimension in shape %v", shape)
		}
		n *= d
	}
	if int64(len(data)) != n {
		return nil, fmt.Errorf("unet: %d values for shape %v (%d expected)", len(data), shape, n)
	}
	if n == 0 {
		return nil, fmt.Errorf("unet: empty tensor of shape %v", shape)
	}
	// One memcpy of the float32 bytes (gotch's NewTensorFromData goes through
	// reflection per element: ~3 allocations per value).
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), 4*len(data))
	t, err := ts.OfDataSize(raw, shape, gotch.Float)
	if err != nil {
		return nil, fmt.Errorf("libtorch: %w", err)
	}
	s.Keep(t)
	if dev.IsCuda() {
		t, err = t.To(dev, false)
		if err != nil {
			return nil, fmt.Errorf("libtorch: %w", err)
		}
		s.Keep(t)
	}
	return t, nil
}

// Float32s copies a tensor (any device, any float dtype, any layout) into a new
// row-major []float32.
func Float32s(t *ts.Tensor) ([]float32, error) {
	defer runtime.KeepAlive(t)
	runtime.LockOSThread() // gotch's last-error slot is thread-local
	defer runtime.UnlockOSThread()
	s := NewScope()
	defer s.Close()
	if t.DType() != gotch.Float {
		c, err := t.Totype(gotch.Float, false)
		if err != nil {
			return nil, fmt.Errorf("libtorch: %w", err)
		}
		t = s.Keep(c)
	}
	n := t.Numel()
	out := make([]float32, n)
	if n == 0 {
		return out, nil
	}
	// at_copy_data directly: one memcpy (ts.CopyData type-checks the destination by
	// reflection per element). It copies from CUDA and non-contiguous tensors too.
	lib.AtCopyData(lib.Ctensor(t.Ctensor()), unsafe.Pointer(&out[0]), n, 4)
	if err := ts.TorchErr(); err != nil {
		return nil, &TorchError{Err: err}
	}
	return out, nil
}
