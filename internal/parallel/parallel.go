// Package parallel runs the iterations of a loop on several goroutines.
package parallel

import (
	"runtime"
	"sync"
)

// For runs f(0), …, f(n−1) on up to workers goroutines (≤ 0: GOMAXPROCS),
// each taking the next index when it has finished one; with one worker, in
// order on the calling goroutine. Once a call has returned an error no
// further index is started, and For returns the first error after the
// running calls have returned. f must be safe for concurrent use.
func For(n, workers int, f func(i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			if err := f(i); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex // guards next and first
		next  int
		first error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= n || first != nil
				mu.Unlock()
				if stop {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}
