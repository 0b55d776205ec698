//go:build !argocd3_4

package main

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/argoproj/argo-cd/v3/applicationset/generators"
)

// clusterGenerator before Argo CD v3.4: the Cluster generator lists cluster Secrets through a
// client-go clientset, here a fake one holding the same objects as the controller-runtime client.
func clusterGenerator(kube client.Client, objects []client.Object, namespace string) generators.Generator {
	runtimeObjects := make([]runtime.Object, len(objects))
	for i, obj := range objects {
		runtimeObjects[i] = obj
	}
	clientset := kubefake.NewClientset(runtimeObjects...)
	return generators.NewClusterGenerator(context.Background(), kube, clientset, namespace)
}
