from argocd_lifecycle.cli import main

main()
