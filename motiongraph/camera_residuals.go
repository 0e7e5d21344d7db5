package motiongraph

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/fileerr"
)

// CameraResidualsFile is the file beside segment.json that holds, per
// trajectory, the median normalised camera residual
// (SegmentResult.CameraResidual).
const CameraResidualsFile = "camera.csv"

const cameraResidualsHeader = "trajectory,camera_residual_median"

// WriteCameraResiduals writes r (one value per trajectory, in track order)
// as CSV with the header "trajectory,camera_residual_median"; a NaN (a
// trajectory without a residual) is an empty field. Atomic.
func WriteCameraResiduals(path string, r []float64) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		fmt.Fprintln(bw, cameraResidualsHeader)
		for i, x := range r {
			if math.IsNaN(x) {
				fmt.Fprintf(bw, "%d,\n", i)
			} else {
				fmt.Fprintf(bw, "%d,%s\n", i, strconv.FormatFloat(x, 'g', -1, 64))
			}
		}
		return bw.Flush()
	})
}

// ReadCameraResiduals reads a file written by WriteCameraResiduals: the
// header, then the trajectories 0, 1, 2, … in order, each with a
// non-negative residual or an empty field (NaN). Errors name the file and
// line.
func ReadCameraResiduals(path string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var out []float64
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if line == 1 {
			if s != cameraResidualsHeader {
				return nil, fileerr.New(path, 1, "header must be %q, got %q", cameraResidualsHeader, clip(s))
			}
			continue
		}
		id, val, ok := strings.Cut(s, ",")
		if !ok {
			return nil, fileerr.New(path, line, "expected \"trajectory,residual\", got %q", clip(s))
		}
		if i, err := strconv.Atoi(strings.TrimSpace(id)); err != nil || i != len(out) {
			return nil, fileerr.New(path, line, "trajectory %q out of order: expected %d", clip(id), len(out))
		}
		val = strings.TrimSpace(val)
		if val == "" {
			out = append(out, math.NaN())
			continue
		}
		x, err := strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return nil, fileerr.New(path, line, "residual %q is not a finite number ≥ 0", clip(val))
		}
		out = append(out, x)
	}
	if err := sc.Err(); err != nil {
		return nil, fileerr.New(path, line+1, "%v", err)
	}
	if line == 0 {
		return nil, fileerr.New(path, 1, "empty file: expected the header %q", cameraResidualsHeader)
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// ReadSegmentReport reads a segment.json written by SegmentFiles; one
// without background clusters (written before the camera-motion decision)
// is an error.
func ReadSegmentReport(path string) (*SegmentReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r SegmentReport
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(r.Background) == 0 {
		return nil, fmt.Errorf("%s: no background_clusters (written by densify segment since the camera-motion decision)", path)
	}
	return &r, nil
}

// CameraBackground returns the background clusters that are background
// because the camera motion explains them (ClusterCamera.Explained ≥ ½),
// not only because they hold the border band: within these clusters a
// trajectory's own residual is evidence of the same kind as the cluster's.
func (r *SegmentReport) CameraBackground() []int {
	var out []int
	for _, c := range r.Camera {
		if c.Background && c.Explained >= 0.5 {
			out = append(out, c.Cluster)
		}
	}
	return out
}

// CameraResidualsPath returns the path of the report's camera-residual file
// (relative names are relative to the folder of segmentJSON), or "" when
// the report has none (written before the file existed).
func (r *SegmentReport) CameraResidualsPath(segmentJSON string) string {
	if r.CameraResiduals == "" {
		return ""
	}
	if filepath.IsAbs(r.CameraResiduals) {
		return r.CameraResiduals
	}
	return filepath.Join(filepath.Dir(segmentJSON), r.CameraResiduals)
}
