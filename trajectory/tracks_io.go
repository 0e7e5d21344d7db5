package trajectory

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/fileerr"
)

// The FBMS trajectory file (Tracks*.dat), as written by the LDOF tracker of
// Brox & Malik (ECCV 2010) and read by MoSegEval (Ochs, Malik, Brox, TPAMI
// 2014):
//
//	<number of frames>
//	<number of tracks>
//	<label> <number of points>        (one line per track ...)
//	<x> <y> <frame>                   (... followed by one line per point)
//
// MoSegEval reads the file as a stream of whitespace-separated tokens
// (C++ operator>>), so the label and the point count may also stand on two
// lines; ParseTracks accepts any whitespace layout and EncodeTracks writes
// the layout above. Frames are 0-based. MoSegEval evaluates only files whose
// frame count is 10, 50, 200 or the length of the shot; that check belongs to
// the evaluation, not to the format.
//
// Validation (every violation is an error naming file:line):
//   - the frame and track counts are non-negative integers, each track has
//     at least one point, and the file holds exactly the announced tracks and
//     points (no missing, no trailing tokens);
//   - labels are integers; coordinates are finite numbers; frames are
//     integers (MoSegEval reads them as floats and truncates, so "3.0" is
//     accepted, "3.5" is not) within [0, frames);
//   - the frames of a track strictly increase (gaps are allowed; Track.At
//     handles them, although MoSegEval assumes contiguous tracks).

// maxPrealloc caps slice preallocation from counts announced in a file, so a
// corrupt header cannot make the reader allocate unbounded memory before the
// data is there.
const maxPrealloc = 1 << 16

// tokenReader splits a stream into whitespace-separated tokens and remembers
// the 1-based line of each token.
type tokenReader struct {
	r     *bufio.Reader
	name  string
	line  int    // line of the current buffer
	buf   []byte // rest of the current line
	line0 []byte // storage of the current line, reused
	eof   bool
	last  int // line of the last token returned (or of EOF)
}

func newTokenReader(r io.Reader, name string) *tokenReader {
	return &tokenReader{r: bufio.NewReaderSize(r, 1<<16), name: name}
}

// readLine loads the next line into t.buf; it returns false at end of input.
func (t *tokenReader) readLine() (bool, error) {
	if t.eof {
		return false, nil
	}
	t.line0 = t.line0[:0]
	defer func() { t.buf = t.line0 }()
	for {
		chunk, err := t.r.ReadSlice('\n')
		t.line0 = append(t.line0, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			t.eof = true
			if len(t.line0) == 0 {
				return false, nil
			}
			t.line++
			return true, nil
		}
		if err != nil {
			return false, fileerr.New(t.name, t.line+1, "read error: %v", err)
		}
		t.line++
		return true, nil
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// next returns the next token (valid until the next call); ok is false at
// the end of input.
func (t *tokenReader) next() (tok []byte, ok bool, err error) {
	for {
		i := 0
		for i < len(t.buf) && isSpace(t.buf[i]) {
			i++
		}
		if i < len(t.buf) {
			j := i
			for j < len(t.buf) && !isSpace(t.buf[j]) {
				j++
			}
			tok = t.buf[i:j]
			t.buf = t.buf[j:]
			t.last = t.line
			return tok, true, nil
		}
		more, err := t.readLine()
		if err != nil {
			return nil, false, err
		}
		if !more {
			t.last = t.line
			if t.last == 0 {
				t.last = 1
			}
			t.buf = nil
			return nil, false, nil
		}
	}
}

func (t *tokenReader) errf(format string, args ...any) error {
	return fileerr.New(t.name, t.last, format, args...)
}

// need returns the next token or an error naming what was expected.
func (t *tokenReader) need(what string) ([]byte, error) {
	tok, ok, err := t.next()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, t.errf("unexpected end of file, expected %s", what)
	}
	return tok, nil
}

// int reads an integer in [min, max]; track ≥ 0 appends " of track N" to
// what in messages (formatted only on error: this runs twice per track).
func (t *tokenReader) int(what string, track, min, max int) (int, error) {
	tok, ok, err := t.next()
	if err != nil {
		return 0, err
	}
	if ok {
		if v, err := strconv.ParseInt(string(tok), 10, 64); err == nil && v >= int64(min) && v <= int64(max) {
			return int(v), nil
		}
	}
	if track >= 0 {
		what = fmt.Sprintf("%s of track %d", what, track)
	}
	if !ok {
		return 0, t.errf("unexpected end of file, expected %s", what)
	}
	v, err := strconv.ParseInt(string(tok), 10, 64)
	if err != nil {
		return 0, t.errf("%s: %q is not an integer", what, tok)
	}
	return 0, t.errf("%s %d out of range [%d, %d]", what, v, min, max)
}

func (t *tokenReader) float(what string) (float64, error) {
	tok, err := t.need(what)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, t.errf("%s: %q is not a number", what, tok)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, t.errf("%s: %q is not a finite number", what, tok)
	}
	return v, nil
}

// MaxCoordinate bounds |x| and |y| of a trajectory point. No frame is a
// million pixels wide, and the consumers (the graph's spatial grid, camera
// fits, features) compute with squares and differences of coordinates,
// which must stay finite; a file with a point beyond is refused.
const MaxCoordinate = 1e6

// MaxFrames bounds the number of frames a Tracks file may announce: the
// consumers allocate per frame, and a header of 2^31−1 frames for two
// trajectories made densify segment run out of memory. (FBMS sequences
// have hundreds of frames, an hour of video at 25 frames per second 90000.)
const MaxFrames = 100000

// ParseTracks reads an FBMS trajectory file from r; name is used in errors.
func ParseTracks(r io.Reader, name string) (*TrackSet, error) {
	t := newTokenReader(r, name)
	frames, err := t.int("number of frames", -1, 0, MaxFrames)
	if err != nil {
		return nil, err
	}
	n, err := t.int("number of tracks", -1, 0, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	ts := &TrackSet{Frames: frames, Tracks: make([]Track, 0, min(n, maxPrealloc))}
	for i := 0; i < n; i++ {
		label, err := t.int("label", i, math.MinInt32, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		size, err := t.int("number of points", i, 1, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		tr := Track{Label: label, Points: make([]Point, 0, min(size, maxPrealloc))}
		for j := 0; j < size; j++ {
			x, err := t.float("x")
			if err != nil {
				return nil, err
			}
			y, err := t.float("y")
			if err != nil {
				return nil, err
			}
			if math.Abs(x) > MaxCoordinate || math.Abs(y) > MaxCoordinate {
				return nil, t.errf("point (%g, %g) of track %d lies beyond ±%g pixels: no frame is that large", x, y, i, MaxCoordinate)
			}
			fv, err := t.float("frame")
			if err != nil {
				return nil, err
			}
			if fv != math.Trunc(fv) {
				return nil, t.errf("frame %v of track %d is not an integer", fv, i)
			}
			if fv < 0 || fv >= float64(frames) {
				return nil, t.errf("frame %v of track %d outside [0, %d)", fv, i, frames)
			}
			f := int(fv)
			if j > 0 && f <= tr.Points[j-1].Frame {
				return nil, t.errf("frames of track %d do not increase (%d after %d)", i, f, tr.Points[j-1].Frame)
			}
			tr.Points = append(tr.Points, Point{X: x, Y: y, Frame: f})
		}
		ts.Tracks = append(ts.Tracks, tr)
	}
	tok, ok, err := t.next()
	if err != nil {
		return nil, err
	}
	if ok {
		return nil, t.errf("unexpected data %q after the last of %d tracks", tok, n)
	}
	return ts, nil
}

// ReadTracks reads an FBMS trajectory file.
func ReadTracks(path string) (*TrackSet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseTracks(f, path)
}

// Validate checks that ts can be written and read back unchanged: at least
// one point per track, coordinates within ±MaxCoordinate, frames strictly
// increasing within [0, Frames).
func (ts *TrackSet) Validate() error {
	if ts.Frames < 0 {
		return fmt.Errorf("negative number of frames %d", ts.Frames)
	}
	for i := range ts.Tracks {
		tr := &ts.Tracks[i]
		if len(tr.Points) == 0 {
			return fmt.Errorf("track %d has no points", i)
		}
		for j, p := range tr.Points {
			if math.IsNaN(p.X) || math.IsInf(p.X, 0) || math.IsNaN(p.Y) || math.IsInf(p.Y, 0) {
				return fmt.Errorf("track %d point %d: coordinates (%v, %v) not finite", i, j, p.X, p.Y)
			}
			if math.Abs(p.X) > MaxCoordinate || math.Abs(p.Y) > MaxCoordinate {
				return fmt.Errorf("track %d point %d: coordinates (%v, %v) beyond ±%g", i, j, p.X, p.Y, MaxCoordinate)
			}
			if p.Frame < 0 || p.Frame >= ts.Frames {
				return fmt.Errorf("track %d point %d: frame %d outside [0, %d)", i, j, p.Frame, ts.Frames)
			}
			if j > 0 && p.Frame <= tr.Points[j-1].Frame {
				return fmt.Errorf("track %d: frames do not increase (%d after %d)", i, p.Frame, tr.Points[j-1].Frame)
			}
		}
	}
	return nil
}

// EncodeTracks writes ts in the FBMS trajectory format. Coordinates are
// written with the shortest representation that parses back to the same
// float64 (strconv 'g', -1), so ParseTracks(EncodeTracks(ts)) == ts exactly.
func EncodeTracks(w io.Writer, ts *TrackSet) error {
	if err := ts.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	buf := make([]byte, 0, 96)
	buf = strconv.AppendInt(buf, int64(ts.Frames), 10)
	buf = append(buf, '\n')
	buf = strconv.AppendInt(buf, int64(len(ts.Tracks)), 10)
	buf = append(buf, '\n')
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	for i := range ts.Tracks {
		tr := &ts.Tracks[i]
		buf = strconv.AppendInt(buf[:0], int64(tr.Label), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(len(tr.Points)), 10)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
		for _, p := range tr.Points {
			buf = strconv.AppendFloat(buf[:0], p.X, 'g', -1, 64)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, p.Y, 'g', -1, 64)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(p.Frame), 10)
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// WriteTracks writes ts to path atomically (no partial file on failure).
func WriteTracks(path string, ts *TrackSet) error {
	if err := ts.Validate(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return EncodeTracks(w, ts) })
}
