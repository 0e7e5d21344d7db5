package boundary

import (
	"fmt"
	"image"
	"math/rand"
	"runtime"

	"github.com/densify/densify/bsds"
	"github.com/densify/densify/internal/parallel"
)

// FitOptions control FitSplit.
type FitOptions struct {
	PerImage    int     // pixels sampled per image (default 4000)
	LabelRadius int     // soft-label tolerance in pixels (default 1)
	Lambda      float64 // L2 penalty (default 1)
	Linear      bool    // the linear model instead of the quadratic (Model)
	Seed        int64
	// Progress, when set, is called after each image.
	Progress func(done, total int, id string)
}

func (o *FitOptions) defaults() {
	if o.PerImage <= 0 {
		o.PerImage = 4000
	}
	if o.LabelRadius <= 0 {
		o.LabelRadius = 1
	}
	if o.Lambda <= 0 {
		o.Lambda = 1
	}
}

// FitSplit samples pixels of every image of a split with ground truth and
// fits the model (see Fit). The features are computed on all cores; the
// pixels are drawn in the split's order from one generator, so the sample
// does not depend on the number of cores.
func FitSplit(items []bsds.Item, opt FitOptions, source string) (*Model, error) {
	opt.defaults()
	rng := rand.New(rand.NewSource(opt.Seed))
	s := &Sample{}
	type loaded struct {
		f    *Features
		anns []bsds.Annotation
	}
	err := eachLoaded(items, 0, func(f *Features, anns []bsds.Annotation) loaded { return loaded{f, anns} }, func(k int, l loaded) {
		s.AddImage(l.f, l.anns, opt.LabelRadius, opt.PerImage, rng)
		if opt.Progress != nil {
			opt.Progress(k+1, len(items), items[k].ID)
		}
	})
	if err != nil {
		return nil, err
	}
	return Fit(s, opt.LabelRadius, opt.Lambda, !opt.Linear, source)
}

// eachLoaded reads every item, computes its features and runs work on
// them, workers images at a time (≤ 0: GOMAXPROCS), and hands the results
// to use in the split's order on the calling goroutine. At most workers
// images are held at once. The first item (in order) that cannot be read
// stops the run with its error.
func eachLoaded[T any](items []bsds.Item, workers int, work func(f *Features, anns []bsds.Annotation) T, use func(k int, v T)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for b := 0; b < len(items); b += workers {
		batch := items[b:min(b+workers, len(items))]
		out := make([]T, len(batch))
		errs := make([]error, len(batch))
		parallel.For(len(batch), workers, func(i int) error {
			img, anns, err := loadItem(batch[i])
			if err != nil {
				errs[i] = err
				return nil
			}
			out[i] = work(Compute(img), anns)
			return nil
		})
		for i := range batch {
			if errs[i] != nil {
				return errs[i]
			}
			use(b+i, out[i])
		}
	}
	return nil
}

// loadItem reads an image and its annotations.
func loadItem(it bsds.Item) (image.Image, []bsds.Annotation, error) {
	img, err := bsds.ReadImage(it.Image)
	if err != nil {
		return nil, nil, err
	}
	if it.GT == "" {
		return nil, nil, fmt.Errorf("%s: no ground truth", it.Image)
	}
	b := img.Bounds()
	anns, err := bsds.ReadGroundTruth(it.GT, b.Dx(), b.Dy())
	if err != nil {
		return nil, nil, err
	}
	return img, anns, nil
}

// DefaultThresholds are the thresholds of the boundary evaluation.
func DefaultThresholds() []float64 {
	var t []float64
	for i := 1; i < 50; i++ {
		t = append(t, float64(i)/50)
	}
	return t
}

// EvalSplit pools the boundary matching counts (tolerance tol pixels) of the
// model's maps over a split and returns P/R/F per threshold and the best.
// The images are matched on all cores (the counts are integers, so their
// sum does not depend on the order).
func (m *Model) EvalSplit(items []bsds.Item, tol float64, progress func(done, total int, id string)) ([]PRF, PRF, error) {
	var total *Counts
	match := func(f *Features, anns []bsds.Annotation) *Counts {
		return Match(m.Probability(f), f.W, f.H, anns, DefaultThresholds(), tol)
	}
	err := eachLoaded(items, 0, match, func(k int, c *Counts) {
		if total == nil {
			total = c
		} else {
			total.Add(c)
		}
		if progress != nil {
			progress(k+1, len(items), items[k].ID)
		}
	})
	if err != nil {
		return nil, PRF{}, err
	}
	if total == nil {
		return nil, PRF{}, fmt.Errorf("boundary eval: no images")
	}
	all, best := total.Best()
	return all, best, nil
}

// RefitOptions name the splits for Refit.
type RefitOptions struct {
	TrainImages, TrainGT string // fitting split
	ValImages, ValGT     string // evaluation split ("" = none)
	Out                  string // model JSON
	Tolerance            float64
	Fit                  FitOptions
}

// RefitReport is what Refit measured.
type RefitReport struct {
	Model     *Model  `json:"model"`
	Train     int     `json:"train_images"`
	Val       int     `json:"val_images"`
	Tolerance float64 `json:"tolerance_px"`
	Best      PRF     `json:"val_best"`
	Curve     []PRF   `json:"val_curve"`
}

// Refit fits a model on a train split, writes it to Out and, with a val
// split, reports its boundary quality there (EvalSplit).
func Refit(o RefitOptions) (*RefitReport, error) {
	tr, err := bsds.List(o.TrainImages, o.TrainGT)
	if err != nil {
		return nil, err
	}
	if o.TrainGT == "" {
		return nil, fmt.Errorf("boundary fit needs the train ground truth folder")
	}
	m, err := FitSplit(tr, o.Fit, fmt.Sprintf("%d images of %s", len(tr), o.TrainImages))
	if err != nil {
		return nil, err
	}
	rep := &RefitReport{Model: m, Train: len(tr), Tolerance: o.Tolerance}
	if o.ValImages != "" {
		va, err := bsds.List(o.ValImages, o.ValGT)
		if err != nil {
			return nil, err
		}
		rep.Val = len(va)
		if rep.Curve, rep.Best, err = m.EvalSplit(va, o.Tolerance, o.Fit.Progress); err != nil {
			return nil, err
		}
	}
	return rep, m.Write(o.Out)
}
