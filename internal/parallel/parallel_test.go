package parallel

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// Every index runs exactly once, whatever the number of workers.
func TestForRunsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 8, 100} {
		const n = 1000
		var count [n]atomic.Int32
		if err := For(n, workers, func(i int) error { count[i].Add(1); return nil }); err != nil {
			t.Fatal(err)
		}
		for i := range count {
			if c := count[i].Load(); c != 1 {
				t.Fatalf("%d workers: index %d ran %d times", workers, i, c)
			}
		}
	}
	if err := For(0, 4, func(int) error { t.Fatal("called for n = 0"); return nil }); err != nil {
		t.Fatal(err)
	}
}

// After an error no further index starts: with one worker exactly the
// indices up to the failing one ran; with four, whose calls after index 10
// take a millisecond each, the first error comes back after a few more
// calls, not the thousand of a loop that went on.
func TestForStopsAtTheFirstError(t *testing.T) {
	bad := errors.New("bad")
	var ran atomic.Int32
	err := For(100, 1, func(i int) error {
		ran.Add(1)
		if i == 2 {
			return bad
		}
		return nil
	})
	if err != bad || ran.Load() != 3 {
		t.Fatalf("one worker: err %v after %d calls, want bad after 3", err, ran.Load())
	}
	ran.Store(0)
	err = For(1000, 4, func(i int) error {
		ran.Add(1)
		if i == 10 {
			return bad
		}
		if i > 10 {
			time.Sleep(time.Millisecond)
		}
		return nil
	})
	if err != bad || ran.Load() >= 100 {
		t.Fatalf("four workers: err %v after %d calls", err, ran.Load())
	}
}
