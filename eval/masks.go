package eval

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/densify/densify/dataset"
)

// LabelImage is a dense segmentation of one frame: Labels[y*Width+x] is the
// label value of the pixel (any int: grey value, colour, palette index).
type LabelImage struct {
	Width, Height int
	Labels        []int
}

// MaskSource returns the mask of a (0-based) frame, or nil when the frame has
// no mask (its pixels then count as not covered).
type MaskSource func(frame int) (*LabelImage, error)

// Masks scores dense masks keyed by 0-based frame number; see MasksFunc.
func Masks(gt *dataset.GroundTruth, masks map[int]*LabelImage, opt Options) (*Result, error) {
	return MasksFunc(gt, func(f int) (*LabelImage, error) { return masks[f], nil }, opt)
}

// MasksFunc scores dense masks with exactly the accumulation of Sequence,
// every pixel (x, y) of every used labelled frame being a one-point track at
// (x, y) whose label is the mask value; without building tracks. The
// evaluated range is Options.EvalFrames (0: all labelled frames). Clusters
// are the distinct mask values over all frames, cluster c being the c-th
// smallest value (Result.ClusterLabels); Options.CompactLabels is implied.
// A mask whose size differs from its ground-truth frame is an error.
func MasksFunc(gt *dataset.GroundTruth, src MaskSource, opt Options) (*Result, error) {
	if err := checkGT(gt); err != nil {
		return nil, err
	}
	a := newAccum(len(gt.Colors))
	first := map[int]int{} // label value → cluster id in order of appearance
	var values []int
	var missing []int // labelled frames without a mask
	// thick holds each used frame's overlaps over the pixels outside the
	// thin-part band (JMeanAwayFromThin), thin those over the thin parts
	// themselves (JMeanWithThinParts), holes those over the object's holes
	// (JMeanWithoutHoles).
	var thick, thin, holes []frameAcc
	e := opt.EvalFrames
	for _, fi := range usedFrames(gt, e) {
		lf := &gt.Frames[fi]
		m, err := src(lf.Frame)
		if err != nil {
			return nil, err
		}
		fa := a.beginFrame(lf)
		thick = append(thick, frameAcc{})
		thin = append(thin, frameAcc{})
		holes = append(holes, frameAcc{})
		if m == nil {
			missing = append(missing, lf.Frame)
			continue
		}
		if m.Width != lf.Width || m.Height != lf.Height || len(m.Labels) != m.Width*m.Height {
			return nil, fmt.Errorf("eval: mask of frame %d is %dx%d (%d labels), ground truth %s is %dx%d",
				lf.Frame, m.Width, m.Height, len(m.Labels), lf.File, lf.Width, lf.Height)
		}
		parts, band := lf.ThinParts()
		inHole := lf.Holes()
		ta, tn, th := &thick[len(thick)-1], &thin[len(thin)-1], &holes[len(holes)-1]
		last, row, cid := 0, []float64(nil), 0
		for k, v := range m.Labels {
			if row == nil || v != last {
				id, ok := first[v]
				if !ok {
					if len(values) == MaxClusters {
						return nil, fmt.Errorf("eval: mask of frame %d: more than %d distinct label values (clusters); a segmentation has far fewer (is this a colour image?)", lf.Frame, MaxClusters)
					}
					id = len(values)
					first[v] = id
					values = append(values, v)
				}
				for len(fa.overlap) <= id {
					fa.overlap = append(fa.overlap, make([]float64, a.nR))
				}
				last, row, cid = v, fa.overlap[id], id
			}
			row[max(lf.Region[k], 0)] += lf.Prob[k]
			if !band[k] {
				ta.add(a.nR, max(lf.Region[k], 0), cid, lf.Prob[k])
			}
			if parts[k] {
				tn.add(a.nR, lf.Region[k], cid, lf.Prob[k])
			}
			if inHole[k] {
				th.add(a.nR, max(lf.Region[k], 0), cid, lf.Prob[k])
			}
		}
		a.coverage += int64(len(m.Labels))
	}
	if len(missing) > 0 && !opt.AllowMissingMasks {
		return nil, fmt.Errorf("eval: no mask for %d of %d labelled frames: %s (allow them with --allow-missing-masks, Options.AllowMissingMasks: they then count as uncovered)",
			len(missing), a.usedFrames, frameList(missing))
	}
	if err := checkTable(gt, len(values)); err != nil {
		return nil, err
	}
	// Renumber clusters by increasing label value.
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	perm := make([]int, len(values)) // new id → old id
	for c, v := range sorted {
		perm[c] = first[v]
	}
	// Frames are closed only now, with the final cluster order, so that the
	// sums are added in exactly the order of the track path.
	for i := range a.frames {
		fa := &a.frames[i]
		fa.renumber(perm, a.nR)
		a.endFrame(fa)
		thick[i].renumber(perm, a.nR)
		thick[i].sizes(a.nR)
		thin[i].renumber(perm, a.nR)
		holes[i].renumber(perm, a.nR)
	}
	r, fg, err := a.result(gt, numbering{labels: sorted}, max(e, 0), opt.threshold())
	if err != nil {
		return nil, err
	}
	j := fg.meanJ(thick)
	r.JMeanAwayFromThin = &j
	jt := fg.meanJWithThinParts(a.frames, thin)
	r.JMeanWithThinParts = &jt
	jh := fg.meanJWithoutHoles(a.frames, holes)
	r.JMeanWithoutHoles = &jh
	if len(missing) > 0 {
		r.MissingMasks = missing
		r.Warnings = append(slices.Clone(r.Warnings), fmt.Sprintf("no mask for %d of %d labelled frames (%s): scored as uncovered", len(missing), a.usedFrames, frameList(missing)))
	}
	return r, nil
}

// frameList writes frame numbers as "3, 7, 12" (at most 20, then "… (N more)").
func frameList(frames []int) string {
	var b strings.Builder
	for i, f := range frames {
		if i == 20 {
			fmt.Fprintf(&b, " … (%d more)", len(frames)-20)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(f))
	}
	return b.String()
}

func permute[T any](s []T, perm []int) []T {
	out := make([]T, len(perm))
	for c, old := range perm {
		out[c] = s[old]
	}
	return out
}

// renumber gives the frame's overlap table a row for each of the len(perm)
// clusters and puts them in the order perm (new id → old id).
func (fa *frameAcc) renumber(perm []int, nR int) {
	for len(fa.overlap) < len(perm) {
		fa.overlap = append(fa.overlap, make([]float64, nR))
	}
	fa.overlap = permute(fa.overlap, perm)
}

// MaskFrame parses the frame number of a mask file name (extension
// removed): a name that is all digits is a DAVIS-style 0-based frame number
// ("00000.png" → 0); a name ending in "_NNNN" is FBMS-style 1-based
// ("cars1_0001.png" → 0); any other name ending in digits is read as 0-based.
// ok is false for names without trailing digits.
func MaskFrame(name string) (frame int, ok bool) {
	stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	i := len(stem)
	for i > 0 && stem[i-1] >= '0' && stem[i-1] <= '9' {
		i--
	}
	if i == len(stem) || len(stem)-i > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(stem[i:])
	if err != nil {
		return 0, false
	}
	if i > 0 && stem[i-1] == '_' {
		return n - 1, n >= 1
	}
	return n, true
}

// ReadMaskDir reads the PNG masks of a folder, keyed by 0-based frame number
// (see MaskFrame for the naming). With gt non-nil only the labelled frames
// are decoded. The label of a pixel is its palette index for paletted PNGs,
// its grey value for grey PNGs (8 or 16 bit) and R·65536+G·256+B (8 bit per
// channel) otherwise; alpha is ignored. Files without a frame number are
// skipped; two files for the same frame are an error.
func ReadMaskDir(dir string, gt *dataset.GroundTruth) (map[int]*LabelImage, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	want := map[int]bool{}
	if gt != nil {
		for i := range gt.Frames {
			want[gt.Frames[i].Frame] = true
		}
	}
	out := map[int]*LabelImage{}
	from := map[int]string{}
	for _, en := range entries {
		name := en.Name()
		if en.IsDir() || !strings.EqualFold(filepath.Ext(name), ".png") {
			continue
		}
		f, ok := MaskFrame(name)
		if !ok {
			continue
		}
		if prev, dup := from[f]; dup {
			return nil, fmt.Errorf("%s: both %s and %s are masks of frame %d", dir, prev, name, f)
		}
		from[f] = name
		if gt != nil && !want[f] {
			continue
		}
		m, err := ReadMask(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out[f] = m
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no PNG mask of a labelled frame", dir)
	}
	return out, nil
}

// ReadMask decodes one PNG mask into a LabelImage (labels as in ReadMaskDir).
func ReadMask(path string) (*LabelImage, error) {
	img, err := dataset.ReadImageFormat(path, "png")
	if err != nil {
		return nil, err
	}
	return LabelsOf(img), nil
}

// LabelsOf converts an image into label values (see ReadMaskDir).
func LabelsOf(img image.Image) *LabelImage {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	m := &LabelImage{Width: w, Height: h, Labels: make([]int, w*h)}
	switch im := img.(type) {
	case *image.Paletted:
		for y := 0; y < h; y++ {
			o := im.PixOffset(b.Min.X, b.Min.Y+y)
			for x, v := range im.Pix[o : o+w] {
				m.Labels[y*w+x] = int(v)
			}
		}
	case *image.Gray:
		for y := 0; y < h; y++ {
			o := im.PixOffset(b.Min.X, b.Min.Y+y)
			for x, v := range im.Pix[o : o+w] {
				m.Labels[y*w+x] = int(v)
			}
		}
	case *image.NRGBA:
		for y := 0; y < h; y++ {
			o := im.PixOffset(b.Min.X, b.Min.Y+y)
			for x := 0; x < w; x++ {
				p := im.Pix[o+4*x : o+4*x+3]
				m.Labels[y*w+x] = int(p[0])<<16 | int(p[1])<<8 | int(p[2])
			}
		}
	case *image.RGBA:
		for y := 0; y < h; y++ {
			o := im.PixOffset(b.Min.X, b.Min.Y+y)
			for x := 0; x < w; x++ {
				p := im.Pix[o+4*x : o+4*x+3]
				m.Labels[y*w+x] = int(p[0])<<16 | int(p[1])<<8 | int(p[2])
			}
		}
	case *image.Gray16:
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				m.Labels[y*w+x] = int(im.Gray16At(b.Min.X+x, b.Min.Y+y).Y)
			}
		}
	default:
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
				m.Labels[y*w+x] = int(r>>8)<<16 | int(g>>8)<<8 | int(bl>>8)
			}
		}
	}
	return m
}
