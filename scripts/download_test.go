// Tests of the dataset download scripts against local file:// archives built
// from synthetic sequences in the official FBMS59 and DAVIS 2016 layouts
// (there is no internet here; the scripts themselves use curl either way).
package scripts

import (
	"archive/zip"
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/densify/densify/synth"
)

func need(t *testing.T, cmds ...string) {
	for _, c := range cmds {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s not installed", c)
		}
	}
}

// callerEnvWithout is this process's environment without the variables
// named, so that the caller's settings of a script's variables do not leak
// into a test's run of it.
func callerEnvWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !slices.Contains(names, strings.SplitN(kv, "=", 2)[0]) {
			env = append(env, kv)
		}
	}
	return env
}

// zipDir zips the folder src into file, with archive paths prefix/<relative path>.
func zipDir(t *testing.T, src, prefix, file string) {
	t.Helper()
	out, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(out)
	err = filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		w, err := zw.Create(filepath.ToSlash(filepath.Join(prefix, rel)))
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out.Close()
}

func smallSequence(t *testing.T, seed int64) *synth.Sequence {
	p := synth.DefaultParams()
	p.Width, p.Height, p.Frames, p.Seed, p.GTEvery = 64, 48, 3, seed, 1
	s, err := synth.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func run(t *testing.T, env []string, args ...string) (string, error) {
	cmd := exec.Command("bash", args...)
	cmd.Env = append(os.Environ(), env...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.String(), err
}

func digest(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestDownloadFBMS59FromLocalArchive(t *testing.T) {
	need(t, "curl", "unzip")
	src := t.TempDir()
	for i, split := range []string{"Trainingset", "Testset"} {
		root := filepath.Join(src, "layout", split)
		if err := smallSequence(t, int64(i+1)).Write(root, "synth0"+string(rune('1'+i))); err != nil {
			t.Fatal(err)
		}
		zipDir(t, root, split, filepath.Join(src, "FBMS_"+split+".zip"))
	}
	env := []string{"FBMS_BASE_URL=file://" + src}

	dest := filepath.Join(t.TempDir(), "fbms")
	out, err := run(t, env, "download-fbms59.sh", dest)
	if err != nil {
		t.Fatalf("download failed: %v\n%s", err, out)
	}
	for _, p := range []string{"Trainingset/synth01/GroundTruth/synth01Def.dat", "Trainingset/synth01/synth01_0001.png", "Testset/synth02/GroundTruth/synth02Def.dat"} {
		if _, err := os.Stat(filepath.Join(dest, p)); err != nil {
			t.Fatalf("missing %s after download:\n%s", p, out)
		}
	}
	rec, err := os.ReadFile(filepath.Join(dest, ".downloads", "FBMS_Trainingset.zip.sha256"))
	if err != nil || strings.TrimSpace(string(rec)) != digest(t, filepath.Join(src, "FBMS_Trainingset.zip")) {
		t.Fatalf("recorded checksum %q, %v", rec, err)
	}
	// Idempotent: a second run does nothing.
	if out, err := run(t, env, "download-fbms59.sh", dest); err != nil || !strings.Contains(out, "already") {
		t.Fatalf("second run: %v\n%s", err, out)
	}

	// Resumable: half an archive in .part is completed, not restarted or appended.
	dest2 := filepath.Join(t.TempDir(), "fbms")
	whole, _ := os.ReadFile(filepath.Join(src, "FBMS_Trainingset.zip"))
	os.MkdirAll(filepath.Join(dest2, ".downloads"), 0o755)
	os.WriteFile(filepath.Join(dest2, ".downloads", "FBMS_Trainingset.zip.part"), whole[:len(whole)/2], 0o644)
	if out, err := run(t, env, "download-fbms59.sh", dest2); err != nil {
		t.Fatalf("resume failed: %v\n%s", err, out)
	}
	if got := digest(t, filepath.Join(dest2, ".downloads", "FBMS_Trainingset.zip")); got != digest(t, filepath.Join(src, "FBMS_Trainingset.zip")) {
		t.Fatal("resumed archive differs from the source")
	}

	// A wrong pinned checksum fails with a clear message and unpacks nothing.
	dest3 := filepath.Join(t.TempDir(), "fbms")
	out, err = run(t, append(env, "FBMS_TRAIN_SUM=sha256:"+strings.Repeat("0", 64)), "download-fbms59.sh", dest3)
	if err == nil || !strings.Contains(out, "checksum mismatch") {
		t.Fatalf("bad checksum accepted: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dest3, "Trainingset")); err == nil {
		t.Fatal("unpacked despite a checksum mismatch")
	}
	// A missing archive fails with a non-zero exit.
	if out, err := run(t, []string{"FBMS_BASE_URL=file://" + t.TempDir()}, "download-fbms59.sh", filepath.Join(t.TempDir(), "x")); err == nil {
		t.Fatalf("missing archive accepted:\n%s", out)
	}
}

func TestDownloadDAVIS2016FromLocalArchive(t *testing.T) {
	need(t, "curl", "unzip")
	src := t.TempDir()
	s := smallSequence(t, 3)
	layout := filepath.Join(src, "layout")
	for f, img := range s.Frames {
		name := filepath.Join(layout, "JPEGImages", "480p", "synth", strings.Repeat("0", 3)+string(rune('0'+f/10))+string(rune('0'+f%10)))
		os.MkdirAll(filepath.Dir(name), 0o755)
		fj, _ := os.Create(name + ".jpg")
		jpeg.Encode(fj, img, nil)
		fj.Close()
		ann := strings.Replace(name, "JPEGImages", "Annotations", 1) + ".png"
		os.MkdirAll(filepath.Dir(ann), 0o755)
		fp, _ := os.Create(ann)
		mask := image.NewGray(image.Rect(0, 0, s.Width, s.Height))
		for i, r := range s.Regions[f] {
			if r != 0 {
				mask.Pix[i] = 255
			}
		}
		png.Encode(fp, mask)
		fp.Close()
	}
	os.MkdirAll(filepath.Join(layout, "ImageSets", "480p"), 0o755)
	os.WriteFile(filepath.Join(layout, "ImageSets", "480p", "val.txt"), []byte("synth\n"), 0o644)
	archive := filepath.Join(src, "DAVIS-data.zip")
	zipDir(t, layout, "DAVIS", archive)
	f, _ := os.Open(archive)
	h := md5.New()
	io.Copy(h, f)
	f.Close()
	env := []string{"DAVIS_URL=file://" + archive, "DAVIS_MD5=md5:" + hex.EncodeToString(h.Sum(nil))}

	dest := filepath.Join(t.TempDir(), "davis")
	if out, err := run(t, env, "download-davis2016.sh", dest); err != nil {
		t.Fatalf("download failed: %v\n%s", err, out)
	}
	for _, p := range []string{"JPEGImages/480p/synth/00000.jpg", "Annotations/480p/synth/00002.png", "ImageSets/480p/val.txt"} {
		if _, err := os.Stat(filepath.Join(dest, p)); err != nil {
			t.Fatalf("missing %s", p)
		}
	}
	bad := filepath.Join(t.TempDir(), "davis")
	out, err := run(t, []string{"DAVIS_URL=file://" + archive, "DAVIS_MD5=md5:" + strings.Repeat("f", 32)}, "download-davis2016.sh", bad)
	if err == nil || !strings.Contains(out, "checksum mismatch") {
		t.Fatalf("bad md5 accepted: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(bad, "JPEGImages")); err == nil {
		t.Fatal("unpacked despite a checksum mismatch")
	}
}
