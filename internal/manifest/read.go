package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/udnkit/udnkit/internal/sdkerr"
)

// ErrRead is wrapped by every error of Read and ReadPaths: a stream that is
// not YAML or JSON, a document without a kind, a List whose items are not
// objects.
var ErrRead = sdkerr.New(sdkerr.Invalid, "manifest: read")

// Object is one Kubernetes object of a stream, as read: its type and
// identity, where it came from, and its JSON.
type Object struct {
	APIVersion, Kind string
	// Namespace is empty for cluster-scoped objects.
	Namespace, Name string
	// Source says where the object is: "FILE: document N" or
	// "FILE: document N, items[I]" (N from 1, empty documents not
	// counted; I from 0).
	Source string
	// JSON is the object as JSON, what the typed decoders read.
	JSON []byte
}

// Key returns "<namespace>/<name>", or the name of a cluster-scoped object.
func (o Object) Key() string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// Group returns the API group of the object's apiVersion ("" for the core
// group).
func (o Object) Group() string {
	g, _, ok := strings.Cut(o.APIVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// header is what Read looks at in every document.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

// maxDocument bounds one document of a stream (kubectl's dumps of large
// clusters stay far below it).
const maxDocument = 64 << 20

// Read reads a YAML or JSON stream as kubectl prints it: documents separated
// by "---" (or concatenated JSON values), each an object or a List (any kind
// ending in "List" with items) whose items are read in order. Empty
// documents are skipped. source names the stream in Object.Source and in
// errors.
func Read(r io.Reader, source string) ([]Object, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(io.LimitReader(r, maxDocument), 4096)
	var out []Object
	for doc := 1; ; doc++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w: %v", source, doc, ErrRead, err)
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		where := fmt.Sprintf("%s: document %d", source, doc)
		objs, err := objects(raw, where)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
}

// objects returns the object raw holds, or a List's items.
func objects(raw []byte, where string) ([]Object, error) {
	if raw[0] != '{' {
		return nil, fmt.Errorf("%s: %w: not an object", where, ErrRead)
	}
	var h header
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", where, ErrRead, err)
	}
	if h.Kind == "" {
		return nil, fmt.Errorf("%s: kind: %w: missing", where, ErrRead)
	}
	if strings.HasSuffix(h.Kind, "List") && h.Metadata.Name == "" {
		var out []Object
		for i, item := range h.Items {
			item = bytes.TrimSpace(item)
			at := fmt.Sprintf("%s, items[%d]", where, i)
			if len(item) == 0 || item[0] != '{' {
				return nil, fmt.Errorf("%s: %w: not an object", at, ErrRead)
			}
			inner, err := objects(item, at)
			if err != nil {
				return nil, err
			}
			out = append(out, inner...)
		}
		return out, nil
	}
	if h.Metadata.Name == "" {
		return nil, fmt.Errorf("%s: %s: metadata.name: %w: missing", where, h.Kind, ErrRead)
	}
	return []Object{{APIVersion: h.APIVersion, Kind: h.Kind, Namespace: h.Metadata.Namespace,
		Name: h.Metadata.Name, Source: where, JSON: slices.Clone(raw)}}, nil
}

// ReadPaths reads every path in order: "-" is stdin, a directory is every
// .yaml, .yml and .json file in it (not recursive), sorted by name.
func ReadPaths(paths []string, stdin io.Reader) ([]Object, error) {
	var out []Object
	for _, p := range paths {
		if p == "-" {
			objs, err := Read(stdin, "<stdin>")
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
			continue
		}
		files := []string{p}
		if fi, err := os.Stat(p); err != nil {
			return nil, err
		} else if fi.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, err
			}
			files = files[:0]
			for _, e := range entries {
				switch filepath.Ext(e.Name()) {
				case ".yaml", ".yml", ".json":
					if !e.IsDir() {
						files = append(files, filepath.Join(p, e.Name()))
					}
				}
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("%s: %w: no .yaml, .yml or .json file", p, ErrRead)
			}
		}
		for _, f := range files {
			objs, err := readFile(f)
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
		}
	}
	return out, nil
}

func readFile(path string) ([]Object, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}
