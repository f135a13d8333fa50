package crds

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

//go:embed *.yaml
var files embed.FS

// ControllerGen is the controller-gen that go generate runs.
const ControllerGen = "sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0"

// Files returns the generated YAML documents by file name, sorted.
func Files() (map[string][]byte, error) {
	out := map[string][]byte{}
	names, err := fs.Glob(files, "*.yaml")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out[n] = b
	}
	return out, nil
}

// All returns the CRDs, sorted by name.
func All() ([]*apiextv1.CustomResourceDefinition, error) {
	fm, err := Files()
	if err != nil {
		return nil, err
	}
	var out []*apiextv1.CustomResourceDefinition
	for name, b := range fm {
		var crd apiextv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(b, &crd); err != nil {
			return nil, fmt.Errorf("crds: %s: %w", name, err)
		}
		out = append(out, &crd)
	}
	slices.SortFunc(out, func(a, b *apiextv1.CustomResourceDefinition) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out, nil
}
