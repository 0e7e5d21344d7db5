package main

import (
	"fmt"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/sampling"
	"github.com/spf13/cobra"
)

var prepareCmd = &cobra.Command{
	Use:   "prepare --frames DIR --tracks T.dat [--uncertainty U.csv] --out DIR",
	Short: "Build U-Net training data from a labelled sparse segmentation (hard examples from the uncertainty)",
	Long: `prepare turns a labelled Tracks file into a training-set folder: per frame a sparse
label map (frames/NNNNN_labels.npy, int16, -1 = unlabelled), a loss weight map
(NNNNN_weights.npy, float32), the hard-example mask (NNNNN_hard.npy, uint8), PNG
previews and manifest.json. Hard examples (UAI'21 Sec. 4.3): trajectories with
u > μ_A in segments with mean uncertainty μ_A > φ get weight × factor; the
oversampling is a loss weight, so memory does not depend on the factor.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		f := cmd.Flags()
		frames, _ := f.GetString("frames")
		tracks, _ := f.GetString("tracks")
		unc, _ := f.GetString("uncertainty")
		out, _ := f.GetString("out")
		if frames == "" || tracks == "" || out == "" {
			return fmt.Errorf("prepare needs --frames, --tracks and --out")
		}
		opt := prepareOptions
		if seg, _ := f.GetString("segment"); seg != "" {
			bg, err := sampling.ReadBackgroundClusters(seg)
			if err != nil {
				return err
			}
			opt.BackgroundClusters = bg
		}
		var gt *dataset.GroundTruth
		if gtPath, _ := f.GetString("gt"); gtPath != "" {
			var err error
			if gt, err = dataset.LoadGroundTruth(gtPath); err != nil {
				return err
			}
		}
		set, err := sampling.PrepareFiles(frames, tracks, unc, out, opt)
		if err != nil {
			return err
		}
		if gt != nil {
			q := sampling.ScoreLabels(set, gt)
			fmt.Fprintf(cmd.OutOrStdout(), "label quality: foreground P/R/IoU %.3f/%.3f/%.3f over %d labelled pixels; hard examples %.3f/%.3f/%.3f, accuracy %.3f over %d pixels\n",
				q.Labelled.Precision, q.Labelled.Recall, q.Labelled.IoU, q.Labelled.Pixels, q.Hard.Precision, q.Hard.Recall, q.Hard.IoU, q.Hard.Accuracy, q.Hard.Pixels)
		}
		hard, labelled := 0, 0
		for _, fr := range set.Frames {
			hard += fr.NHard
			for _, n := range fr.Counts {
				labelled += n
			}
		}
		fmt.Printf("prepared %d frames (%dx%d, %d classes): %d labelled pixels, %d hard examples → %s\n",
			len(set.Frames), set.Width, set.Height, set.Classes, labelled, hard, out)
		return nil
	},
}

var prepareOptions = sampling.DefaultOptions()

func init() {
	f := prepareCmd.Flags()
	f.String("frames", "", "frames folder of the sequence")
	f.String("tracks", "", "labelled Tracks*.dat (from densify segment)")
	f.String("uncertainty", "", "uncertainty CSV (from densify uncertainty); without it there are no hard examples")
	f.String("out", "", "output training-set folder")
	f.String("segment", "", "segment.json of densify segment: its camera-explained clusters are the background (instead of --background)")
	f.String("gt", "", "ground truth (Def.dat or DAVIS annotation folder): score the training labels against it")
	addPrepareFlags(f, &prepareOptions)
	rootCmd.AddCommand(prepareCmd)
}
