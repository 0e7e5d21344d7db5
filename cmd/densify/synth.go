package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/densify/densify/synth"
	"github.com/densify/densify/trajectory"
	"github.com/spf13/cobra"
)

var synthCmd = &cobra.Command{
	Use:   "synth --out DIR [--count 1] [--frames 30] [--width 320] [--height 240] [--objects 2] [--seed 1] [--gt-every 5] [--tracks]",
	Short: "Generate synthetic FBMS-layout sequences with exact ground truth (the embedded default data)",
	Long: `synth renders textured scenes: a background under camera pan and zoom and 1–6 moving,
rotating, scaling textured objects that occlude each other; object 1 is articulated, with
2–4 thin (3–5 px) limbs swinging around joints. Sequence i (1-based) is named synth<ii>
and uses seed + i − 1, so every sequence differs and each is reproducible.

Written per sequence (FBMS layout):
  DIR/<seq>/<seq>_0001.png …                       frames
  DIR/<seq>/GroundTruth/<seq>Def.dat               ground truth every --gt-every frames
  DIR/<seq>/GroundTruth/<seq>_0001.ppm …           label images (background black, objects
                                                   red, green, blue, yellow, magenta, cyan)
with --tracks also
  DIR/<seq>/<seq>Tracks<frames>_gt.dat             true trajectories of scene points on a
                                                   --spacing grid, labelled with their region
  DIR/<seq>/<seq>Tracks<frames>_corrupt.dat        the same with --corrupt of the labels
                                                   wrong (half at object boundaries)`,
	Args: cobra.NoArgs,
	RunE: runSynth,
}

func init() {
	d := synth.DefaultParams()
	f := synthCmd.Flags()
	f.String("out", "", "output folder (required)")
	f.Int("count", 1, "number of sequences")
	f.Int("frames", d.Frames, "frames per sequence")
	f.Int("width", d.Width, "frame width")
	f.Int("height", d.Height, "frame height")
	f.Int("objects", d.Objects, fmt.Sprintf("moving objects per sequence (1..%d; object 1 is articulated)", synth.MaxObjects))
	f.Int64("seed", d.Seed, "random seed of the first sequence (sequence i uses seed+i-1)")
	f.Int("gt-every", d.GTEvery, "a ground-truth label image every N frames (from the first)")
	f.Float64("noise", d.Noise, "standard deviation of the Gaussian pixel noise (grey levels)")
	f.Float64("illumination", d.Illumination, "amplitude of the global brightness oscillation (fraction)")
	f.Bool("soft-boundary", false, "ground-truth probability 0.5 on 1-px region boundaries (.pgm beside the .ppm)")
	f.Bool("tracks", false, "also write ground-truth and corrupted trajectory files")
	f.Int("spacing", 8, "grid spacing of the ground-truth trajectories (px)")
	f.Float64("corrupt", 0.1, "fraction of trajectory labels made wrong in the _corrupt file")
	rootCmd.AddCommand(synthCmd)
}

func runSynth(cmd *cobra.Command, _ []string) error {
	f := cmd.Flags()
	out, _ := f.GetString("out")
	count, _ := f.GetInt("count")
	p := synth.DefaultParams()
	p.Frames, _ = f.GetInt("frames")
	p.Width, _ = f.GetInt("width")
	p.Height, _ = f.GetInt("height")
	p.Objects, _ = f.GetInt("objects")
	p.Seed, _ = f.GetInt64("seed")
	p.GTEvery, _ = f.GetInt("gt-every")
	p.Noise, _ = f.GetFloat64("noise")
	p.Illumination, _ = f.GetFloat64("illumination")
	p.SoftBoundary, _ = f.GetBool("soft-boundary")
	withTracks, _ := f.GetBool("tracks")
	spacing, _ := f.GetInt("spacing")
	corrupt, _ := f.GetFloat64("corrupt")
	switch {
	case out == "":
		return errors.New("synth: --out is required")
	case count < 1 || count > 999:
		return fmt.Errorf("synth: --count %d out of range (1..999)", count)
	case spacing < 1:
		return fmt.Errorf("synth: --spacing %d must be ≥ 1", spacing)
	case !(corrupt >= 0 && corrupt <= 1):
		return fmt.Errorf("synth: --corrupt %v out of range (0..1)", corrupt)
	}
	if err := p.Validate(); err != nil {
		return err
	}
	seed := p.Seed
	for i := 0; i < count; i++ {
		start := time.Now()
		name := fmt.Sprintf("synth%02d", i+1)
		p.Seed = seed + int64(i)
		s, err := synth.Generate(p)
		if err != nil {
			return err
		}
		if err := s.Write(out, name); err != nil {
			return err
		}
		msg := fmt.Sprintf("%d frames %dx%d, %d objects, seed %d", p.Frames, p.Width, p.Height, p.Objects, p.Seed)
		if withTracks {
			gt := s.GroundTruthTracks(spacing)
			base := filepath.Join(out, name, fmt.Sprintf("%sTracks%d", name, p.Frames))
			if err := trajectory.WriteTracks(base+"_gt.dat", gt); err != nil {
				return err
			}
			if err := trajectory.WriteTracks(base+"_corrupt.dat", synth.Corrupt(gt, corrupt, p.Seed)); err != nil {
				return err
			}
			msg += fmt.Sprintf(", %d ground-truth tracks (%.0f%% corrupted copy)", len(gt.Tracks), 100*corrupt)
		}
		fmt.Fprintf(os.Stderr, "[%d/%d] %s: %s → %s (%.2fs)\n", i+1, count, name, msg,
			filepath.Join(out, name), time.Since(start).Seconds())
	}
	return nil
}
