// Command densify: uncertainty-aware motion segmentation, from video frames
// to sparse multicut segmentations, their uncertainty and dense U-Net masks.
//
// This package is thin: one file per cobra command, each parsing flags and
// calling the packages that do the work. Commands register themselves on
// rootCmd from an init function in their own file.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

var rootCmd = &cobra.Command{
	Use:           "densify",
	Short:         "Uncertainty-aware motion segmentation: trajectories → multicut → uncertainty → dense U-Net masks",
	SilenceUsage:  true,
	SilenceErrors: true,
}

func main() {
	if err := rootCmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "densify:", err)
		os.Exit(1)
	}
}
