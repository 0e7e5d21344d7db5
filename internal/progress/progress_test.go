package progress

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// clock is a manual time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func plainBar(buf *bytes.Buffer, total int, c *clock) *Bar {
	b := New(buf, total, "work")
	b.now = c.now
	b.start, b.last = c.t, c.t
	return b
}

// A writer that is not a terminal gets one plain line per tenth of the work,
// with the ETA from the elapsed time, and no carriage return.
func TestPlainLinesEveryTenth(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	b := plainBar(&buf, 20, c)
	for i := 0; i < 20; i++ {
		c.t = c.t.Add(time.Second)
		b.Add(1)
	}
	b.Finish()
	out := buf.String()
	if strings.Contains(out, "\r") {
		t.Fatalf("carriage return in plain output:\n%q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 10 (one per tenth):\n%s", len(lines), out)
	}
	// after 2 of 20 steps in 2 s: 18 steps left at 1 s each
	if lines[0] != "work: 2/20 (10%), 2s elapsed, about 18s left" {
		t.Errorf("first line %q", lines[0])
	}
	if lines[9] != "work: 20/20 (100%) in 20s" {
		t.Errorf("last line %q", lines[9])
	}
}

// Slow work reports at least every Interval even within one tenth; Describe
// changes the text of later lines; Finish reports an unfinished total once.
func TestPlainLinesEveryIntervalAndFinish(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	b := plainBar(&buf, 1000, c)
	c.t = c.t.Add(10 * time.Second)
	b.Add(1) // 10 s, 0.1 % done: no line yet
	if buf.Len() != 0 {
		t.Fatalf("line before 30 s or a tenth: %q", buf.String())
	}
	c.t = c.t.Add(Interval) // 2 steps in 40 s: 20 s per step, 998 left = 19960 s
	b.Describe("epoch 1/3 loss 0.5")
	b.Add(1)
	c.t = c.t.Add(time.Second)
	b.Finish()
	b.Finish()
	want := "epoch 1/3 loss 0.5: 2/1000 (0%), 40s elapsed, about 5h32m40s left\n" +
		"epoch 1/3 loss 0.5: 2/1000 (0%), 41s elapsed, about 5h40m59s left\n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}
}

func TestFuncAndNilWriter(t *testing.T) {
	var buf bytes.Buffer
	f := Func(&buf, "track")
	for i := 1; i <= 4; i++ {
		f(i, 4)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[3], "track: 4/4 (100%) in ") {
		t.Errorf("lines %q", lines)
	}
	if New(nil, 3, "x") != nil || New(io.Discard, 3, "x") != nil {
		t.Error("a bar without a writer must be nil")
	}
	var b *Bar
	b.Add(1)
	b.Describe("x")
	b.Finish() // no panic
	if IsTerminal(&buf) {
		t.Error("a buffer is not a terminal")
	}
}
