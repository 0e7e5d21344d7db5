package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/fileerr"
)

// The FBMS ground-truth definition file (<seq>Def.dat), as read by MoSegEval
// (Ochs, Malik, Brox, TPAMI 2014; Brox & Malik, ECCV 2010):
//
//	Ground truth definition file; do not change!
//	                                              (blank)
//	Total number of regions:
//	2
//	Scale of region 0:
//	0
//	Scale of region 1:
//	16777215
//	                                              (blank)
//	Confusion penality matrix:                    (sic)
//	0 1
//	1 0
//	                                              (blank)
//	Total number of frames in this shot:
//	20
//	Total number of labeled frames for this shot:
//	2
//	Frame number:
//	0
//	File name:
//	cars1_01_gt.ppm
//	Input file name:
//	cars1_01.ppm
//	Frame number:
//	...
//
// MoSegEval skips the header and label lines with getline and reads the
// numbers with operator>>. The "scale" of region i is its colour in the label
// images: R·65536 + G·256 + B for .ppm files, the grey value for .pgm files.
// Row j of the penalty matrix is Penalty[j]. Label image names are relative
// to the folder of the Def.dat; for a .ppm the .pgm of the same name holds
// the per-pixel probability·255 of its label.
//
// Frame numbers are 0-based in FBMS (the first image, <seq>_0001.jpg or
// <seq>_01.jpg, is frame 0; MoSegEval compares them directly with the 0-based
// frames of Tracks*.dat), so LabelledFrame.Frame is the Def.dat number as is.
//
// Real FBMS files come in two forms that MoSegEval both reads: before each
// region's colour it skips exactly one line (getline after the previous
// number), which is either the title "Scale of region N:" or an empty line;
// "Confusion penality matrix" is written with or without a colon. ParseDef
// reads the same: exactly one line of any content before each colour.
//
// ParseDef is stricter than MoSegEval where MoSegEval would silently misread:
// it checks the other label lines (case-insensitive prefixes "Total number
// of regions", "Confusion penal", "Total number of frames", "Total number of
// labeled frames", "Frame number", "File name", "Input file name"),
// tolerates extra blank lines around them, and requires distinct colours in
// [0, 2^24), finite penalties, frame numbers strictly increasing within
// [0, total frames) and label files ending in .ppm or .pgm.

// DefHeader is the first line MoSegEval expects (it is not checked on reading).
const DefHeader = "Ground truth definition file; do not change!"

// maxDefBytes bounds the size of a Def.dat (real ones are a few kilobytes).
const maxDefBytes = 64 << 20

type defReader struct {
	name  string
	lines []string
	i     int // index of the next line
	last  int // number of the last line (an empty piece after a final newline is no line)
}

func (d *defReader) errf(line int, format string, args ...any) error {
	return fileerr.New(d.name, line, format, args...)
}

// nonBlank returns the next non-blank line (trimmed) and its 1-based number.
func (d *defReader) nonBlank(what string) (string, int, error) {
	for d.i < len(d.lines) {
		s := strings.TrimSpace(d.lines[d.i])
		d.i++
		if s != "" {
			return s, d.i, nil
		}
	}
	return "", d.last, d.errf(d.last, "unexpected end of file, expected %s", what)
}

// skipLine skips the next line whatever it holds (MoSegEval's getline).
func (d *defReader) skipLine() {
	if d.i < len(d.lines) {
		d.i++
	}
}

func (d *defReader) label(prefix string) error {
	s, ln, err := d.nonBlank(fmt.Sprintf("%q", prefix))
	if err != nil {
		return err
	}
	if !strings.HasPrefix(strings.ToLower(s), strings.ToLower(prefix)) {
		return d.errf(ln, "expected %q, found %q", prefix, clip(s))
	}
	return nil
}

func (d *defReader) int(what string, min, max int) (int, int, error) {
	s, ln, err := d.nonBlank(what)
	if err != nil {
		return 0, ln, err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, ln, d.errf(ln, "%s: %q is not an integer", what, clip(s))
	}
	if v < int64(min) || v > int64(max) {
		return 0, ln, d.errf(ln, "%s %d out of range [%d, %d]", what, v, min, max)
	}
	return int(v), ln, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// ParseDef reads a Def.dat from r without loading the label images
// (LabelledFrame.Width/Height/Region/Prob stay empty; see LoadLabelImages).
// name is used in errors and stored as GroundTruth.Path.
func ParseDef(r io.Reader, name string) (*GroundTruth, error) {
	d, err := newDefReader(r, name)
	if err != nil {
		return nil, err
	}
	gt := &GroundTruth{Path: name}
	if gt.Colors, err = d.regions(); err != nil {
		return nil, err
	}
	if gt.Penalty, err = d.penalty(len(gt.Colors)); err != nil {
		return nil, err
	}
	if err := d.label("Total number of frames"); err != nil {
		return nil, err
	}
	if gt.TotalFrames, _, err = d.int("total number of frames", 1, math.MaxInt32); err != nil {
		return nil, err
	}
	if gt.Frames, err = d.labelledFrames(gt.TotalFrames); err != nil {
		return nil, err
	}
	if err := d.end(len(gt.Frames)); err != nil {
		return nil, err
	}
	return gt, nil
}

// newDefReader reads the whole file (at most maxDefBytes), with CRLF line
// ends as LF, positioned after the free-text header line.
func newDefReader(r io.Reader, name string) (*defReader, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxDefBytes+1))
	if err != nil {
		return nil, fileerr.New(name, 0, "read error: %v", err)
	}
	if len(data) > maxDefBytes {
		return nil, fileerr.New(name, 0, "larger than %d bytes, not a Def.dat", maxDefBytes)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	d := &defReader{name: name, lines: strings.Split(text, "\n")}
	d.last = len(d.lines)
	if d.last > 1 && d.lines[d.last-1] == "" {
		d.last--
	}
	if len(data) == 0 {
		return nil, d.errf(1, "empty file, expected %q", DefHeader)
	}
	d.i = 1 // line 1 is the free-text header
	return d, nil
}

// regions reads the number of regions and their colours (distinct).
func (d *defReader) regions() ([]int, error) {
	if err := d.label("Total number of regions"); err != nil {
		return nil, err
	}
	nr, _, err := d.int("number of regions", 1, 1<<24)
	if err != nil {
		return nil, err
	}
	seen := make(map[int]int)
	colors := make([]int, 0, min(nr, 256))
	for k := 0; k < nr; k++ {
		// MoSegEval: getline (rest of the number's line), getline (one
		// line: the "Scale of region k:" title or an empty line), >> colour.
		d.skipLine()
		c, ln, err := d.int(fmt.Sprintf("colour of region %d", k), 0, 1<<24-1)
		if err != nil {
			var fe *fileerr.Error
			if errors.As(err, &fe) && strings.Contains(fe.Msg, "is not an integer") {
				fe.Msg += " (MoSegEval skips exactly one line, a \"Scale of region\" title or an empty line, before each colour)"
			}
			return nil, err
		}
		if j, dup := seen[c]; dup {
			return nil, d.errf(ln, "region %d has the same colour %d as region %d", k, c, j)
		}
		seen[c] = k
		colors = append(colors, c)
	}
	return colors, nil
}

// penalty reads the nr×nr confusion penalty matrix: nr·nr finite numbers,
// any number per line (MoSegEval reads them with >>).
func (d *defReader) penalty(nr int) ([][]float64, error) {
	if err := d.label("Confusion penal"); err != nil {
		return nil, err
	}
	pen := make([][]float64, 0, min(nr, 256))
	row := make([]float64, 0, min(nr, 256))
	for len(pen) < nr {
		s, ln, err := d.nonBlank(fmt.Sprintf("row %d of the %dx%d penalty matrix", len(pen), nr, nr))
		if err != nil {
			return nil, err
		}
		for _, f := range strings.Fields(s) {
			if len(pen) == nr {
				return nil, d.errf(ln, "more than %dx%d values in the penalty matrix", nr, nr)
			}
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, d.errf(ln, "penalty %q is not a finite number", clip(f))
			}
			row = append(row, v)
			if len(row) == nr {
				pen = append(pen, row)
				row = make([]float64, 0, min(nr, 256))
			}
		}
	}
	return pen, nil
}

// labelledFrames reads the number of labelled frames and their entries;
// frame numbers lie in [0, total) and increase.
func (d *defReader) labelledFrames(total int) ([]LabelledFrame, error) {
	if err := d.label("Total number of labeled frames"); err != nil {
		return nil, err
	}
	nl, _, err := d.int("number of labelled frames", 0, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	frames := make([]LabelledFrame, 0, min(nl, 1024))
	for k := 0; k < nl; k++ {
		prev := -1
		if k > 0 {
			prev = frames[k-1].Frame
		}
		lf, err := d.labelledFrame(total, prev)
		if err != nil {
			return nil, err
		}
		frames = append(frames, lf)
	}
	return frames, nil
}

// labelledFrame reads one entry: frame number (in [0, total), above prev),
// label image (.ppm or .pgm, no white space) and input image name.
func (d *defReader) labelledFrame(total, prev int) (LabelledFrame, error) {
	if err := d.label("Frame number"); err != nil {
		return LabelledFrame{}, err
	}
	f, ln, err := d.int("frame number", 0, math.MaxInt32)
	if err != nil {
		return LabelledFrame{}, err
	}
	if f >= total {
		return LabelledFrame{}, d.errf(ln, "frame number %d outside [0, %d) (frame numbers are 0-based)", f, total)
	}
	if prev >= 0 && f <= prev {
		return LabelledFrame{}, d.errf(ln, "frame numbers must increase: %d after %d", f, prev)
	}
	if err := d.label("File name"); err != nil {
		return LabelledFrame{}, err
	}
	file, ln, err := d.nonBlank("label image file name")
	if err != nil {
		return LabelledFrame{}, err
	}
	if strings.ContainsAny(file, " \t") {
		return LabelledFrame{}, d.errf(ln, "file name %q contains white space", clip(file))
	}
	if ext := filepath.Ext(file); ext != ".ppm" && ext != ".pgm" {
		return LabelledFrame{}, d.errf(ln, "label image %q must be a .ppm or .pgm file", clip(file))
	}
	if err := d.label("Input file name"); err != nil {
		return LabelledFrame{}, err
	}
	// The input image name is one line, free text (MoSegEval ignores it).
	input := ""
	if d.i < len(d.lines) {
		input = strings.TrimSpace(d.lines[d.i])
		d.i++
	}
	return LabelledFrame{Frame: f, File: file, Input: input}, nil
}

// end refuses anything but blank lines after the nl labelled frames.
func (d *defReader) end(nl int) error {
	for d.i < len(d.lines) {
		if s := strings.TrimSpace(d.lines[d.i]); s != "" {
			return d.errf(d.i+1, "unexpected text %q after the last of %d labelled frames", clip(s), nl)
		}
		d.i++
	}
	return nil
}

// LabelImageLoader opens a label image named in a Def.dat; LoadLabelImages
// uses os.Open relative to the Def.dat folder, tests may inject their own.
type LabelImageLoader func(name string) (io.ReadCloser, error)

// LoadLabelImages decodes the label images of gt, resolving
// LabelledFrame.File against dir (absolute names are used as they are), and
// fills Width, Height, Region and Prob:
//   - .ppm: colour R·65536+G·256+B (8-bit ppm only); Prob from the .pgm of
//     the same name, sample/255 as in MoSegEval (sample/maxval for 16-bit),
//     or 1 everywhere when that .pgm does not exist;
//   - .pgm: the grey value (8 or 16 bit); Prob 1.
//
// Region[i] is the index of the pixel's colour in gt.Colors, or -1 for a
// colour that is no region (MoSegEval maps such pixels to region 0 because
// its colour table is zero-initialised; package eval does the same). Each
// label image with such colours adds one sentence to gt.Warnings naming the
// file, the frame, the pixel count and the colours.
// All label images must have the same size.
func LoadLabelImages(gt *GroundTruth, dir string) error {
	return loadLabelImages(gt, func(name string) (io.ReadCloser, error) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return os.Open(name)
	}, func(name string) string {
		if filepath.IsAbs(name) {
			return name
		}
		return filepath.Join(dir, name)
	})
}

func loadLabelImages(gt *GroundTruth, open LabelImageLoader, display func(string) string) error {
	index := make(map[int]int, len(gt.Colors))
	for i, c := range gt.Colors {
		index[c] = i
	}
	decode := func(name string) (*PNM, error) {
		rc, err := open(name)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return DecodePNM(rc, display(name))
	}
	unlisted := map[int]int{} // colour → pixels, of the current frame
	for k := range gt.Frames {
		lf := &gt.Frames[k]
		img, err := decode(lf.File)
		if err != nil {
			return fmt.Errorf("%s: labelled frame %d: %w", gt.Path, lf.Frame, err)
		}
		isPPM := strings.EqualFold(filepath.Ext(lf.File), ".ppm")
		switch {
		case isPPM && img.Channels != 3:
			return fmt.Errorf("%s: a .ppm label image must be a colour (P6/P3) image", display(lf.File))
		case !isPPM && img.Channels != 1:
			return fmt.Errorf("%s: a .pgm label image must be a grey (P5/P2) image", display(lf.File))
		case isPPM && img.MaxVal > 255:
			return fmt.Errorf("%s: 16-bit ppm label images are not supported (colour = R·65536+G·256+B needs 8-bit samples)", display(lf.File))
		}
		if k > 0 && (img.Width != gt.Frames[0].Width || img.Height != gt.Frames[0].Height) {
			return fmt.Errorf("%s is %dx%d but %s is %dx%d: label images must have the same size",
				display(lf.File), img.Width, img.Height, display(gt.Frames[0].File), gt.Frames[0].Width, gt.Frames[0].Height)
		}
		n := img.Width * img.Height
		lf.Width, lf.Height = img.Width, img.Height
		lf.Region = make([]int, n)
		lf.Prob = make([]float64, n)
		last, lastRegion := -1, -1
		for i := 0; i < n; i++ {
			var c int
			if isPPM {
				c = int(img.Pix[3*i])<<16 | int(img.Pix[3*i+1])<<8 | int(img.Pix[3*i+2])
			} else {
				c = int(img.Pix[i])
			}
			if c != last {
				last = c
				if r, ok := index[c]; ok {
					lastRegion = r
				} else {
					lastRegion = -1
				}
			}
			lf.Region[i] = lastRegion
			lf.Prob[i] = 1
			if lastRegion < 0 {
				unlisted[c]++
			}
		}
		if len(unlisted) > 0 {
			gt.Warnings = append(gt.Warnings, unlistedWarning(display(lf.File), lf.Frame, unlisted, gt.Colors[0], isPPM))
			clear(unlisted)
		}
		if !isPPM {
			continue
		}
		probName := strings.TrimSuffix(lf.File, filepath.Ext(lf.File)) + ".pgm"
		prob, err := decode(probName)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: probability image of labelled frame %d: %w", gt.Path, lf.Frame, err)
		}
		if prob.Channels != 1 {
			return fmt.Errorf("%s: a probability image must be a grey (P5/P2) image", display(probName))
		}
		if prob.Width != img.Width || prob.Height != img.Height {
			return fmt.Errorf("%s is %dx%d but its label image %s is %dx%d", display(probName),
				prob.Width, prob.Height, display(lf.File), img.Width, img.Height)
		}
		scale := 255.0
		if prob.MaxVal > 255 {
			scale = float64(prob.MaxVal)
		}
		for i := 0; i < n; i++ {
			lf.Prob[i] = float64(prob.Pix[i]) / scale
		}
	}
	return nil
}

// unlistedWarning describes the pixels of one label image whose colour is
// no region of the Def.dat. MoSegEval looks colours up in a table that is
// zero-initialised in practice, so such pixels belong to region 0 there;
// the evaluation (package eval) does the same.
func unlistedWarning(file string, frame int, unlisted map[int]int, color0 int, isPPM bool) string {
	colours := make([]int, 0, len(unlisted))
	total := 0
	for c, n := range unlisted {
		colours = append(colours, c)
		total += n
	}
	slices.Sort(colours)
	var list []string
	for i, c := range colours {
		if i == 5 {
			list = append(list, fmt.Sprintf("and %d more", len(colours)-5))
			break
		}
		if isPPM {
			list = append(list, fmt.Sprintf("%d (RGB %d,%d,%d) ×%d", c, c>>16, (c>>8)&255, c&255, unlisted[c]))
		} else {
			list = append(list, fmt.Sprintf("%d ×%d", c, unlisted[c]))
		}
	}
	return fmt.Sprintf("%s (labelled frame %d): %d pixels have colours the Def.dat does not list: %s; they count as region 0 (colour %d), as in MoSegEval",
		file, frame, total, strings.Join(list, ", "), color0)
}

// ReadDef reads a Def.dat and its label images (see ParseDef and
// LoadLabelImages).
func ReadDef(path string) (*GroundTruth, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	gt, err := ParseDef(f, path)
	f.Close()
	if err != nil {
		return nil, err
	}
	if err := LoadLabelImages(gt, filepath.Dir(path)); err != nil {
		return nil, err
	}
	return gt, nil
}

// ValidateDef checks that gt can be written as a Def.dat that reads back
// unchanged: see WriteDef.
func ValidateDef(gt *GroundTruth) error {
	if len(gt.Colors) == 0 {
		return fmt.Errorf("ground truth has no regions")
	}
	seen := make(map[int]int)
	for i, c := range gt.Colors {
		if c < 0 || c >= 1<<24 {
			return fmt.Errorf("colour %d of region %d outside [0, 2^24)", c, i)
		}
		if j, dup := seen[c]; dup {
			return fmt.Errorf("regions %d and %d have the same colour %d", j, i, c)
		}
		seen[c] = i
	}
	if len(gt.Penalty) != len(gt.Colors) {
		return fmt.Errorf("penalty matrix has %d rows for %d regions", len(gt.Penalty), len(gt.Colors))
	}
	for j, row := range gt.Penalty {
		if len(row) != len(gt.Colors) {
			return fmt.Errorf("penalty row %d has %d values for %d regions", j, len(row), len(gt.Colors))
		}
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("penalty row %d holds %v", j, v)
			}
		}
	}
	if gt.TotalFrames < 1 {
		return fmt.Errorf("total number of frames %d < 1", gt.TotalFrames)
	}
	for k, lf := range gt.Frames {
		if lf.Frame < 0 || lf.Frame >= gt.TotalFrames {
			return fmt.Errorf("labelled frame %d outside [0, %d)", lf.Frame, gt.TotalFrames)
		}
		if k > 0 && lf.Frame <= gt.Frames[k-1].Frame {
			return fmt.Errorf("labelled frames must increase: %d after %d", lf.Frame, gt.Frames[k-1].Frame)
		}
		ext := filepath.Ext(lf.File)
		if (ext != ".ppm" && ext != ".pgm") || !filepath.IsLocal(lf.File) || strings.ContainsAny(lf.File, " \t\r\n") {
			return fmt.Errorf("labelled frame %d: file name %q must be a relative .ppm or .pgm path without white space", lf.Frame, lf.File)
		}
		if strings.ContainsAny(lf.Input, "\r\n") {
			return fmt.Errorf("labelled frame %d: input file name %q spans lines", lf.Frame, lf.Input)
		}
		if ext == ".pgm" {
			for i, c := range gt.Colors {
				if c > 255 {
					return fmt.Errorf("labelled frame %d: .pgm label image cannot hold colour %d of region %d (> 255)", lf.Frame, c, i)
				}
			}
		}
		n := lf.Width * lf.Height
		if lf.Width < 1 || lf.Height < 1 || len(lf.Region) != n || len(lf.Prob) != n {
			return fmt.Errorf("labelled frame %d: %dx%d image with %d regions and %d probabilities", lf.Frame, lf.Width, lf.Height, len(lf.Region), len(lf.Prob))
		}
		for i := 0; i < n; i++ {
			if r := lf.Region[i]; r < -1 || r >= len(gt.Colors) {
				return fmt.Errorf("labelled frame %d: pixel (%d,%d) has region %d of %d", lf.Frame, i%lf.Width, i/lf.Width, r, len(gt.Colors))
			}
			if p := lf.Prob[i]; !(p >= 0 && p <= 1) {
				return fmt.Errorf("labelled frame %d: pixel (%d,%d) has probability %v outside [0,1]", lf.Frame, i%lf.Width, i/lf.Width, p)
			}
		}
		if k > 0 && (lf.Width != gt.Frames[0].Width || lf.Height != gt.Frames[0].Height) {
			return fmt.Errorf("labelled frame %d is %dx%d but frame %d is %dx%d", lf.Frame, lf.Width, lf.Height, gt.Frames[0].Frame, gt.Frames[0].Width, gt.Frames[0].Height)
		}
	}
	return nil
}

// EncodeDef writes the Def.dat text of gt (the layout of ParseDef; numbers in
// the shortest form that reads back exactly). Input file names left empty
// are written as the label file name with a trailing "_gt" removed.
func EncodeDef(w io.Writer, gt *GroundTruth) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n\nTotal number of regions:\n%d\n", DefHeader, len(gt.Colors))
	for i, c := range gt.Colors {
		fmt.Fprintf(bw, "Scale of region %d:\n%d\n", i, c)
	}
	bw.WriteString("\nConfusion penality matrix:\n")
	for _, row := range gt.Penalty {
		for i, v := range row {
			if i > 0 {
				bw.WriteByte(' ')
			}
			bw.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		bw.WriteByte('\n')
	}
	fmt.Fprintf(bw, "\nTotal number of frames in this shot:\n%d\n", gt.TotalFrames)
	fmt.Fprintf(bw, "Total number of labeled frames for this shot:\n%d\n", len(gt.Frames))
	for _, lf := range gt.Frames {
		input := lf.Input
		if input == "" {
			ext := filepath.Ext(lf.File)
			input = strings.TrimSuffix(strings.TrimSuffix(filepath.ToSlash(lf.File), ext), "_gt") + ext
		}
		fmt.Fprintf(bw, "Frame number:\n%d\nFile name:\n%s\nInput file name:\n%s\n", lf.Frame, filepath.ToSlash(lf.File), input)
	}
	return bw.Flush()
}

// labelImages renders the label image (and, for a .ppm with any probability
// below 1, the probability .pgm) of one labelled frame. Pixels without a
// region get the smallest colour that is no region's colour, so they read
// back as -1. Probabilities are stored as round(p·255).
func labelImages(gt *GroundTruth, lf *LabelledFrame) (label, prob []byte, err error) {
	isPPM := filepath.Ext(lf.File) == ".ppm"
	free := 0
	used := make(map[int]bool, len(gt.Colors))
	for _, c := range gt.Colors {
		used[c] = true
	}
	for used[free] {
		free++
	}
	n := lf.Width * lf.Height
	var buf bytes.Buffer
	hasNone := false
	for _, r := range lf.Region {
		if r < 0 {
			hasNone = true
			break
		}
	}
	if isPPM {
		fmt.Fprintf(&buf, "P6\n%d %d\n255\n", lf.Width, lf.Height)
		pix := make([]byte, 3*n)
		for i, r := range lf.Region {
			c := free
			if r >= 0 {
				c = gt.Colors[r]
			}
			pix[3*i], pix[3*i+1], pix[3*i+2] = byte(c>>16), byte(c>>8), byte(c)
		}
		buf.Write(pix)
	} else {
		if hasNone && free > 255 {
			return nil, nil, fmt.Errorf("labelled frame %d: pixels without region but no free grey value", lf.Frame)
		}
		fmt.Fprintf(&buf, "P5\n%d %d\n255\n", lf.Width, lf.Height)
		pix := make([]byte, n)
		for i, r := range lf.Region {
			c := free
			if r >= 0 {
				c = gt.Colors[r]
			}
			pix[i] = byte(c)
		}
		buf.Write(pix)
	}
	label = buf.Bytes()
	if !isPPM {
		return label, nil, nil
	}
	needProb := false
	for _, p := range lf.Prob {
		if p < 1 {
			needProb = true
			break
		}
	}
	if !needProb {
		return label, nil, nil
	}
	var pb bytes.Buffer
	fmt.Fprintf(&pb, "P5\n%d %d\n255\n", lf.Width, lf.Height)
	pix := make([]byte, n)
	for i, p := range lf.Prob {
		pix[i] = byte(math.Round(p * 255))
	}
	pb.Write(pix)
	return label, pb.Bytes(), nil
}

// WriteDef writes gt as a Def.dat at path together with its label images,
// named by LabelledFrame.File relative to the folder of path: a .ppm colour
// image (plus the .pgm probability image of the same name when any
// probability is below 1; a stale one is removed otherwise) or a .pgm grey
// image (all colours ≤ 255). Everything is validated first (ValidateDef);
// each file is written atomically and the Def.dat last, so a reader never
// finds a Def.dat whose images are missing. ReadDef(path) gives back gt
// (probabilities quantised to multiples of 1/255).
func WriteDef(path string, gt *GroundTruth) error {
	if err := ValidateDef(gt); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	for k := range gt.Frames {
		lf := &gt.Frames[k]
		label, prob, err := labelImages(gt, lf)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		p := filepath.Join(dir, lf.File)
		if err := atomicfile.WriteBytes(p, label); err != nil {
			return err
		}
		if filepath.Ext(lf.File) == ".ppm" {
			pp := strings.TrimSuffix(p, ".ppm") + ".pgm"
			if prob != nil {
				if err := atomicfile.WriteBytes(pp, prob); err != nil {
					return err
				}
			} else if err := os.Remove(pp); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove stale probability image: %w", err)
			}
		}
	}
	return atomicfile.Write(path, func(w io.Writer) error { return EncodeDef(w, gt) })
}
