from argocd_lifecycle.entry import main

main()
