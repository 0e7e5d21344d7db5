// Package progress reports the progress of long work (tracking, training,
// prediction, heat maps, dataset loops) in the form the reader can use: on a
// terminal an in-place bar (github.com/schollz/progressbar), anywhere else —
// a log file, a pipe, a CI job — plain lines, at most one per tenth of the
// work or per 30 s, each with the count, the percentage, the elapsed time and
// an estimate of the time left, and never a carriage return, so a log keeps
// one readable line per report instead of kilobytes of overwritten bars.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Interval is the longest time between two plain progress lines.
const Interval = 30 * time.Second

// IsTerminal reports whether w is a terminal (an *os.File on a tty).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Bar reports the progress of total steps on a writer. The zero of Bar is
// not usable; New makes one. A nil *Bar is a no-op (no writer given).
type Bar struct {
	w     io.Writer
	total int
	desc  string
	tty   *progressbar.ProgressBar // terminal mode; nil in plain mode

	done        int
	start, last time.Time
	tenth       int // last reported tenth of the work (plain mode)
	finished    bool
	now         func() time.Time
}

// New starts a bar of total steps described by desc on w (nil or io.Discard:
// no output). A terminal gets an in-place bar, anything else plain lines.
func New(w io.Writer, total int, desc string) *Bar {
	if w == nil || w == io.Discard {
		return nil
	}
	b := &Bar{w: w, total: total, desc: desc, now: time.Now}
	b.start, b.last = b.now(), b.now()
	if IsTerminal(w) {
		b.tty = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(30), progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSetPredictTime(true), progressbar.OptionSetDescription(desc))
	}
	return b
}

// Describe changes the description (e.g. the current epoch and loss); plain
// lines show it from the next report on.
func (b *Bar) Describe(desc string) {
	if b == nil {
		return
	}
	b.desc = desc
	if b.tty != nil {
		b.tty.Describe(desc)
	}
}

// Add advances the bar by n steps.
func (b *Bar) Add(n int) {
	if b != nil {
		b.Set(b.done + n)
	}
}

// Set sets the number of steps done.
func (b *Bar) Set(done int) {
	if b == nil || b.finished {
		return
	}
	b.done = done
	if b.tty != nil {
		_ = b.tty.Set(done)
		return
	}
	now := b.now()
	tenth := 10 * done / max(b.total, 1)
	if done >= b.total || tenth > b.tenth || now.Sub(b.last) >= Interval {
		b.tenth, b.last = tenth, now
		b.line(now)
	}
}

// Finish ends the bar: the terminal bar is completed and the line ended;
// plain mode writes the final line unless the last report already said all
// steps were done.
func (b *Bar) Finish() {
	if b == nil || b.finished {
		return
	}
	if b.tty != nil {
		_ = b.tty.Finish()
		fmt.Fprintln(b.w)
	} else if b.done < b.total {
		b.line(b.now())
	}
	b.finished = true
}

// line writes one plain progress line:
//
//	desc: 12/30 (40%), 4.1s elapsed, about 6.2s left
//	desc: 30/30 (100%) in 10.3s
func (b *Bar) line(now time.Time) {
	el := now.Sub(b.start)
	pct := 100 * b.done / max(b.total, 1)
	if b.done >= b.total {
		b.finished = true
		fmt.Fprintf(b.w, "%s: %d/%d (%d%%) in %s\n", b.desc, b.done, b.total, pct, round(el))
		return
	}
	eta := "unknown"
	if b.done > 0 {
		eta = "about " + round(time.Duration(float64(el)*float64(b.total-b.done)/float64(b.done))).String() + " left"
	}
	fmt.Fprintf(b.w, "%s: %d/%d (%d%%), %s elapsed, %s\n", b.desc, b.done, b.total, pct, round(el), eta)
}

// round shortens a duration for a log line (0.1 s below a minute, 1 s above).
func round(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// Func adapts a Bar to the callback form func(done, total int) of the
// tracker and the dataset loops: the bar starts at the first call (with its
// total) and finishes when done reaches the total.
func Func(w io.Writer, desc string) func(done, total int) {
	var b *Bar
	started := false
	return func(done, total int) {
		if !started {
			b, started = New(w, total, desc), true
		}
		b.Set(done)
		if done >= total {
			b.Finish()
		}
	}
}
