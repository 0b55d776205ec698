//go:build argocd3_4

package main

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/argoproj/argo-cd/v3/applicationset/generators"
)

// clusterGenerator from Argo CD v3.4 (tools/build.sh sets the argocd3_4 tag): the Cluster generator
// reads cluster Secrets through the controller-runtime client alone.
func clusterGenerator(kube client.Client, _ []client.Object, namespace string) generators.Generator {
	return generators.NewClusterGenerator(kube, namespace)
}
