package main

import (
	"fmt"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/morph"
	"github.com/densify/densify/trainset"
)

// printPrepared scores the labels of set against gt when there is ground
// truth (label_quality.json beside the set, and a line each), then prints
// the set's summary: its size and labels, a warning for a set without
// foreground, and the counts of the colour check and the background cut.
func printPrepared(o *prepareOptions, set *trainset.Set, gt *dataset.GroundTruth) error {
	if gt != nil {
		q := trainset.ScoreLabels(set, gt)
		if err := trainset.WriteLabelQuality(o.Out, q); err != nil {
			return err
		}
		fmt.Fprintf(o.IO.Out, "label quality: foreground P/R/IoU %.3f/%.3f/%.3f over %d labelled pixels; hard examples %.3f/%.3f/%.3f, accuracy %.3f over %d pixels\n",
			q.Labelled.Precision, q.Labelled.Recall, q.Labelled.IoU, q.Labelled.Pixels, q.Hard.Precision, q.Hard.Recall, q.Hard.IoU, q.Hard.Accuracy, q.Hard.Pixels)
		if a := q.AwayFromThin; a != nil {
			fmt.Fprintf(o.IO.Out, "away from object parts thinner than %d px: foreground P/R/IoU %.3f/%.3f/%.3f over %d labelled pixels\n",
				2*morph.ThinRadius+1, a.Precision, a.Recall, a.IoU, a.Pixels)
		}
		if fs := q.UnlabelledObjectFrames(); len(fs) > 0 {
			fmt.Fprintf(o.IO.Out, "object without an object label in %d of %d annotated frames: %s (label_quality.json, by_frame)\n", len(fs), len(q.ByFrame), trainset.FrameSpans(fs))
		}
		if len(q.ByLength) > 0 {
			fmt.Fprint(o.IO.Out, "foreground precision by trajectory length (points):")
			for _, l := range q.ByLength {
				span := fmt.Sprintf("≥%d", l.MinPoints)
				if l.MaxPoints > 0 {
					span = fmt.Sprintf("%d–%d", l.MinPoints, l.MaxPoints)
				}
				fmt.Fprintf(o.IO.Out, " %s %.3f (%d labelled px)", span, l.Precision, l.Pixels)
			}
			fmt.Fprintln(o.IO.Out)
		}
	}
	s := set.Summary()
	fmt.Fprintf(o.IO.Out, "prepared %d frames (%dx%d, %d classes): %d labelled pixels, %d hard examples, %d background trajectories left unlabelled (camera residual > %g), %d foreground points of short trajectories dropped (no long trajectory of their segment within %g px) → %s\n",
		s.Frames, s.Width, s.Height, s.Classes, s.Labelled, s.HardPixels, s.Unexplained, o.Prepare.BackgroundResidual, s.Unsupported, o.Prepare.SupportRadius, o.Out)
	fg := 0
	for _, n := range s.ClassCounts[min(1, len(s.ClassCounts)):] {
		fg += n
	}
	if fg == 0 {
		fmt.Fprintf(o.IO.ErrOut, "warning: %s has no foreground label: every labelled pixel is background (every other segment has fewer than --min-segment %d trajectories, or its points were dropped); densify train refuses a set of one class\n", o.Out, o.Prepare.MinSegment)
	}
	if o.Prepare.ColourWindow > 0 {
		fmt.Fprintf(o.IO.Out, "colour check: %d foreground points of %d trajectories dropped (their colours are, on the whole, the background's; frames within %d)\n", s.ColourRejected, s.ColourRejectedTracks, o.Prepare.ColourWindow)
	}
	if o.Prepare.Unsteady > 0 {
		fmt.Fprintf(o.IO.Out, "steadiness: %d foreground points of %d trajectories dropped (they shake about their segment's motion by more than %g times its typical trajectory)\n", s.Unsteady, s.UnsteadyTracks, o.Prepare.Unsteady)
	}
	if s.HardDropped > 0 {
		fmt.Fprintf(o.IO.Out, "hard examples: %d of the dropped points were theirs (%d hard trajectories; %d hard-example pixels kept)\n", s.HardDropped, s.HardTracks, s.HardPixels)
	}
	if o.Prepare.PrimaryObject {
		fmt.Fprintf(o.IO.Out, "primary object: %d background points beyond it (points of the segments that are not part of it, outside its box grown by %g of its diagonal)\n", s.BeyondPrimary, o.Prepare.PrimaryMargin)
	}
	if o.Prepare.CutsBackground() {
		fmt.Fprintf(o.IO.Out, "background cut: %d background points within %.0f px of the object (a graph cut with the labels as hard constraints gives them to the background, more than %g px from the object)\n", s.CutPoints, o.Prepare.FarRadius(s.Width, s.Height), o.Prepare.CutMargin)
	}
	return nil
}
