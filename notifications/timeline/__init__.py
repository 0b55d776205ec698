"""Timeline of an Argo CD application, rebuilt from Kubernetes Events and the Application status."""
