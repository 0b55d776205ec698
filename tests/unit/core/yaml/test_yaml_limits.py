"""core/yaml/yamlio.py's limits: every stream is bounded in depth, aliases and expanded size, files in size,
and a refusal names the place; within the limits the loader's results do not change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.yaml import yamlio

SMALL = yamlio.Limits(max_depth=5, max_aliases=3, max_expanded_bytes=1000, max_file_bytes=100)


def refusal(text: str, limits: yamlio.Limits = SMALL) -> str:
    with pytest.raises(yamlio.LimitError) as caught:
        list(yamlio.load_all(text, limits))
    return yamlio.syntax_error("f.yaml", caught.value)


def test_depth_is_counted_in_collections() -> None:
    assert yamlio.load("a: {b: {c: {d: x}}}\n", SMALL) == {"a": {"b": {"c": {"d": "x"}}}}
    assert refusal("a: {b: {c: {d: {e: {f: x}}}}}\n") == "f.yaml:1:20: refused: nested deeper than 5 levels"


def test_aliases_are_counted_per_stream() -> None:
    assert yamlio.load("a: &a [1]\nb: [*a, *a, *a]\n", SMALL) == {"a": [1], "b": [[1], [1], [1]]}
    # the place is the anchored node's: every alias shares it
    assert refusal("a: &a [1]\nb: [*a, *a, *a, *a]\n") == "f.yaml:1:4: refused: more than 3 aliases"
    # anchors are per document, the count is per stream
    assert refusal("a: &a [1]\nb: [*a, *a]\n---\na: &a [1]\nb: [*a, *a]\n").endswith("more than 3 aliases")


def test_an_alias_counts_the_bytes_it_stands_for() -> None:
    text = "s: &s " + "x" * 400 + "\nl: [*s, *s]\n"
    assert refusal(text) == "f.yaml:1:1: refused: expands to more than 1000 bytes (aliases written out)"
    assert len(yamlio.load(text, yamlio.DEFAULT_LIMITS)["l"][1]) == 400


def test_a_recursive_alias_is_refused() -> None:
    assert refusal("a: &a [*a]\n").endswith("refused: an alias refers to a node that contains it")


def test_a_stream_longer_than_the_expanded_limit_is_refused_before_parsing() -> None:
    with pytest.raises(yamlio.LimitError, match="the stream is over"):
        yamlio.load("x" * 2000, SMALL)


def test_merge_keys_and_tags_still_build_within_the_limits() -> None:
    assert yamlio.load("b: &b {a: 1}\nm: {<<: *b, c: 2}\nt: !!str 3\n") == {
        "b": {"a": 1},
        "m": {"a": 1, "c": 2},
        "t": "3",
    }


def read_error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        yamlio.read_file(path, path.name, SMALL)
    return caught.value.message


def test_read_file_bounds_size_kind_and_encoding(tmp_path: Path) -> None:
    ok = tmp_path / "ok.yaml"
    ok.write_text("a: 1\n")
    assert yamlio.read_file(ok, "ok.yaml", SMALL) == "a: 1\n"
    (tmp_path / "big.yaml").write_text("x" * 101)
    assert read_error(tmp_path / "big.yaml") == "big.yaml: refused: file is 0.0 MiB, over the 100 bytes limit"
    os.mkfifo(tmp_path / "fifo.yaml")  # opened without blocking: the refusal comes at once
    assert read_error(tmp_path / "fifo.yaml") == "fifo.yaml: refused: not a regular file"
    (tmp_path / "latin.yaml").write_bytes(b"a: \xff\n")
    assert read_error(tmp_path / "latin.yaml") == "latin.yaml: not UTF-8 text (byte 3)"
    assert read_error(tmp_path / "missing.yaml") == "missing.yaml: cannot be read (No such file or directory)"


def test_a_limit_error_is_a_yaml_error_callers_already_catch() -> None:
    assert issubclass(yamlio.LimitError, yaml.YAMLError)


def test_load_config_is_bounded_and_never_quotes_the_file(tmp_path: Path) -> None:
    # the one loader of config files (policy, receiver, rules): the size limit, a FIFO, a bomb and a
    # syntax error near a secret are each one ConfigError naming the file, and never its text
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * 200 + "\n")
    with pytest.raises(ConfigError, match=r"cannot read receiver config .*big.yaml: file is 0.0 MiB, over the 100"):
        yamlio.load_config(big, "receiver config", limits=SMALL)
    os.mkfifo(tmp_path / "pipe.yaml")
    with pytest.raises(ConfigError, match=r"pipe\.yaml: not a regular file"):
        yamlio.load_config(tmp_path / "pipe.yaml", "the policy file")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("a: &a [1]\nb: [*a, *a, *a, *a]\n")
    with pytest.raises(ConfigError, match=r"bomb\.yaml: not valid YAML"):
        yamlio.load_config(bomb, "the policy file", limits=SMALL)
    bad = tmp_path / "bad.yaml"
    bad.write_text("token: hunter2-secret\nb: [unclosed: hunter2\n")
    with pytest.raises(ConfigError) as caught:
        yamlio.load_config(bad, "receiver config", where="receiver.yaml")
    assert caught.value.message.startswith("receiver.yaml: not valid YAML (") and "hunter2" not in caught.value.message
    ok = tmp_path / "ok.yaml"
    ok.write_text("Ready: {prune: true}\n")
    assert yamlio.load_config(ok, "the policy file") == {"Ready": {"prune": True}}
