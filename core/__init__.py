"""argocd-lifecycle: makes Argo CD aware of the lifecycle of the clusters it deploys to."""

__version__ = "0.1.0"
