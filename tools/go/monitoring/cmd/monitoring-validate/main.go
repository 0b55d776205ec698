// monitoring-validate decodes Prometheus Operator objects (ServiceMonitor, PrometheusRule) from YAML
// streams into the operator's own Go types, refusing unknown fields, so the chart's optional
// monitoring objects are checked as strictly as the built-in kinds. Other kinds are skipped.
//
// Usage: monitoring-validate FILE... (or stdin). Prints one line per object; exit 1 on any error.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

type head struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

func target(kind string) any {
	switch kind {
	case "ServiceMonitor":
		return &monitoringv1.ServiceMonitor{}
	case "PrometheusRule":
		return &monitoringv1.PrometheusRule{}
	case "PodMonitor":
		return &monitoringv1.PodMonitor{}
	}
	return nil
}

func check(name string, r io.Reader, out io.Writer) (int, error) {
	failures := 0
	reader := utilyaml.NewYAMLReader(bufio.NewReader(r))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return failures, nil
		}
		if err != nil {
			return failures, fmt.Errorf("%s: %w", name, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var h head
		if err := yaml.Unmarshal(doc, &h); err != nil {
			return failures, fmt.Errorf("%s: %w", name, err)
		}
		if h.Kind == "" {
			continue
		}
		obj := target(h.Kind)
		if h.APIVersion != "monitoring.coreos.com/v1" || obj == nil {
			fmt.Fprintf(out, "skip %s/%s\n", h.Kind, h.Metadata.Name)
			continue
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			failures++
			fmt.Fprintf(out, "error %s/%s: %v\n", h.Kind, h.Metadata.Name, err)
			continue
		}
		fmt.Fprintf(out, "ok %s/%s\n", h.Kind, h.Metadata.Name)
	}
}

func main() {
	failures := 0
	run := func(name string, r io.Reader) {
		n, err := check(name, r, os.Stdout)
		failures += n
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(2)
		}
	}
	if len(os.Args) < 2 {
		run("stdin", os.Stdin)
	}
	for _, path := range os.Args[1:] {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(2)
		}
		run(path, f)
		_ = f.Close()
	}
	if failures > 0 {
		os.Exit(1)
	}
}
