from argocd_lifecycle.app.entry import main

main()
