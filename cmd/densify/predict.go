package main

import (
	"fmt"
	"os"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/train"
	"github.com/spf13/cobra"
)

var predictCmd = &cobra.Command{
	Use:   "predict --model CKPT --frames DIR --out DIR",
	Short: "Dense masks per frame from a trained U-Net (DAVIS-style PNGs)",
	Long: `predict runs a trained U-Net (densify train) on every frame of a folder (FBMS or DAVIS
naming) and writes <out>/00000.png, 00001.png, … (frame order): 0/255 grey masks for binary
models, paletted label images (DAVIS palette, value = class) for multi-label models.
--prob adds prob/NNNNN.png (foreground probability ×255), --overlay adds overlay/NNNNN.png
(frame with the mask tinted). Frames of any size work; --scale resizes the input (default:
the scale the model was trained at) and the logits are resized back to the frame's size.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		f := cmd.Flags()
		model, _ := f.GetString("model")
		dir, _ := f.GetString("frames")
		out, _ := f.GetString("out")
		if model == "" || dir == "" || out == "" {
			return fmt.Errorf("predict needs --model, --frames and --out")
		}
		frames, err := dataset.ListFrames(dir)
		if err != nil {
			return err
		}
		opt := predictOptions
		opt.Progress = os.Stderr
		if err := train.Predict(model, frames, out, opt); err != nil {
			return err
		}
		fmt.Printf("%d masks → %s\n", len(frames), out)
		return nil
	},
}

var predictOptions train.PredictOptions

func init() {
	f := predictCmd.Flags()
	f.String("model", "", "checkpoint (model.ckpt from densify train)")
	f.String("frames", "", "frames folder")
	f.String("out", "", "output folder for the masks")
	f.BoolVar(&predictOptions.Prob, "prob", false, "also write probability maps (prob/)")
	f.BoolVar(&predictOptions.Overlay, "overlay", false, "also write overlay previews (overlay/)")
	f.Float64Var(&predictOptions.Scale, "scale", 0, "input scale (0 = the training scale stored in the checkpoint)")
	f.StringVar(&predictOptions.Preset, "preset", "", "refuse checkpoints of another preset")
	f.StringVar(&predictOptions.Device, "device", "cpu", "cpu, cuda or auto")
	f.IntVar(&predictOptions.Threads, "threads", 0, "libtorch CPU threads (0 = all cores)")
	rootCmd.AddCommand(predictCmd)
}
