from __future__ import annotations

from argocd_lifecycle.notifications.catalog.prune import prune, prune_field


def test_keeps_what_is_used_directly_or_through_other_variables() -> None:
    text = "\n".join(
        [
            '{{- $a := dig "metadata" "name" "" .app -}}',
            '{{- $b := printf "%s!" $a -}}',
            '{{- $unused := "x" -}}',
            '{{- $ab := "similar prefix" -}}',
            "{{ $b }}",
        ]
    )
    assert prune_field(text) == "\n".join(
        ['{{- $a := dig "metadata" "name" "" .app -}}', '{{- $b := printf "%s!" $a -}}', "{{ $b }}"]
    )


def test_reassignments_keep_their_variable() -> None:
    text = "{{- $xs := list -}}\n{{- range .items -}}{{- $xs = append $xs . -}}{{- end -}}\n{{ len $xs }}"
    assert prune_field(text) == text


def test_structures_are_walked() -> None:
    assert prune({"a": ["{{- $x := 1 -}}\nplain"], "n": 1}) == {"a": ["plain"], "n": 1}
