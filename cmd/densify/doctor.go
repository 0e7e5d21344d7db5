package main

import (
	"fmt"
	"os"

	"github.com/densify/densify/unet"
	"github.com/spf13/cobra"
	"gocv.io/x/gocv"
)

var doctorCmd = &cobra.Command{
	Use:   "doctor",
	Short: "Check the native stack: Go, libtorch, OpenCV, CUDA, threads, and a tiny U-Net training step",
	Long: `doctor prints the Go version, the libtorch library in use and its version, the
OpenCV version, CUDA availability and libtorch's intra-op thread count, then runs a few
forward/backward/Adam steps of a tiny U-Net on the chosen device. It exits non-zero
with a hint when something is off (e.g. --device cuda on a CPU-only libtorch).`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, args []string) error {
		device, _ := cmd.Flags().GetString("device")
		threads, _ := cmd.Flags().GetInt("threads")
		w := cmd.OutOrStdout()
		fmt.Fprintf(w, "opencv:    %s (gocv %s)\n", gocv.OpenCVVersion(), gocv.Version())
		if err := unet.Doctor(w, unet.DoctorOptions{Device: device, Threads: threads}); err != nil {
			return fmt.Errorf("doctor: %w", err)
		}
		fmt.Fprintln(w, "ok")
		return nil
	},
}

func init() {
	doctorCmd.Flags().String("device", "cpu", "device for the test step: cpu, cuda or auto")
	doctorCmd.Flags().Int("threads", 0, "libtorch intra-op threads (0 = all cores)")
	doctorCmd.SetErr(os.Stderr)
	rootCmd.AddCommand(doctorCmd)
}
