package pipeline

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/eval"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/trainset"
	"github.com/densify/densify/uncertainty"
)

// Densifier trains the dense segmentation network on prepared sets and
// predicts masks. cmd/densify passes the libtorch U-Net of package train;
// tests use a cheap stand-in.
type Densifier interface {
	// Name identifies the implementation (recorded in stamps).
	Name() string
	// Train trains one model on the prepared sets into req.Out (resuming
	// from the checkpoints there when req.Resume).
	Train(ctx context.Context, req TrainRequest) (*TrainResult, error)
	// Predict writes one mask PNG per frame into req.Out, named 00000.png
	// (0-based frame index) or after the frame file, at the frames' size:
	// 0/255 for a binary model, the class index for a multi-label one.
	Predict(ctx context.Context, req PredictRequest) error
}

// TrainRequest asks for one trained model.
type TrainRequest struct {
	Sets    []string // prepared training-set folders
	Out     string   // model folder
	Variant string   // loss weighting (Variant.TrainVariant): hard, uniform, confidence, prune or hard-right
	Factor  float64  // hard-example factor replacing the set's (> 0), or 0
	Phi     *float64 // φ for redrawn hard examples, or nil: the set's mask
	Resume  bool     // continue from the checkpoints in Out
	// Pseudo is a self-training round's (TrainOptions.Rounds): the
	// previous round's masks folder (with prob/), one per set; empty for
	// the first training. Init is the checkpoint to start from: the
	// previous round's, or TrainOptions.Init for the first training (empty:
	// a random initialisation).
	Pseudo   []string
	Init     string
	Options  TrainOptions
	Progress io.Writer
}

// TrainResult describes a trained model.
type TrainResult struct {
	Checkpoint string  `json:"checkpoint"` // checkpoint file to predict with
	Epochs     int     `json:"epochs"`
	FinalLoss  float64 `json:"final_loss"`
}

// PredictRequest asks for the dense masks of a frame list.
type PredictRequest struct {
	Checkpoint string
	Frames     []string
	Out        string
	Options    TrainOptions
	// Flows is the folder of the tracker's flow fields
	// (trajectory.FlowStore), which the temporal fusion may read instead
	// of computing them; it may be absent or made for other frames or
	// another flow, and is then not used.
	Flows    string
	Progress io.Writer
}

func (o *Options) densifier() (Densifier, error) {
	if o.Densifier == nil {
		return nil, fmt.Errorf("no densifier: Options.Densifier is not set")
	}
	return o.Densifier, nil
}

// DenseResult is the outcome of one variant and seed on one sequence.
// With self-training rounds, Masks, Preview, Scores and Train are the last
// round's, the seconds are summed over the rounds, and Rounds has each.
type DenseResult struct {
	Variant    Variant       `json:"variant"`
	Seed       int64         `json:"seed"`
	Train      *TrainResult  `json:"train,omitempty"`
	Masks      string        `json:"masks"`             // relative to the sequence folder
	Preview    string        `json:"preview,omitempty"` // overlay preview PNG, relative
	Scores     *Scores       `json:"scores,omitempty"`  // nil without ground truth
	TrainSecs  float64       `json:"train_seconds"`
	PredictSec float64       `json:"predict_seconds"`
	Rounds     []RoundResult `json:"rounds,omitempty"`
}

// RoundResult is one training round of a DenseResult: round 0 is the
// training on the prepared set, round r ≥ 1 the r-th self-training round.
type RoundResult struct {
	Round      int     `json:"round"`
	Masks      string  `json:"masks"`
	Scores     *Scores `json:"scores,omitempty"`
	TrainSecs  float64 `json:"train_seconds"`
	PredictSec float64 `json:"predict_seconds"`
}

type trainParams struct {
	Densifier string       `json:"densifier"`
	Variant   string       `json:"variant"`
	Factor    float64      `json:"factor,omitempty"`
	Phi       *float64     `json:"phi,omitempty"`
	Options   TrainOptions `json:"options"`
	// ErrorModel is the θ of the embedded error model that the hard-right
	// variant reads (uncertainty.DefaultErrorModel), so that another one
	// retrains it
	ErrorModel []float64 `json:"error_model,omitempty"`
	// a self-training round's (zero for the first training)
	Round        int                     `json:"round,omitempty"`
	Pseudo       *trainset.PseudoOptions `json:"pseudo,omitempty"`
	PseudoWeight float64                 `json:"pseudo_weight,omitempty"`
}

// prepareOracle prepares the oracle training set (VariantOracle): the
// sequence's trajectories labelled from its ground truth.
func (p *seqRun) prepareOracle() error {
	po := p.opt.Prepare
	type params struct {
		Options trainset.Options `json:"options"`
		Format  int              `json:"format"`
	}
	st := stage{name: "prepare-oracle", params: params{po, trainset.FormatVersion},
		inputs:  append([]string{p.lay.Tracks(), p.seq.GTPath}, p.frames...),
		outputs: []string{filepath.Join(p.lay.PreparedOracle(), "manifest.json")}}
	p.unstampBroken(st.name, p.lay.PreparedOracle())
	_, err := p.runStage(st, nil, func(string) (any, error) {
		set, err := trainset.PrepareOracleFiles(p.seq.FramesDir, p.lay.Tracks(), p.gt, p.lay.PreparedOracle(), po)
		if err != nil {
			return nil, err
		}
		return set.Summary(), nil
	})
	return err
}

// dense trains, predicts and scores variant v with the k-th seed
// (Train.Seed + k). The oracle variant is skipped without ground truth.
func (p *seqRun) dense(v Variant, k int) error {
	d, err := p.opt.densifier()
	if err != nil {
		return err
	}
	set, ok, err := p.trainingSet(v, k)
	if err != nil || !ok {
		return err
	}
	run := RunName(v, k)
	topt := p.opt.Train
	topt.Seed += int64(k)
	dr := p.addDenseResult(v, k, run, topt.Seed)
	tp := modelParams(d.Name(), v, topt)
	ckpt, err := p.trainStage(d, dr, run, set, tp, topt)
	if err != nil {
		return err
	}
	if err := p.checkCtx(); err != nil {
		return err
	}
	pp := tp
	pp.Options = predictOptions(topt, 0)
	if err := p.predictStage(d, dr, run, ckpt, pp); err != nil {
		return err
	}
	if p.gt != nil {
		if err := p.denseEvalStage(dr, run); err != nil {
			return err
		}
	}
	if topt.Rounds == 0 {
		return nil
	}
	return p.selfTrain(d, dr, run, set, ckpt, tp, topt)
}

// selfTrain runs the self-training rounds 1…Rounds after the first training
// of run (its model ckpt, its masks in dr): round r trains run-roundR from
// round r−1's checkpoint on set plus round r−1's confident mask pixels,
// predicts and scores. dr ends with the last round's masks and scores.
func (p *seqRun) selfTrain(d Densifier, dr *DenseResult, run, set, ckpt string, tp trainParams, topt TrainOptions) error {
	dr.Rounds = []RoundResult{{Masks: dr.Masks, Scores: dr.Scores, TrainSecs: dr.TrainSecs, PredictSec: dr.PredictSec}}
	prev := run
	po := topt.PseudoOrDefault()
	for r := 1; r <= topt.Rounds; r++ {
		if err := p.checkCtx(); err != nil {
			return err
		}
		rrun := fmt.Sprintf("%s-round%d", run, r)
		rd := &DenseResult{Masks: "masks-" + rrun}
		rtp, ropt := tp, topt
		rtp.Round, rtp.Pseudo, rtp.PseudoWeight = r, &po, topt.PseudoWeight
		rtp.Options.CRFWeight, ropt.CRFWeight = topt.RoundCRFWeight, topt.RoundCRFWeight
		rin := roundInputs{masks: p.lay.Masks(prev), ckpt: ckpt}
		next, err := p.trainRound(d, rd, rrun, set, rtp, ropt, rin)
		if err != nil {
			return err
		}
		pp := rtp
		pp.Options = predictOptions(topt, r)
		if err := p.predictStage(d, rd, rrun, next, pp); err != nil {
			return err
		}
		if p.gt != nil {
			if err := p.denseEvalStage(rd, rrun); err != nil {
				return err
			}
		}
		dr.Rounds = append(dr.Rounds, RoundResult{Round: r, Masks: rd.Masks, Scores: rd.Scores, TrainSecs: rd.TrainSecs, PredictSec: rd.PredictSec})
		dr.Masks, dr.Preview, dr.Scores, dr.Train = rd.Masks, rd.Preview, rd.Scores, rd.Train
		dr.TrainSecs += rd.TrainSecs
		dr.PredictSec += rd.PredictSec
		prev, ckpt = rrun, next
	}
	return nil
}

// predictOptions are the prediction options of round r: a round that
// another follows also writes the probability maps that round reads, when
// it reads them (trainset.PseudoOptions.ReadsProb: not for τ = 0). The
// "graphcut" refinement's settings are spelled out, so the stamp records
// the cut that made the masks (a changed default re-predicts them), and
// dropped for the other refinements, which do not read them.
func predictOptions(topt TrainOptions, r int) TrainOptions {
	if r < topt.Rounds && topt.PseudoOrDefault().ReadsProb() {
		topt.ProbMaps = true
	}
	c := topt.CutOrDefault()
	topt.Cut = nil
	if topt.Refine == "graphcut" {
		topt.Cut = &c
	}
	return topt.withoutRounds()
}

// withoutRounds is t without the self-training settings, which change
// neither the first training's model nor any prediction.
func (t TrainOptions) withoutRounds() TrainOptions {
	t.Rounds, t.Pseudo, t.PseudoWeight, t.RoundCRFWeight = 0, nil, 0, 0
	return t
}

// trainingSet is the prepared set variant v trains on: the oracle's
// (prepared first) for VariantOracle, the segmentation's otherwise. ok is
// false for the oracle of a sequence without ground truth (said once, for
// the first seed).
func (p *seqRun) trainingSet(v Variant, k int) (set string, ok bool, err error) {
	if v != VariantOracle {
		return p.lay.Prepared(), true, nil
	}
	if p.gt == nil {
		if k == 0 {
			fmt.Fprintf(p.opt.log(), "%s: no ground truth, so no oracle labels\n", p.seq.Name)
		}
		return "", false, nil
	}
	if err := p.prepareOracle(); err != nil {
		return "", false, err
	}
	return p.lay.PreparedOracle(), true, nil
}

// addDenseResult records the result of variant v's k-th seed in the
// sequence's result: Dense for the first seed, Repeats for the others.
func (p *seqRun) addDenseResult(v Variant, k int, run string, seed int64) *DenseResult {
	dr := &DenseResult{Variant: v, Seed: seed, Masks: "masks-" + run}
	if k == 0 {
		p.res.Dense[v] = dr
	} else {
		if p.res.Repeats == nil {
			p.res.Repeats = map[Variant][]*DenseResult{}
		}
		p.res.Repeats[v] = append(p.res.Repeats[v], dr)
	}
	return dr
}

// modelParams are the training stage's parameters: the densifier, the
// training variant, its hard-example factor and φ, and the options that
// change the model.
func modelParams(densifier string, v Variant, topt TrainOptions) trainParams {
	tp := trainParams{Densifier: densifier, Variant: v.TrainVariant(), Options: topt}
	if v == VariantHardRight {
		tp.ErrorModel = uncertainty.DefaultErrorModel().Theta
	}
	factor, phi, _ := v.HardParams()
	tp.Factor = factor
	if phi >= 0 {
		tp.Phi = &phi
	}
	// the preview outputs, the prior-shift correction, the refinement and
	// its cut, the temporal fusion and the mirror averaging of predict do
	// not change the model (PriorShift, Cut, Temporal and Mirror are omitted
	// from the stamp when off, so folders trained without them keep their
	// stamps)
	tp.Options.Overlays, tp.Options.ProbMaps, tp.Options.PriorShift = false, false, false
	tp.Options.Refine, tp.Options.Cut, tp.Options.Temporal, tp.Options.Mirror = "", nil, 0, false
	// nor do the rounds after it change the first round's model
	tp.Options = tp.Options.withoutRounds()
	return tp
}

// trainStage trains the model of run on set with the options topt
// (stamped as tp; resuming a killed training) and returns its checkpoint's
// path.
func (p *seqRun) trainStage(d Densifier, dr *DenseResult, run, set string, tp trainParams, topt TrainOptions) (string, error) {
	return p.trainRound(d, dr, run, set, tp, topt, roundInputs{})
}

// roundInputs are what a self-training round reads of the round before
// it: its masks folder (with prob/) and its checkpoint; zero for the
// first training.
type roundInputs struct{ masks, ckpt string }

// trainRound is trainStage for a training that may be a self-training
// round (in.masks set).
func (p *seqRun) trainRound(d Densifier, dr *DenseResult, run, set string, tp trainParams, topt TrainOptions, in roundInputs) (string, error) {
	model := p.lay.Model(run)
	inputs := []string{set}
	init := in.ckpt
	if in.masks != "" {
		inputs = append(inputs, in.masks, in.ckpt)
	} else if topt.Init != "" {
		init = topt.Init
		inputs = append(inputs, init)
	}
	st := stage{name: "train-" + run, params: tp, inputs: inputs, outputs: []string{model}}
	var tr TrainResult
	s, err := p.runStage(st, &tr, func(why string) (any, error) {
		resume := false
		if _, err := os.Stat(model); err == nil {
			if why == "no stamp" {
				resume = true // a killed training: continue from its checkpoints
			} else if err := os.RemoveAll(model); err != nil {
				return nil, err
			}
		}
		req := TrainRequest{Sets: []string{set}, Out: model, Variant: tp.Variant, Factor: tp.Factor, Phi: tp.Phi,
			Init: init, Resume: resume, Options: topt, Progress: p.opt.progress()}
		if in.masks != "" {
			req.Pseudo = []string{in.masks}
		}
		res, err := d.Train(p.ctx, req)
		if err != nil {
			return nil, err
		}
		// stored relative to the sequence folder (the work folder may move)
		absCk, err1 := filepath.Abs(res.Checkpoint)
		absDir, err2 := filepath.Abs(p.dir)
		if err1 == nil && err2 == nil {
			if rel, err := filepath.Rel(absDir, absCk); err == nil {
				res.Checkpoint = rel
			}
		}
		return res, nil
	})
	if err != nil {
		return "", err
	}
	dr.Train, dr.TrainSecs = &tr, s.Seconds
	ckpt := tr.Checkpoint
	if !filepath.IsAbs(ckpt) {
		ckpt = filepath.Join(p.dir, ckpt)
	}
	return ckpt, nil
}

// predictStage predicts the masks of run from the checkpoint ckpt with the
// options of pp and writes their preview.
func (p *seqRun) predictStage(d Densifier, dr *DenseResult, run, ckpt string, pp trainParams) error {
	masks := p.lay.Masks(run)
	preview := filepath.Join(p.dir, "preview-"+run+".png")
	pst := stage{name: "predict-" + run, params: pp, inputs: append([]string{ckpt}, p.frames...),
		outputs: []string{masks, preview}}
	s, err := p.runStage(pst, nil, func(string) (any, error) {
		tmp := masks + ".tmp"
		if err := os.RemoveAll(tmp); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp) // after a failure (once in place, it is gone)
		if err := d.Predict(p.ctx, PredictRequest{Checkpoint: ckpt, Frames: p.frames, Out: tmp, Options: pp.Options,
			Flows: p.lay.Flows(), Progress: p.opt.progress()}); err != nil {
			return nil, err
		}
		if err := atomicfile.ReplaceDir(tmp, masks); err != nil {
			return nil, err
		}
		return nil, writePreview(preview, p.frames, masks)
	})
	if err != nil {
		return err
	}
	dr.PredictSec = s.Seconds
	dr.Preview = filepath.Base(preview)
	return nil
}

// denseEvalStage scores the masks of run against the ground truth.
func (p *seqRun) denseEvalStage(dr *DenseResult, run string) error {
	masks := p.lay.Masks(run)
	est := stage{name: "eval-dense-" + run, params: p.opt.Eval, inputs: []string{masks, p.seq.GTPath},
		outputs: []string{p.lay.DenseEval(run)}}
	var sc Scores
	_, err := p.runStage(est, &sc, func(string) (any, error) {
		r, err := eval.ScoreFiles(p.gt, masks, p.opt.Eval)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", masks, err)
		}
		if err := writeJSON(p.lay.DenseEval(run), r); err != nil {
			return nil, err
		}
		sc := scoresOf(r)
		sc.JBenchmark = &r.JMeanBenchmark
		return sc, nil
	})
	if err == nil {
		dr.Scores = &sc
	}
	return err
}

// maskFiles lists the mask PNGs of a folder by frame number.
func maskFiles(dir string) (map[int]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for _, e := range ents {
		if e.IsDir() || filepath.Ext(e.Name()) != ".png" {
			continue
		}
		if f, ok := eval.MaskFrame(e.Name()); ok {
			out[f] = filepath.Join(dir, e.Name())
		}
	}
	return out, nil
}

// previewWidth is the width of one panel of the overlay preview.
const previewWidth = 320

// writePreview draws up to three frames (first, middle, last with a mask)
// side by side, the mask's foreground (label ≠ 0) tinted red, each panel
// scaled to previewWidth (nearest neighbour).
func writePreview(path string, frames []string, masksDir string) error {
	masks, err := maskFiles(masksDir)
	if err != nil {
		return err
	}
	var keys []int
	for f := range masks {
		if f >= 0 && f < len(frames) {
			keys = append(keys, f)
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("%s: no mask PNG of a frame", masksDir)
	}
	sort.Ints(keys)
	pick := []int{keys[0], keys[len(keys)/2], keys[len(keys)-1]}
	if len(keys) < 3 {
		pick = keys
	}
	var panels []*image.RGBA
	for _, f := range pick {
		img, err := dataset.ReadImage(frames[f])
		if err != nil {
			return err
		}
		m, err := eval.ReadMask(masks[f])
		if err != nil {
			return err
		}
		panels = append(panels, overlay(img, m))
	}
	ph := panels[0].Bounds().Dy()
	out := image.NewRGBA(image.Rect(0, 0, previewWidth*len(panels), ph))
	draw.Draw(out, out.Bounds(), image.NewUniform(color.Black), image.Point{}, draw.Src)
	for i, pn := range panels {
		draw.Draw(out, pn.Bounds().Add(image.Pt(i*previewWidth, 0)), pn, image.Point{}, draw.Src)
	}
	return atomicfile.WritePNG(path, out)
}

// overlay scales img to previewWidth and tints pixels whose mask label is
// non-zero (mask sampled at the same position; sizes may differ).
func overlay(img image.Image, m *eval.LabelImage) *image.RGBA {
	b := img.Bounds()
	w := previewWidth
	h := max(1, b.Dy()*w/max(1, b.Dx()))
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			sx, sy := b.Min.X+x*b.Dx()/w, b.Min.Y+y*b.Dy()/h
			r, g, bl, _ := img.At(sx, sy).RGBA()
			c := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
			mx, my := x*m.Width/w, y*m.Height/h
			if m.Labels[my*m.Width+mx] != 0 {
				c.R = uint8((int(c.R) + 255) / 2)
				c.G = uint8(int(c.G) / 2)
				c.B = uint8(int(c.B) / 2)
			}
			out.SetRGBA(x, y, c)
		}
	}
	return out
}
