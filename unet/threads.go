package unet

// libtorch's intra-op thread pool. gotch's C API (libtch/torch_api.cpp, linked into
// every binary that imports gotch) exports at_set_num_threads / at_get_num_threads but
// gotch has no Go wrapper, so they are declared here and resolved at link time against
// gotch's libtch object.

/*
extern void at_set_num_threads(int n_threads);
extern int at_get_num_threads(void);
*/
import "C"

import (
	"fmt"
	"runtime"

	_ "github.com/sugarme/gotch/libtch" // provides the C symbols declared above
)

// SetThreads sets the number of intra-op threads libtorch uses for CPU kernels
// (at::set_num_threads). Debian's libtorch starts with one; n ≤ 0 means all cores
// (runtime.NumCPU). With OpenMP the setting belongs to the calling OS thread
// (omp_set_num_threads sets a per-thread value), so callers pin the goroutine
// first, as Run, Predict and Doctor do with LockThread; SetThreads pins it
// itself between setting and checking, so that the check reads the same
// thread.
func SetThreads(n int) error {
	if n <= 0 {
		n = runtime.NumCPU()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.at_set_num_threads(C.int(n))
	if got := Threads(); got != n {
		return fmt.Errorf("libtorch kept %d intra-op threads after asking for %d", got, n)
	}
	return nil
}

// Threads reports libtorch's current number of intra-op threads (at::get_num_threads).
func Threads() int {
	return int(C.at_get_num_threads())
}

// LockThread pins the calling goroutine to its OS thread until the returned
// function is called: defer unet.LockThread()() around a whole training or
// prediction. Every OS thread that calls into libtorch gets its own team of
// OpenMP worker threads (libgomp keeps one per thread that starts a parallel
// region) and, through them and itself, its own glibc malloc arenas, whose
// freed memory is not reused by the others. A goroutine that the Go scheduler
// moves between threads from step to step therefore ends up with several
// teams and arenas, more threads than cores and a higher peak RSS. Run and
// NoGrad already lock for one step; this keeps all steps on one thread.
func LockThread() (unlock func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
