"""Cluster API as a source of clusters and of lifecycle intent (``generator serve --capi``).

A CAPI Cluster whose control plane is initialised gets an Argo CD cluster Secret written from CAPI's
``<cluster>-kubeconfig`` Secret and owned by us; CAPI's intent (a higher desired version, a deletion,
worker replicas) becomes the annotations and Events the lifecycle state machine in ``fleet`` already
acts on. Pure parts: ``objects`` (wire -> domain), ``kubeconfig``, ``intent``, ``registration``; the
running parts: ``store`` (the watched objects), ``reconciler`` (writes), ``announce`` (Events, posts),
``source`` (the list/watch threads).
"""
