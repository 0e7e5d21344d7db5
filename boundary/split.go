package boundary

import (
	"fmt"
	"image"
	"math/rand"

	"github.com/densify/densify/bsds"
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
// fits the model (see Fit).
func FitSplit(items []bsds.Item, opt FitOptions, source string) (*Model, error) {
	opt.defaults()
	rng := rand.New(rand.NewSource(opt.Seed))
	s := &Sample{}
	for k, it := range items {
		img, anns, err := loadItem(it)
		if err != nil {
			return nil, err
		}
		s.AddImage(Compute(img), anns, opt.LabelRadius, opt.PerImage, rng)
		if opt.Progress != nil {
			opt.Progress(k+1, len(items), it.ID)
		}
	}
	return Fit(s, opt.LabelRadius, opt.Lambda, !opt.Linear, source)
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
func (m *Model) EvalSplit(items []bsds.Item, tol float64, progress func(done, total int, id string)) ([]PRF, PRF, error) {
	var total *Counts
	for k, it := range items {
		img, anns, err := loadItem(it)
		if err != nil {
			return nil, PRF{}, err
		}
		f := Compute(img)
		c := Match(m.Probability(f), f.W, f.H, anns, DefaultThresholds(), tol)
		if total == nil {
			total = c
		} else {
			total.Add(c)
		}
		if progress != nil {
			progress(k+1, len(items), it.ID)
		}
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
