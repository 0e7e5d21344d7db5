package unet

import "testing"

func TestSetThreads(t *testing.T) {
	defer LockThread()() // the count is per OS thread (see SetThreads)
	old := Threads()
	defer SetThreads(old)
	for _, n := range []int{1, 2} {
		if err := SetThreads(n); err != nil {
			t.Fatal(err)
		}
		if got := Threads(); got != n {
			t.Fatalf("Threads() = %d after SetThreads(%d)", got, n)
		}
	}
}
