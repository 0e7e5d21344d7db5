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
// trajectory, the median and the upper quartile of its normalised camera
// residuals (SegmentResult.CameraResidual).
const CameraResidualsFile = "camera.csv"

// CameraResidualsVersion is the version of camera.csv's columns: 1, the
// median only; 2, the median and the upper quartile.
const CameraResidualsVersion = 2

const (
	cameraResidualsHeader = "trajectory,camera_residual_median,camera_residual_q75"
	// the header of files written before the upper quartile (medians only)
	cameraResidualsHeaderV1 = "trajectory,camera_residual_median"
)

// CameraResiduals are the per-trajectory evidence of camera.csv, in track
// order; NaN for a trajectory without a residual (a single point).
type CameraResiduals struct {
	Median []float64 // camera.Motion.TrackQuantiles(0.5)
	// Upper is camera.Motion.TrackQuantiles(camera.UpperQuartile); nil
	// when read from a file written before it.
	Upper []float64
}

// WriteCameraResiduals writes r as CSV with the header
// "trajectory,camera_residual_median,camera_residual_q75"; a NaN is an
// empty field. Median and Upper have one value per trajectory. Atomic.
func WriteCameraResiduals(path string, r CameraResiduals) error {
	if len(r.Upper) != len(r.Median) {
		return fmt.Errorf("%s: %d medians but %d upper quartiles", path, len(r.Median), len(r.Upper))
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		fmt.Fprintln(bw, cameraResidualsHeader)
		for i := range r.Median {
			fmt.Fprintf(bw, "%d,%s,%s\n", i, residualField(r.Median[i]), residualField(r.Upper[i]))
		}
		return bw.Flush()
	})
}

func residualField(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// ReadCameraResiduals reads a file written by WriteCameraResiduals: the
// header, then the trajectories 0, 1, 2, … in order, each with non-negative
// residuals or empty fields (NaN). A file of the earlier format (header
// "trajectory,camera_residual_median", one value a line) gives the medians
// and a nil Upper. Errors name the file and line.
func ReadCameraResiduals(path string) (CameraResiduals, error) {
	var out CameraResiduals
	f, err := os.Open(path)
	if err != nil {
		return out, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	line, fields := 0, 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if line == 1 {
			switch s {
			case cameraResidualsHeader:
				fields = 2
				out.Upper = []float64{} // non-nil even without trajectories
			case cameraResidualsHeaderV1:
				fields = 1
			default:
				return CameraResiduals{}, fileerr.New(path, 1, "header must be %q, got %q", cameraResidualsHeader, clip(s))
			}
			continue
		}
		parts := strings.Split(s, ",")
		if len(parts) != fields+1 {
			return CameraResiduals{}, fileerr.New(path, line, "expected %d comma-separated fields (%s), got %q", fields+1, strings.Join(strings.Split(cameraResidualsHeader, ",")[:fields+1], ", "), clip(s))
		}
		if i, err := strconv.Atoi(strings.TrimSpace(parts[0])); err != nil || i != len(out.Median) {
			return CameraResiduals{}, fileerr.New(path, line, "trajectory %q out of order: expected %d", clip(parts[0]), len(out.Median))
		}
		vals := make([]float64, fields)
		for k, p := range parts[1:] {
			p = strings.TrimSpace(p)
			if p == "" {
				vals[k] = math.NaN()
				continue
			}
			x, err := strconv.ParseFloat(p, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return CameraResiduals{}, fileerr.New(path, line, "residual %q is not a finite number ≥ 0", clip(p))
			}
			vals[k] = x
		}
		out.Median = append(out.Median, vals[0])
		if fields == 2 {
			out.Upper = append(out.Upper, vals[1])
		}
	}
	if err := sc.Err(); err != nil {
		return CameraResiduals{}, fileerr.New(path, line+1, "%v", err)
	}
	if line == 0 {
		return CameraResiduals{}, fileerr.New(path, 1, "empty file: expected the header %q", cameraResidualsHeader)
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
