// Command argocd-k8s-auth is Argo CD's own exec credential helper (the aws, gcp and azure commands of
// its cmd/argocd-k8s-auth), built on its own so the image ships it without the whole argocd binary:
// Argo CD runs `argocd-k8s-auth aws --cluster-name X` for a cluster Secret's awsAuthConfig, and so does
// the generator's prober.
package main

import (
	"os"

	k8sauth "github.com/argoproj/argo-cd/v3/cmd/argocd-k8s-auth/commands"
)

func main() {
	if err := k8sauth.NewCommand().Execute(); err != nil {
		os.Exit(1)
	}
}
