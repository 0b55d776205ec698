"""Kubernetes plumbing: the only client module (``client.py``, which alone imports the ``kubernetes``
package), paged lists and ``kubectl -o json`` files (``lists.py``), and the wire shapes every reader
builds on (``wire.py``). The package itself imports nothing, so a wire shape costs no client import."""
