package main

import (
	"slices"
	"strings"

	"github.com/densify/densify/pipeline"
)

// variantsFlag binds a list of pipeline variants (pflag.Value).
type variantsFlag struct{ v *[]pipeline.Variant }

func (f variantsFlag) String() string {
	if f.v == nil {
		return ""
	}
	s := make([]string, len(*f.v))
	for i, v := range *f.v {
		s[i] = string(v)
	}
	return strings.Join(s, ",")
}

func (f variantsFlag) Set(s string) error {
	var out []pipeline.Variant
	for _, name := range strings.Split(s, ",") {
		v, err := pipeline.ParseVariant(strings.TrimSpace(name))
		if err != nil {
			return err
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	*f.v = out
	return nil
}

func (f variantsFlag) Type() string { return "variants" }
