package main

import (
	"fmt"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/refine"
	"github.com/densify/densify/train"
	"github.com/densify/densify/video"
	"github.com/spf13/cobra"
)

type predictOptions struct {
	IO                 *IOStreams
	Model, Frames, Out string
	Refine             string
	Temporal           int
	Flows              string
	ComposeFlows       bool
	Cut                refine.CutOptions // --refine graphcut's settings
	Predict            train.PredictOptions
}

const composeFlowsUsage = "--temporal: chain the flows between frames more than one apart from those between neighbours instead of computing them (half the optical flows at K = 2)"

const temporalUsage = "temporal fusion: average each frame's probability map with those of K frames on each side, carried along DIS optical flow where it passes the forward-backward test, before thresholding and refining (0 = off)"

const mirrorUsage = "test-time augmentation: average the network's posteriors on each frame and on its mirror image, flipped back (twice the network's work; --mirror=false turns it off)"

const refineUsage = "refinement of the predicted masks, which removes the halo the network paints around objects (package refine): graphcut (a minimum cut of the network's probabilities, colour models and contrast, pure Go), grabcut (OpenCV's GrabCut on a trimap from the mask) or none"

func NewCmdPredict(f *Factory) *cobra.Command {
	o := &predictOptions{IO: f.IO, Cut: refine.DefaultCutOptions()}
	cmd := &cobra.Command{
		Use:   "predict --model CKPT --frames DIR --out DIR",
		Short: "Dense masks per frame from a trained U-Net (DAVIS-style PNGs)",
		Long: `predict runs a trained U-Net (densify train) on every frame of a folder (FBMS or DAVIS
naming) and writes <out>/00000.png, 00001.png, … (frame order): 0/255 grey masks for binary
models, paletted label images (DAVIS palette, value = class) for multi-label models.
--prob adds prob/NNNNN.png (foreground probability ×255), --overlay adds overlay/NNNNN.png
(frame with the mask tinted). --mirror (default on) averages the network's posteriors on
each frame and on its mirror image. --temporal K (default 2) averages each binary model's
probability map with those of K frames on each side, carried along optical flow, before
the mask is thresholded (prob/ then holds the fused maps); --flows DIR reads the flows of
a store (densify track --flows, or an earlier predict --flows DIR) and keeps there the ones
it computes. --refine graphcut (the default)
refines each binary mask by a minimum cut of the (fused) probabilities, colour models and
contrast, whose settings the flags of densify refine set (--cut-scale, --smooth, --band, …);
--refine grabcut uses OpenCV's GrabCut on a trimap from the mask (package refine).
Frames of any size work; --scale resizes the input (default: the scale the model was
trained at) and the logits are resized back to the frame's size.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runPredict(o) },
	}
	cmd.Example = predictExample
	fl, p := cmd.Flags(), &o.Predict
	fl.StringVar(&o.Model, "model", "", "checkpoint (model.ckpt from densify train)")
	fl.StringVar(&o.Frames, "frames", "", "frames folder")
	fl.StringVar(&o.Out, "out", "", "output folder for the masks (replaced as a whole: new, empty, or an earlier prediction's)")
	fl.BoolVar(&p.Prob, "prob", false, "also write probability maps (prob/)")
	fl.BoolVar(&p.Overlay, "overlay", false, "also write overlay previews (overlay/)")
	fl.Float64Var(&p.Scale, "scale", 0, "input scale (0 = the training scale stored in the checkpoint)")
	fl.StringVar(&p.Preset, "preset", "", "refuse checkpoints of another preset")
	fl.BoolVar(&p.PriorShift, "prior-shift", false, "undo the prior shift of class-balanced training (odds of the object divided by its mean class weight, from the checkpoint)")
	fl.StringVar(&o.Refine, "refine", pipeline.DefaultOptions().Train.Refine, refineUsage)
	fl.IntVar(&o.Temporal, "temporal", pipeline.DefaultOptions().Train.Temporal, temporalUsage)
	fl.StringVar(&o.Flows, "flows", "", "a flow store of these frames (track --flows), which the temporal fusion reads instead of computing them; the fields it computes are added to it, and a folder without a store becomes one, so the next prediction of the same frames computes no flow")
	fl.BoolVar(&o.ComposeFlows, "compose-flows", true, composeFlowsUsage)
	fl.BoolVar(&p.Mirror, "mirror", pipeline.DefaultOptions().Train.Mirror, mirrorUsage)
	fl.StringVar(&p.Device, "device", "cpu", "cpu, cuda or auto")
	fl.IntVar(&p.Threads, "threads", 0, "libtorch CPU threads (0 = all cores)")
	cutFlags(fl, &o.Cut)
	return cmd
}

func runPredict(o *predictOptions) error {
	if o.Model == "" || o.Frames == "" || o.Out == "" {
		return fmt.Errorf("predict needs --model, --frames and --out")
	}
	if err := setRefine(&o.Predict, o.Refine, o.Cut, video.GrabCut{Seed: 1}); err != nil {
		return err
	}
	frames, err := dataset.ListFrames(o.Frames)
	if err != nil {
		return err
	}
	var flow refine.Flow = video.DenseFlow{Method: video.DIS}
	if o.Temporal > 0 {
		if flow, err = storedFlow(flow, o.Flows, frames, true); err != nil {
			fmt.Fprintf(o.IO.ErrOut, "predict: the flows are computed, not read from --flows: %v\n", err)
		}
	}
	if err := o.Predict.SetTemporal(o.Temporal, flow, o.ComposeFlows); err != nil {
		return err
	}
	o.Predict.Progress = o.IO.ErrOut
	if err := train.Predict(o.Model, frames, o.Out, o.Predict); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "%d masks → %s\n", len(frames), o.Out)
	return nil
}
