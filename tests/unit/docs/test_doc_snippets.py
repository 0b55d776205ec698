"""Every YAML and JSON block of README and docs parses, and what a block names is what the code has:
receiver configs are what the receiver accepts, chart values what the chart's schema accepts, ApplicationSet
templates use generator parameters that exist, plugin parameters are the plugin's, and every
`argocd-lifecycle` command line runs a command with options it has. A block after
`<!-- illustrative: why -->` is parsed but its names are not checked."""

from __future__ import annotations

import copy
import json
import re
import shlex
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from argocd_lifecycle.notifications.receiver.config import parse as parse_receiver_config
from tests.unit.docs import names
from tests.unit.docs.blocks import REPO, Block, all_blocks, write_named_files

CHART = REPO / "charts" / "argocd-lifecycle"
BLOCKS = all_blocks()
YAML_BLOCKS = [b for b in BLOCKS if b.lang in ("yaml", "yml")]
CHECKED = [b for b in YAML_BLOCKS if not b.illustrative]
SHELL = [b for b in BLOCKS if b.lang in ("sh", "bash", "shell", "console") and not b.illustrative]
CHART_VALUES_COMMENT = "# chart values"


def ids(block: Block) -> str:
    return block.where


def documents(block: Block) -> list[Any]:
    return [d for d in yaml.safe_load_all(block.text) if d is not None]


def test_the_docs_have_blocks() -> None:
    assert len(YAML_BLOCKS) > 10 and SHELL


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang in ("yaml", "yml", "json")], ids=ids)
def test_every_yaml_and_json_block_parses(block: Block) -> None:
    try:
        json.loads(block.text) if block.lang == "json" else documents(block)
    except (ValueError, yaml.YAMLError) as exc:
        pytest.fail(f"{block.where}: {block.lang} does not parse: {exc}")


def receiver_configs() -> list[Block]:
    return [b for b in CHECKED if any(isinstance(d, dict) and {"inbound", "receivers"} <= set(d) for d in documents(b))]


@pytest.mark.parametrize("block", receiver_configs(), ids=ids)
def test_receiver_configs_are_what_the_receiver_accepts(block: Block, tmp_path: Path) -> None:
    write_named_files(block, tmp_path)
    (config,) = documents(block)
    parse_receiver_config(config, block.where, tmp_path)  # raises ConfigError naming the key


def test_the_receiver_config_is_documented() -> None:
    assert receiver_configs()


CHART_TOP_KEYS = set(yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8")))


def chart_value_blocks() -> list[Block]:
    """Blocks that say they are our chart's values, and every block shaped like them (only our top-level
    keys) unless its first line says it is argo-helm's argo-cd chart's."""
    out = []
    for b in CHECKED:
        docs = documents(b)
        shaped = bool(docs) and all(isinstance(d, dict) and d and set(d) <= CHART_TOP_KEYS for d in docs)
        foreign = "argo-helm" in b.text.split("\n", 1)[0] or "argo-cd chart" in b.text.split("\n", 1)[0]
        if b.text.startswith(CHART_VALUES_COMMENT) or (shaped and not foreign):
            out.append(b)
    return out


def merged(base: Any, top: Any) -> Any:
    if isinstance(base, dict) and isinstance(top, dict):
        out = copy.deepcopy(base)
        for key, value in top.items():
            out[key] = merged(out.get(key), value) if key in out else value
        return out
    return top


@pytest.mark.parametrize("block", chart_value_blocks(), ids=ids)
def test_chart_values_blocks_are_accepted_by_the_chart(block: Block) -> None:
    schema = json.loads((CHART / "values.schema.json").read_text(encoding="utf-8"))
    defaults = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
    for doc in documents(block):
        problems = [
            f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
            for e in jsonschema.Draft7Validator(schema).iter_errors(merged(defaults, doc))
        ]
        assert problems == [], f"{block.where}: the chart refuses these values"


def test_chart_values_are_documented() -> None:
    assert chart_value_blocks()


PARAMETER = re.compile(
    r"\{\{-?\s*\.?((?:lifecycle|kubernetes|metadata|rollout)\.[A-Za-z.]+|name|nameNormalized|server)\b"
)


def appset_texts() -> list[tuple[str, str]]:
    out = [(b.where, b.text) for b in CHECKED if "kind: ApplicationSet" in b.text or "templatePatch" in b.text]
    examples = [REPO / "examples" / "applicationset.yaml", REPO / "examples" / "applicationset-rollout.yaml"]
    return [*out, *((str(e.relative_to(REPO)), e.read_text(encoding="utf-8")) for e in examples)]


@pytest.mark.parametrize(("where", "text"), appset_texts(), ids=[w for w, _ in appset_texts()])
def test_applicationset_templates_use_parameters_the_generator_gives(where: str, text: str) -> None:
    known = names.generator_parameters()
    used = {m.group(1) for m in PARAMETER.finditer(text)}
    wrong = {u for u in used if u not in known and not u.startswith(("metadata.labels.", "metadata.annotations."))}
    assert wrong == set(), f"{where}: not parameters of the plugin generator"


def plugin_parameter_names(node: Any) -> list[str]:
    """Names under every `plugin: {parameters: [...]}` of a document."""
    out: list[str] = []
    if isinstance(node, dict):
        plugin = node.get("plugin")
        if isinstance(plugin, dict) and isinstance(plugin.get("parameters"), list):
            out += [p.get("name") for p in plugin["parameters"] if isinstance(p, dict)]
        for value in node.values():
            out += plugin_parameter_names(value)
    elif isinstance(node, list):
        for item in node:
            out += plugin_parameter_names(item)
    return out


@pytest.mark.parametrize("block", CHECKED, ids=ids)
def test_plugin_parameters_are_the_plugins(block: Block) -> None:
    used = {n for doc in documents(block) for n in plugin_parameter_names(doc)}
    assert used - names.plugin_parameters() == set(), f"{block.where}: not parameters of the plugin"


def invocations(text: str) -> list[list[str]]:
    """argv after `argocd-lifecycle` of each command line in a shell block (continuations joined)."""
    out = []
    for raw in text.replace("\\\n", " ").splitlines():
        for part in re.split(r"&&|\|\||[|;]", raw.split(" #", 1)[0]):
            try:
                words = shlex.split(part, comments=True)
            except ValueError:
                continue
            if words and words[0] == "argocd-lifecycle":
                argv = []
                for word in words[1:]:
                    if word.startswith((">", "<", "2>")):
                        break
                    argv.append(word)
                out.append(argv)
    return out


def check_invocation(argv: list[str]) -> list[str]:
    commands = names.commands()
    path: tuple[str, ...] = ()
    for word in argv:
        if (*path, word) in commands:
            path = (*path, word)
        elif not word.startswith("-"):
            break
    command = commands[path]
    if path == () and argv:
        return [f"argocd-lifecycle has no command {argv[0]!r}"]
    known = names.options(command)
    flags = {w.split("=", 1)[0] for w in argv if w.startswith("-") and w != "-" and not re.fullmatch(r"-\d.*", w)}
    return [f"`argocd-lifecycle {' '.join(path)}` has no option {f}" for f in sorted(flags - known)]


@pytest.mark.parametrize("block", SHELL, ids=ids)
def test_command_lines_run_commands_with_their_options(block: Block) -> None:
    problems = [p for argv in invocations(block.text) for p in check_invocation(argv)]
    assert problems == [], block.where


def test_a_wrong_flag_or_command_is_caught() -> None:
    assert check_invocation(["generator", "serve", "--token-fil", "t"]) == [
        "`argocd-lifecycle generator serve` has no option --token-fil"
    ]
    assert check_invocation(["servee"]) == ["argocd-lifecycle has no command 'servee'"]
    assert invocations("F=x\nargocd-lifecycle scan a/ -t 1.33 -o json | jq . # c\n") == [
        ["scan", "a/", "-t", "1.33", "-o", "json"]
    ]
