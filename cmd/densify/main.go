// Command densify: uncertainty-aware motion segmentation, from video frames
// to sparse multicut segmentations, their uncertainty and dense U-Net masks.
//
// This package is thin and is the composition root: one file per cobra
// command in the style of GitHub's gh CLI — an options struct per command,
// a NewCmdX(f) constructor binding the flags into it, and a runX(opts) that
// calls the stage's one library entry point and prints its typed result to
// the injected streams — so every command runs in-process in tests. main
// wires the native implementations (OpenCV tracker, libtorch U-Net) that the
// cgo-free packages (pipeline, motiongraph's cost fit) take as interfaces.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/slurm"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/video"
	"github.com/spf13/cobra"
)

// IOStreams are a command's input and outputs: results go to Out, progress
// and per-item log lines to ErrOut.
type IOStreams struct {
	In          io.Reader
	Out, ErrOut io.Writer
}

// Factory hands the commands their streams and the native implementations.
type Factory struct {
	IO        *IOStreams
	Tracker   trajectory.SequenceTracker // optical flow + point tracker
	Densifier pipeline.Densifier         // dense network (train, predict)
	// Getenv reads the environment (--shard auto, auto/N); nil: os.Getenv.
	Getenv func(string) string
	// Executable is this binary's path, which the Slurm scripts call; nil:
	// os.Executable.
	Executable func() (string, error)
	// Sbatch submits a batch script (densify slurm --submit); nil:
	// slurm.ExecSbatch.
	Sbatch slurm.Sbatch
}

func (f *Factory) getenv(k string) string {
	if f.Getenv != nil {
		return f.Getenv(k)
	}
	return os.Getenv(k)
}

// NewFactory is the production wiring: the process's standard streams,
// OpenCV's optical flow and the libtorch U-Net, with OpenCV's GrabCut behind
// the refinement "grabcut" ("graphcut", the default, is pure Go).
func NewFactory() *Factory {
	return &Factory{IO: &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr},
		Tracker: video.Tracker{}, Densifier: unetDensifier{Cutter: video.GrabCut{Seed: 1}, Flow: video.DenseFlow{Method: video.DIS}}, Getenv: os.Getenv, Executable: os.Executable,
		Sbatch: slurm.ExecSbatch}
}

// NewCmdRoot builds the densify command tree on f.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:           "densify",
		Short:         "Uncertainty-aware motion segmentation: trajectories → multicut → uncertainty → dense U-Net masks",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Example = rootExample
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	for _, c := range []func(*Factory) *cobra.Command{NewCmdDoctor, NewCmdSynth, NewCmdTrack, NewCmdSegment,
		NewCmdFitCosts, NewCmdMulticut, NewCmdUncertainty, NewCmdSparsify, NewCmdNBest, NewCmdEval,
		NewCmdPrepare, NewCmdTrain, NewCmdPredict, NewCmdRefine, NewCmdAblate, NewCmdRun, NewCmdDecompose,
		NewCmdReport, NewCmdSlurm} {
		root.AddCommand(c(f))
	}
	checks.Install(root)
	return root
}

func main() {
	f := NewFactory()
	if err := NewCmdRoot(f).Execute(); err != nil {
		fmt.Fprintln(f.IO.ErrOut, "densify:", err)
		os.Exit(1)
	}
}
