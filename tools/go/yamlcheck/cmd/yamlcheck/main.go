// yamlcheck reads a YAML stream the way Argo CD's repo-server does (gitops-engine's SplitYAMLToString:
// apimachinery's YAML-or-JSON decoder on top of sigs.k8s.io/yaml, go-yaml v2 underneath) and prints one
// JSON line per document, so tests can compare what our YAML means with what Kubernetes reads:
//
//	{"tree": <go-yaml's own typed value>, "json": <the document as JSON>}   (or "json_error": "...")
//
// The tree keeps the decoder's types: ["str", s], ["int", "123"], ["float", "1.5"|"NaN"|"+Inf"],
// ["bool", b], ["null"], ["seq", [...]], ["map", [[key, value], ...]] (map order is Go's: unordered).
// The last line is Argo CD's verdict on the whole stream: {"documents": N}, or {"error": "..."} when it
// refuses the stream (a document that cannot become JSON fails the whole render). Input on stdin; exit 0
// unless stdin cannot be read.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"go.yaml.in/yaml/v2"
	"k8s.io/apimachinery/pkg/runtime"
	kubeyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

func tree(v interface{}) (interface{}, error) {
	switch t := v.(type) {
	case nil:
		return []interface{}{"null"}, nil
	case string:
		return []interface{}{"str", t}, nil
	case bool:
		return []interface{}{"bool", t}, nil
	case int:
		return []interface{}{"int", strconv.FormatInt(int64(t), 10)}, nil
	case int64:
		return []interface{}{"int", strconv.FormatInt(t, 10)}, nil
	case uint64:
		return []interface{}{"int", strconv.FormatUint(t, 10)}, nil
	case float64:
		return []interface{}{"float", strconv.FormatFloat(t, 'g', -1, 64)}, nil
	case []interface{}:
		items := make([]interface{}, 0, len(t))
		for _, item := range t {
			encoded, err := tree(item)
			if err != nil {
				return nil, err
			}
			items = append(items, encoded)
		}
		return []interface{}{"seq", items}, nil
	case map[interface{}]interface{}:
		pairs := make([]interface{}, 0, len(t))
		for key, value := range t {
			k, err := tree(key)
			if err != nil {
				return nil, err
			}
			val, err := tree(value)
			if err != nil {
				return nil, err
			}
			pairs = append(pairs, []interface{}{k, val})
		}
		return []interface{}{"map", pairs}, nil
	}
	return nil, fmt.Errorf("unexpected decoded type %T", v)
}

// documents: what Argo CD takes from the stream, exactly as SplitYAMLToString does it
func documents(data []byte) ([]json.RawMessage, error) {
	decoder := kubeyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []json.RawMessage
	for {
		ext := runtime.RawExtension{}
		if err := decoder.Decode(&ext); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		ext.Raw = bytes.TrimSpace(ext.Raw)
		if len(ext.Raw) == 0 || bytes.Equal(ext.Raw, []byte("null")) {
			continue
		}
		out = append(out, json.RawMessage(ext.Raw))
	}
}

// values: the same documents split by the same reader, each decoded by go-yaml v2 into interface{}
// (the value sigs.k8s.io/yaml converts to JSON) and by sigs.k8s.io/yaml into JSON on its own
func values(data []byte) ([]map[string]interface{}, error) {
	reader := kubeyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []map[string]interface{}
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		var value interface{}
		if err := yaml.Unmarshal(doc, &value); err != nil {
			return out, err
		}
		if value == nil {
			continue
		}
		encoded, err := tree(value)
		if err != nil {
			return out, err
		}
		line := map[string]interface{}{"tree": encoded}
		if j, err := sigsyaml.YAMLToJSON(doc); err != nil {
			line["json_error"] = err.Error()
		} else {
			line["json"] = json.RawMessage(j)
		}
		out = append(out, line)
	}
}

func main() {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "yamlcheck:", err)
		os.Exit(1)
	}
	out := json.NewEncoder(os.Stdout)
	lines, valuesErr := values(data)
	for _, line := range lines {
		_ = out.Encode(line)
	}
	// the verdict of Argo CD's own splitting on the whole stream
	docs, err := documents(data)
	switch {
	case valuesErr != nil:
		_ = out.Encode(map[string]string{"error": valuesErr.Error()})
	case err != nil:
		_ = out.Encode(map[string]string{"error": err.Error()})
	case len(docs) != len(lines):
		_ = out.Encode(map[string]string{"error": fmt.Sprintf("Argo CD splits %d documents, the reader %d", len(docs), len(lines))})
	default:
		_ = out.Encode(map[string]int{"documents": len(docs)})
	}
}
