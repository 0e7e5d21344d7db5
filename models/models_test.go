package models

import (
	"encoding/json"
	"testing"
)

func TestPresetsAreValidJSONNamedAfterTheirFile(t *testing.T) {
	names := Names()
	if len(names) < 2 {
		t.Fatalf("want at least unet-paper and unet-cpu, got %v", names)
	}
	for _, n := range names {
		b, err := Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Name      string `json:"name"`
			BaseWidth int    `json:"base_width"`
		}
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("%s.json: %v", n, err)
		}
		if p.Name != n {
			t.Errorf("%s.json names itself %q", n, p.Name)
		}
	}
	if _, err := Lookup(Default); err != nil {
		t.Errorf("default preset: %v", err)
	}
	if _, err := Lookup("nope"); err == nil {
		t.Error("unknown preset accepted")
	}
}
