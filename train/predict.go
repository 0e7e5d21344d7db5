package train

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/models"
	"github.com/densify/densify/refine"
	"github.com/densify/densify/unet"
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

// PredictOptions controls Predict.
type PredictOptions struct {
	// Prob also writes prob/NNNNN.png: the foreground probability ×255 (binary:
	// σ(z); multi-label: 1 − p(background)).
	Prob bool
	// Overlay also writes overlay/NNNNN.png: the frame with the mask tinted.
	Overlay bool
	// Scale resizes frames before the network (0: the scale the model was
	// trained at, from its checkpoint; 1 for checkpoints without that record).
	// Logits are resized back bilinearly, so masks always have the frame's size.
	Scale float64
	// Preset, if not empty, must be the checkpoint's preset (guards against
	// using a model of another architecture by mistake).
	Preset string
	// PriorShift divides the odds of every class against the background by
	// the prior shift its class-balanced training introduced
	// (CheckpointInfo.PriorShift; trainData.PriorShift): the Bayes decision
	// for the data's own class frequencies. Off by default: measured on the
	// ten DAVIS dev sequences (scale 0.25, 6 epochs) it raised the mean J of
	// models trained on ground-truth labels by 1.9 points but lowered it by
	// 0.8 with the segmentation's labels, whose foreground share is often far
	// too small (a shift of 95 on cows), so the correction erases objects.
	PriorShift bool
	// Refine, if set, refines every binary mask from the frame, the mask and
	// the foreground probabilities (refine.ProbCut, or refine.TrimapCut with
	// cmd/densify's video.GrabCut; cmd/densify picks one by name); the
	// probability maps written are the ones the mask was decided from (the
	// network's, or the fused ones with Temporal). Masks of multi-label
	// models are kept as predicted, with a note on Progress.
	Refine refine.Refiner
	// Temporal, if set with TemporalOptions.Radius > 0, fuses every binary
	// model's probability map with those of the Radius frames on each side,
	// carried along this optical flow (refine.Temporal; cmd/densify passes
	// video's DIS flow), before the mask is thresholded and refined; prob/
	// then holds the fused maps. Multi-label models are not fused.
	Temporal        refine.Flow
	TemporalOptions refine.TemporalOptions
	// Mirror averages the posteriors of the frame and of its mirror image
	// (flipped back), test-time augmentation matching training's random
	// horizontal flips: p(x) = ½ (f(I)(x) + f(mirror I)(mirror x)). It
	// doubles the network's work per frame; on by default (cmd/densify,
	// the pipeline) because it raised the mean J on the DAVIS dev
	// sequences.
	Mirror   bool
	Device   string // "cpu" (default), "cuda", "auto"
	Threads  int    // ≤ 0: all cores
	Progress io.Writer
}

// Validate checks the settings before any work: scale in [0, MaxScale]
// (0 = the checkpoint's), threads in [0, MaxThreads], a known preset when
// one is given (the error lists the presets) and a known device.
func (o PredictOptions) Validate() error {
	switch {
	case !(o.Scale >= 0 && o.Scale <= MaxScale):
		return fmt.Errorf("predict: scale must be in (0, %g] (0 = the training scale), got %v", MaxScale, o.Scale)
	case o.Threads < 0 || o.Threads > MaxThreads:
		return fmt.Errorf("predict: threads must be in [0, %d] (0 = all cores), got %d", MaxThreads, o.Threads)
	}
	if o.Preset != "" {
		if _, err := models.Lookup(o.Preset); err != nil {
			return fmt.Errorf("predict: %w", err)
		}
	}
	if o.Refine != nil {
		if err := o.Refine.Validate(); err != nil {
			return fmt.Errorf("predict: %w", err)
		}
	}
	if o.Temporal != nil {
		if err := o.TemporalOptions.Validate(); err != nil {
			return fmt.Errorf("predict: %w", err)
		}
	}
	switch strings.ToLower(o.Device) {
	case "", "cpu", "cuda", "gpu", "auto":
	default:
		return fmt.Errorf("predict: unknown device %q (cpu, cuda or auto)", o.Device)
	}
	return nil
}

// SetTemporal sets Temporal and TemporalOptions for a fusion radius: 0
// clears them; K > 0 fuses K frames on each side along f with
// refine.DefaultTemporalOptions' consistency test (an error when f is nil),
// chaining the flows between frames more than one apart from those between
// neighbours when compose is set (refine.TemporalOptions.Compose).
func (o *PredictOptions) SetTemporal(radius int, f refine.Flow, compose bool) error {
	to := refine.DefaultTemporalOptions()
	to.Radius, to.Compose = radius, compose
	if err := to.Validate(); err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	if radius == 0 {
		o.Temporal, o.TemporalOptions = nil, refine.TemporalOptions{}
		return nil
	}
	if f == nil {
		return fmt.Errorf("predict: temporal fusion needs an optical flow, and this densifier has none")
	}
	o.Temporal, o.TemporalOptions = f, to
	return nil
}

// Predict writes a dense mask per frame to out, named as DAVIS masks by the
// frame's position in frames: 00000.png, 00001.png, … Binary models give 8-bit
// grey masks with 0 (background) and 255 (moving object), thresholding the
// posterior at ½; multi-label models give paletted PNGs whose pixel values
// are the class (argmax of the posteriors), coloured with the DAVIS/PASCAL
// palette. With PriorShift, the posteriors are the network's with the prior
// shift of the class-balanced training undone (p_c ∝ p̂_c / s_c, s = CheckpointInfo.
// PriorShift; binary: odds / s_1).
//
// Frames of any size are accepted: the U-Net itself pads odd sizes at every
// level (see unet.Model.Forward), so no padding to a multiple of 16 is needed;
// a frame is only resized by Scale. The folder is built beside out
// (atomicfile.TempDir) and replaces out as a whole once every frame
// succeeded, so no mask of an earlier, longer sequence stays beside the new
// ones; an existing out must be empty or hold only such masks (ownMask),
// which is checked before any work.
func Predict(ckpt string, frames []string, out string, opt PredictOptions) error {
	if err := opt.Validate(); err != nil {
		return err
	}
	if len(frames) == 0 {
		return fmt.Errorf("predict: no frames")
	}
	if err := atomicfile.CheckReplaceable(filepath.Clean(out), "predict: the output folder", ownMask); err != nil {
		return err
	}
	// The temporary folder comes first: making it removes a killed run's.
	w, err := newMaskWriter(out, opt, len(frames))
	if err != nil {
		return err
	}
	defer w.discard()
	defer unet.LockThread()()   // every frame on one OS thread (see unet.LockThread)
	defer unet.TrimBlockCache() // cached blocks of this shape go back to the system
	p, err := loadPredictor(ckpt, opt)
	if err != nil {
		return err
	}
	w.classes = p.model.Config.Classes
	if err := p.predictAll(frames, w); err != nil {
		return err
	}
	return w.commit()
}

// predictor is a loaded model with the per-frame settings of one Predict.
type predictor struct {
	model  *unet.Model
	scale  float64
	shift  []float64 // prior shift to undo (nil: none)
	mirror bool
	refine refine.Refiner   // nil: masks kept as predicted
	fuse   *refine.Temporal // nil: every frame decided alone
}

// loadPredictor sets libtorch's threads, opens the checkpoint on opt's
// device (refusing another preset than opt.Preset) and resolves the scale,
// the prior shift, the refinement and the temporal fusion for its model.
func loadPredictor(ckpt string, opt PredictOptions) (*predictor, error) {
	if err := unet.SetThreads(opt.Threads); err != nil {
		return nil, err
	}
	dev, err := unet.ParseDevice(opt.Device)
	if err != nil {
		return nil, err
	}
	h, err := unet.ReadCheckpointHeader(ckpt)
	if err != nil {
		return nil, err
	}
	if opt.Preset != "" && h.Config.Name != opt.Preset {
		return nil, fmt.Errorf("%s: checkpoint is for preset %v, not %s", ckpt, h.Config, opt.Preset)
	}
	model, extra, err := unet.Open(ckpt, dev)
	if err != nil {
		return nil, err
	}
	var info CheckpointInfo
	if len(extra) > 0 {
		_ = json.Unmarshal(extra, &info) // checkpoints not written by Run have no record
	}
	p := &predictor{model: model, mirror: opt.Mirror}
	if p.scale, err = predictScale(opt.Scale, info.Options.Scale); err != nil {
		return nil, err
	}
	if opt.PriorShift {
		p.shift = info.PriorShift
	}
	if err := p.setBinaryStages(ckpt, opt); err != nil {
		return nil, err
	}
	return p, nil
}

// predictScale is the scale frames are resized by: the asked one, else the
// one the model was trained at, else 1; in (0, 4].
func predictScale(asked, trained float64) (float64, error) {
	scale := asked
	if scale == 0 {
		scale = trained
	}
	if scale == 0 {
		scale = 1
	}
	if !(scale > 0 && scale <= 4) {
		return 0, fmt.Errorf("predict: scale must be in (0, 4], got %v", scale)
	}
	return scale, nil
}

// setBinaryStages takes opt's refinement and temporal fusion for a binary
// model; a multi-label model keeps its masks as predicted and decides each
// frame alone, with a note on opt.Progress.
func (p *predictor) setBinaryStages(ckpt string, opt PredictOptions) error {
	classes := p.model.Config.Classes
	p.refine = opt.Refine
	if p.refine != nil && classes != 1 {
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, "predict: %s has %d classes; refinement works on binary masks, so the masks are kept as predicted\n", ckpt, classes)
		}
		p.refine = nil
	}
	if opt.Temporal == nil || opt.TemporalOptions.Radius <= 0 {
		return nil
	}
	if classes != 1 {
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, "predict: %s has %d classes; temporal fusion works on binary masks, so each frame is decided alone\n", ckpt, classes)
		}
		return nil
	}
	var err error
	p.fuse, err = refine.NewTemporal(opt.TemporalOptions, opt.Temporal)
	return err
}

// predictAll runs the network on every frame (and its mirror image with
// Mirror), fuses the probability maps over time when a fusion is set, and
// refines and writes each frame's mask once its map is final. The
// refinement and the files of a frame are made on another goroutine while
// the network and the flows work on the next frames (a finisher, at most
// finishQueue frames behind), so the cores the network leaves idle do them.
func (p *predictor) predictAll(frames []string, w *maskWriter) (err error) {
	fin := p.startFinisher(w)
	defer func() {
		if ferr := fin.wait(); err == nil {
			err = ferr
		}
	}()
	for i, path := range frames {
		img, err := dataset.ReadImage(path)
		if err != nil {
			return err
		}
		labels, prob, err := predictFrame(p.model, img, p.scale, p.shift, p.mirror)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if p.fuse == nil {
			err = fin.add(finishJob{i, path, img, labels, prob})
		} else {
			var done []refine.Fused
			if done, err = p.fuse.Push(img, prob); err == nil {
				err = p.finishFused(fin, frames, done)
			}
		}
		if err != nil {
			return err
		}
	}
	if p.fuse == nil {
		return nil
	}
	done, err := p.fuse.Flush()
	if err != nil {
		return err
	}
	return p.finishFused(fin, frames, done)
}

// finishFused hands the frames whose fused maps are complete to the
// finisher, thresholding P̃ at ½ as decide thresholds the network's map.
func (p *predictor) finishFused(fin *finisher, frames []string, done []refine.Fused) error {
	for _, f := range done {
		labels := make([]uint8, len(f.Prob))
		for j, v := range f.Prob {
			if v > 0.5 {
				labels[j] = 1
			}
		}
		if err := fin.add(finishJob{f.Index, frames[f.Index], f.Image, labels, f.Prob}); err != nil {
			return err
		}
	}
	return nil
}

// finishJob is one frame whose probability map is final: its position, its
// file, the frame, its labels and the foreground probabilities.
type finishJob struct {
	i      int
	path   string
	img    image.Image
	labels []uint8
	prob   []float32
}

// finishQueue is how many final frames may wait for the finisher.
const finishQueue = 2

// finisher refines and writes frames on its own goroutine, in the order
// they are added; the first error stops it.
type finisher struct {
	jobs chan finishJob
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func (p *predictor) startFinisher(w *maskWriter) *finisher {
	f := &finisher{jobs: make(chan finishJob, finishQueue), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		for j := range f.jobs {
			if f.failed() != nil {
				continue // drain, so that add never blocks after a failure
			}
			if err := p.finish(w, j.i, j.path, j.img, j.labels, j.prob); err != nil {
				f.mu.Lock()
				f.err = err
				f.mu.Unlock()
			}
		}
	}()
	return f
}

func (f *finisher) failed() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// add queues a frame, or returns the error that stopped the finisher.
func (f *finisher) add(j finishJob) error {
	if err := f.failed(); err != nil {
		return err
	}
	f.jobs <- j
	return nil
}

// wait lets the finisher end the frames it holds and returns its error.
func (f *finisher) wait() error {
	close(f.jobs)
	<-f.done
	return f.failed()
}

// finish refines frame i's mask (read from path) when a refinement is set
// and writes it with its previews.
func (p *predictor) finish(w *maskWriter, i int, path string, img image.Image, labels []uint8, prob []float32) error {
	if p.refine != nil {
		var err error
		if labels, _, err = p.refine.Refine(img, labels, prob); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return w.write(i, img, labels, prob)
}

// maskWriter builds Predict's files in a temporary folder beside out, which
// replaces out as a whole once every frame succeeded.
type maskWriter struct {
	out, tmp      string
	subs          []string // the preview folders asked for: "prob", "overlay"
	prob, overlay bool
	classes       int
	bar           *progress.Bar
}

// newMaskWriter makes the temporary folder beside out (atomicfile.TempDir,
// which removes the temporaries a killed run left) with its preview folders
// and starts the progress bar over n frames; the caller sets classes once
// the model is loaded.
func newMaskWriter(out string, opt PredictOptions, n int) (*maskWriter, error) {
	tmp, err := atomicfile.TempDir(out)
	if err != nil {
		return nil, err
	}
	w := &maskWriter{out: filepath.Clean(out), tmp: tmp, prob: opt.Prob, overlay: opt.Overlay}
	if opt.Prob {
		w.subs = append(w.subs, "prob")
	}
	if opt.Overlay {
		w.subs = append(w.subs, "overlay")
	}
	for _, d := range w.subs {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			w.discard()
			return nil, err
		}
	}
	w.bar = progress.New(opt.Progress, n, "predict")
	return w, nil
}

// write writes frame i's mask (MaskImage) and, as asked, its probability
// map (×255) and its overlay.
func (w *maskWriter) write(i int, img image.Image, labels []uint8, prob []float32) error {
	name := fmt.Sprintf("%05d.png", i)
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	if err := w.png(name, dataset.MaskImage(labels, W, H, w.classes)); err != nil {
		return err
	}
	if w.prob {
		if err := w.png(filepath.Join("prob", name), probImage(prob, W, H)); err != nil {
			return err
		}
	}
	if w.overlay {
		if err := atomicfile.WritePreviewPNG(filepath.Join(w.tmp, "overlay", name), overlay(img, labels)); err != nil {
			return err
		}
	}
	w.bar.Add(1)
	return nil
}

// png writes img to name under the temporary folder.
func (w *maskWriter) png(name string, img image.Image) error {
	return atomicfile.WritePNG(filepath.Join(w.tmp, name), img)
}

// commit finishes the progress bar and puts the folder in place of out,
// replacing it as a whole.
func (w *maskWriter) commit() error {
	w.bar.Finish()
	return atomicfile.ReplaceDir(w.tmp, w.out)
}

// discard removes the temporary folder with what is left in it.
func (w *maskWriter) discard() { os.RemoveAll(w.tmp) }

// probImage is the grey image of a probability map, p ×255 rounded.
func probImage(prob []float32, W, H int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, W, H))
	for j, p := range prob {
		g.Pix[j] = uint8(math.Round(255 * math.Max(0, math.Min(1, float64(p)))))
	}
	return g
}

// ownMask accepts what Predict writes into its folder (relative paths):
// NNNNN.png, prob/ and overlay/ with their NNNNN.png.
func ownMask(rel string, isDir bool) bool {
	if isDir {
		return rel == "prob" || rel == "overlay"
	}
	return maskName.MatchString(rel)
}

var maskName = regexp.MustCompile(`^((prob|overlay)/)?[0-9]{5,}\.png$`)

// predictFrame returns the class of every pixel (W·H, row-major) and the
// foreground probability. With mirror, the network sees the frame and its
// mirror image as one batch of two and the posteriors are averaged after the
// mirror's are flipped back.
func predictFrame(model *unet.Model, img image.Image, scale float64, shift []float64, mirror bool) (labels []uint8, prob []float32, err error) {
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	w, h := scaledSize(W, H, scale)
	if min := model.Config.MinSize(); w < min || h < min {
		return nil, nil, fmt.Errorf("frame is %dx%d at scale %g, smaller than the %d px the model needs", w, h, scale, min)
	}
	x := unitRGB(nil, resizeRGB(img, w, h))
	N := int64(1)
	if mirror {
		x = append(x, mirrorPlanes(x, w)...)
		N = 2
	}
	C := model.Config.Classes
	var probs []float32
	err = unet.Run(func(s *unet.Scope) error {
		return unet.NoGrad(func() error {
			in, err := unet.Tensor(s, x, []int64{N, 3, int64(h), int64(w)}, model.Device)
			if err != nil {
				return err
			}
			z, err := model.Forward(s, in, false)
			if err != nil {
				return err
			}
			s.Free(in)
			// Each intermediate is freed once the next op has read it.
			if w != W || h != H {
				y := s.T(z.UpsampleBilinear2d([]int64{int64(H), int64(W)}, false, nil, nil, false))
				s.Free(z)
				z = y
			}
			var p *ts.Tensor
			if C == 1 {
				p = s.T(z.Sigmoid(false))
			} else {
				p = s.T(z.Softmax(1, gotch.Float, false))
			}
			s.Free(z)
			z = p
			z = s.T(z.To(gotch.CPU, false))
			probs, err = unet.Float32s(z)
			return err
		})
	})
	if err != nil {
		return nil, nil, err
	}
	if mirror {
		probs = averageMirrored(probs, W)
	}
	labels, prob = decide(probs, W*H, C, shift)
	return labels, prob, nil
}

// mirrorPlanes returns planes (any number of row-major planes of width w)
// with every row reversed.
func mirrorPlanes(planes []float32, w int) []float32 {
	out := make([]float32, len(planes))
	for r := 0; r+w <= len(planes); r += w {
		for i := 0; i < w; i++ {
			out[r+i] = planes[r+w-1-i]
		}
	}
	return out
}

// averageMirrored takes a batch of two (the frame's posteriors, then its
// mirror's, each any number of planes of width w) and returns the mean of the
// first and the second flipped back, reading the mirror's rows backwards.
func averageMirrored(probs []float32, w int) []float32 {
	n := len(probs) / 2
	out := make([]float32, n)
	for r := 0; r+w <= n; r += w {
		for i := 0; i < w; i++ {
			out[r+i] = (probs[r+i] + probs[n+r+w-1-i]) / 2
		}
	}
	return out
}

// decide turns the network's posteriors (C = 1: σ(z) per pixel; C ≥ 2:
// softmax, class-major, n pixels per class) into classes and foreground
// probabilities, dividing the odds of class c against the background by
// shift[c] first (nil: no correction).
func decide(probs []float32, n, C int, shift []float64) (labels []uint8, prob []float32) {
	labels = make([]uint8, n)
	prob = make([]float32, n)
	classes := max(C, 2)
	div := make([]float64, classes) // 1/s_c
	for c := range div {
		div[c] = 1
		if c < len(shift) && shift[c] > 0 && !math.IsInf(shift[c], 0) {
			div[c] = 1 / shift[c]
		}
	}
	for i := 0; i < n; i++ {
		if C == 1 {
			p := float64(probs[i])
			if div[1] != 1 {
				p = p * div[1] / (p*div[1] + (1 - p)) // odds / s_1
			}
			prob[i] = float32(p)
			if p > 0.5 {
				labels[i] = 1
			}
			continue
		}
		best, sum := 0, 0.0
		bestV := -1.0
		for c := 0; c < C; c++ {
			v := float64(probs[c*n+i]) * div[c]
			sum += v
			if v > bestV {
				best, bestV = c, v
			}
		}
		labels[i] = uint8(best)
		if sum > 0 {
			prob[i] = float32(1 - float64(probs[i])*div[0]/sum)
		}
	}
	return labels, prob
}

// overlay tints the frame: foreground pixels are mixed half and half with
// their class colour (binary: red), background kept.
func overlay(img image.Image, labels []uint8) *image.RGBA {
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	pal := dataset.Palette(256)
	out := image.NewRGBA(image.Rect(0, 0, W, H))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			c := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
			if l := labels[y*W+x]; l > 0 {
				t := pal[l].(color.RGBA)
				if l == 1 {
					t = color.RGBA{255, 0, 0, 255}
				}
				c = color.RGBA{uint8((int(c.R) + int(t.R)) / 2), uint8((int(c.G) + int(t.G)) / 2), uint8((int(c.B) + int(t.B)) / 2), 255}
			}
			out.SetRGBA(x, y, c)
		}
	}
	return out
}
