"""The upgrade preflight: what an upgrade of one cluster to a target release would break, for every
Application Argo CD deploys there (``apps``: Applications as the preflight reads them; ``evaluate``:
the report, from the deprecated-API knowledge base in core; ``render``: table, JSON, Markdown;
``sources``: live from the management cluster or from ``kubectl -o json`` files; ``cli``: the
``preflight`` verb), and the upgrade gate that the generator runs for clusters whose Secret names an
``upgrade-to`` release (``gate``, publishing through ``publish``)."""
