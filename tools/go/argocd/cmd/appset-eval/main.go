// Command appset-eval runs Argo CD's own ApplicationSet plugin generator and template rendering (the
// packages of the pinned Argo CD release) for one ApplicationSet file, against a live plugin service, and
// prints the Applications it generates as JSON on stdout.
//
// The plugin's ConfigMap and token Secret are read from -objects (a multi-document YAML file) into
// controller-runtime's fake client, so the generator resolves baseUrl, requestTimeout and the `$secret:key`
// token reference exactly as the ApplicationSet controller does in its own namespace. Cluster Secrets in
// the same file feed Argo CD's Cluster generator (also registered), so one ApplicationSet template can be
// rendered from both generators and the results compared.
//
//	appset-eval -appset appset.yaml -objects plugin-config.yaml [-namespace argocd] [-v]
//
// Exit codes: 0 success, 1 the generator or the rendering failed (message on stderr), 2 bad invocation.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	log "github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/applicationset/controllers/template"
	"github.com/argoproj/argo-cd/v3/applicationset/generators"
	"github.com/argoproj/argo-cd/v3/applicationset/utils"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

type result struct {
	Applications []v1alpha1.Application `json:"applications"`
}

func main() {
	appsetPath := flag.String("appset", "", "ApplicationSet YAML file (required)")
	objectsPath := flag.String("objects", "", "YAML file with the plugin ConfigMap and token Secret")
	namespace := flag.String("namespace", "argocd", "the ApplicationSet controller's namespace")
	verbose := flag.Bool("v", false, "log the controller's info messages on stderr")
	flag.Parse()
	if *appsetPath == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: appset-eval -appset FILE [-objects FILE] [-namespace NS] [-v]")
		os.Exit(2)
	}
	log.SetOutput(os.Stderr)
	log.SetLevel(log.WarnLevel)
	if *verbose {
		log.SetLevel(log.InfoLevel)
	}
	if err := run(*appsetPath, *objectsPath, *namespace, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}

func run(appsetPath, objectsPath, namespace string, out io.Writer) error {
	appSet, err := readAppSet(appsetPath)
	if err != nil {
		return err
	}
	objects, err := readObjects(objectsPath, namespace)
	if err != nil {
		return err
	}
	kube := fake.NewClientBuilder().WithObjects(objects...).Build()
	gens := map[string]generators.Generator{
		"Plugin":   generators.NewPluginGenerator(kube, namespace),
		"Clusters": clusterGenerator(kube, objects, namespace),
	}
	logCtx := log.WithField("applicationset", appSet.Name)
	apps, reason, err := template.GenerateApplications(logCtx, *appSet, gens, &utils.Render{}, kube)
	if err != nil {
		return fmt.Errorf("%s: %w", reason, err)
	}
	if apps == nil {
		apps = []v1alpha1.Application{}
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(result{Applications: apps})
}

func readAppSet(path string) (*v1alpha1.ApplicationSet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var appSet v1alpha1.ApplicationSet
	if err := yaml.UnmarshalStrict(data, &appSet); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if appSet.Kind != "ApplicationSet" {
		return nil, fmt.Errorf("%s: kind is %q, expected ApplicationSet", path, appSet.Kind)
	}
	return &appSet, nil
}

// readObjects loads the ConfigMaps and Secrets of a multi-document YAML file, in namespace unless they
// name one. A Secret's stringData is moved into data, as the API server does on write.
func readObjects(path, namespace string) ([]client.Object, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objects []client.Object
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objects, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, i, err)
		}
		var obj client.Object
		switch meta.Kind {
		case "":
			continue // an empty document
		case "ConfigMap":
			obj = &corev1.ConfigMap{}
		case "Secret":
			obj = &corev1.Secret{}
		default:
			return nil, fmt.Errorf("%s: document %d: kind %q is neither ConfigMap nor Secret", path, i, meta.Kind)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, i, err)
		}
		if obj.GetNamespace() == "" {
			obj.SetNamespace(namespace)
		}
		if secret, ok := obj.(*corev1.Secret); ok && len(secret.StringData) > 0 {
			if secret.Data == nil {
				secret.Data = map[string][]byte{}
			}
			for k, v := range secret.StringData {
				secret.Data[k] = []byte(v)
			}
			secret.StringData = nil
		}
		objects = append(objects, obj)
	}
}
