package unet

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/sugarme/gotch/ts"
)

// Tensor lifetime (read this before writing gotch code)
//
// gotch frees the C++ tensor behind a *ts.Tensor from a Go finalizer. A Go value is
// collectable as soon as the compiler sees no later use of it — and passing t.ctensor
// (a C pointer) into a cgo call is not a use of t. So in
//
//	y := ts.MustConv2d(x, w, b, ...) // x not used afterwards
//
// the garbage collector may run x's finalizer on another thread *while* libtorch is still
// reading x inside the cgo call: a use-after-free. It was reproduced as a SIGSEGV in
// batch_norm after ~100 training steps. gotch's `del` flags do not solve it: `del=true`
// only keeps the *receiver* alive (through a deferred Drop) and frees it afterwards, which
// is useless for tensors needed again (skip connections, inputs, targets), and the free
// functions (Conv2d, BatchNorm, Cat, ...) have no del flag at all for their arguments.
//
// The rule in this project: every tensor a gotch call returns is put in a Scope. The
// Scope is referenced until Close (defer s.Close()), so everything in it stays reachable
// for as long as any op may read it, and Close frees all of it explicitly and promptly
// (the finalizer then has nothing left to do). Model parameters live in the model's
// VarStore and stay alive with the model.
//
// Scope also turns gotch errors into Go errors: Scope.T panics with a *TorchError that Run
// (or Catch) recovers, so straight-line tensor code needs no error check per op, while
// gotch's Must* functions would call log.Fatal and kill the process.
//
// Run also pins the goroutine to its OS thread: libtorch's grad mode (NoGrad) and
// gotch's last-error slot are thread-local, so one step's cgo calls must not migrate.

// Scope owns tensors until Close. The zero value is not usable; use NewScope.
// A Scope is not safe for concurrent use.
type Scope struct {
	kept    []*ts.Tensor
	scalars []*ts.Scalar
	closed  bool
}

// NewScope returns an empty scope. Always `defer s.Close()`.
func NewScope() *Scope { return &Scope{} }

// Keep puts t in the scope (t may be nil) and returns it.
func (s *Scope) Keep(t *ts.Tensor) *ts.Tensor {
	if s.closed {
		panic("unet: Keep on a closed Scope")
	}
	if t != nil {
		s.kept = append(s.kept, t)
	}
	return t
}

// T keeps the result of a gotch call that returns (tensor, error). On error it panics
// with a *TorchError, which Run and Catch turn back into an ordinary error.
//
//	y := s.T(ts.Conv2d(x, w, b, stride, pad, dil, 1))
func (s *Scope) T(t *ts.Tensor, err error) *ts.Tensor {
	if err != nil {
		panic(&TorchError{Err: err})
	}
	return s.Keep(t)
}

// Float returns a scalar owned by the scope (gotch scalars are finalized like tensors).
func (s *Scope) Float(v float64) *ts.Scalar {
	sc := ts.FloatScalar(v)
	s.scalars = append(s.scalars, sc)
	return sc
}

// Release removes t from the scope without freeing it: the caller now owns t and
// must keep it referenced while it is used and Drop it when done (or Keep it in
// another scope). It returns t. Releasing a tensor that is not in the scope is a no-op.
func (s *Scope) Release(t *ts.Tensor) *ts.Tensor {
	for i := len(s.kept) - 1; i >= 0; i-- {
		if s.kept[i] == t {
			s.kept = append(s.kept[:i], s.kept[i+1:]...)
			break
		}
	}
	return t
}

// Free frees t now and removes it from the scope, for intermediates that no
// later op reads, so that a step holds no more memory than PyTorch's reference
// counting would. Call it only after the last op that reads t has returned
// (CPU ops are synchronous; on CUDA libtorch's caching allocator orders the
// reuse). Tensors that autograd saved for the backward pass stay alive: the
// graph holds its own reference, only this handle goes. Free of nil is a no-op.
func (s *Scope) Free(t *ts.Tensor) {
	if t == nil {
		return
	}
	s.Release(t)
	_ = t.Drop()
}

// Len is the number of tensors currently owned by the scope.
func (s *Scope) Len() int { return len(s.kept) }

// Close frees every tensor and scalar in the scope, newest first. Idempotent.
func (s *Scope) Close() {
	if s.closed {
		return
	}
	s.closed = true
	for i := len(s.kept) - 1; i >= 0; i-- {
		_ = s.kept[i].Drop() // Drop is a no-op on tensors already dropped by hand
	}
	for _, sc := range s.scalars {
		_ = sc.Drop()
	}
	s.kept, s.scalars = nil, nil
}

// TorchError is a libtorch/gotch failure raised inside a Scope by Scope.T.
type TorchError struct{ Err error }

// Error is the first line of libtorch's message (gotch appends C++ frames and a Go
// stack trace, kept in Detail).
func (e *TorchError) Error() string {
	msg := strings.TrimPrefix(e.Err.Error(), "Libtorch API Error: ")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return "libtorch: " + strings.TrimSpace(msg)
}

// Detail is the full message with libtorch's and Go's stack traces.
func (e *TorchError) Detail() string { return e.Err.Error() }
func (e *TorchError) Unwrap() error  { return e.Err }

// Catch recovers a *TorchError panic into *err. Use it as `defer unet.Catch(&err)` in
// functions that call Scope.T; other panics propagate unchanged.
func Catch(err *error) {
	if r := recover(); r != nil {
		var te *TorchError
		if e, ok := r.(error); ok && errors.As(e, &te) {
			if *err == nil {
				*err = te
			}
			return
		}
		panic(r)
	}
}

// Run runs fn with a fresh scope on a locked OS thread, closes the scope afterwards and
// returns fn's error or the *TorchError raised by Scope.T. Tensors that must outlive fn
// are taken out with Scope.Release. One training step = one Run.
func Run(fn func(s *Scope) error) (err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s := NewScope()
	defer s.Close()
	defer Catch(&err)
	return fn(s)
}

// NoGrad runs fn with libtorch's gradient recording switched off (inference), on a
// locked OS thread, restoring the previous mode afterwards.
func NoGrad(fn func() error) (err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prev, err := ts.GradSetEnabled(false)
	if err != nil {
		return fmt.Errorf("libtorch: disabling gradients: %w", err)
	}
	defer func() {
		if _, e := ts.GradSetEnabled(prev); e != nil && err == nil {
			err = fmt.Errorf("libtorch: restoring gradient mode: %w", e)
		}
	}()
	return fn()
}

// replace runs op, keeps its result and frees in (which op reads): one link of
// a chain of intermediates, y = s.replace(y, func() (*ts.Tensor, error) { return y.Sqrt(false) }).
func (s *Scope) replace(in *ts.Tensor, op func() (*ts.Tensor, error)) *ts.Tensor {
	out := s.T(op())
	s.Free(in)
	return out
}
