"""The pages keep up with the code: checks that a documentation audit made by hand, kept where they are cheap.

Each test reads the code's own declaration (the click command tree, the settings models, the stack's
alarms and the Smithy models) and the page that must show it, so a new option, setting, alarm or form type
that no page names fails here instead of in the next audit. The command-line check is page-wide: an option
shared by several commands is found once for all of them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from kafka_lineage.config import Source
from kafka_lineage_cdk.cli import main as installed
from local.cli import main as local
from stacks import source_config
from stacks.source_config import SourceAccountConfig

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# docs/cli.md shows both: the installed kafka-lineage, and the checkout's `python -m local` (as `local`).
main = click.Group(commands={**installed.commands, "local": local})


def _commands(
    group: click.Command, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every command of the tree with its path below `kafka-lineage` (the root's path is empty)."""
    yield path, group
    if isinstance(group, click.Group):
        for name, command in group.commands.items():
            yield from _commands(command, (*path, name))


def _options(command: click.Command) -> set[str]:
    return {
        flag
        for param in command.params
        if isinstance(param, click.Option)
        for flag in (*param.opts, *param.secondary_opts)
        if flag.startswith("--")
    }


def _mentions(text: str, flag: str) -> bool:
    """`flag` as a whole option in the text: `--verify` is not found inside `--verify-all`."""
    return re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text) is not None


def _section(page: str, heading: str) -> str:
    text = (DOCS / page).read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_tree_walk_finds_the_commands_and_options_it_checks():
    # Given the command line's tree
    # When it is walked
    found = dict(_commands(main))
    # Then it reaches the nested local commands and their options (so the next test checks something)
    assert ("local", "lineage") in found
    assert "--allow-mass-delete" in _options(found[("local", "lineage")])
    assert "--schema-arn" in _options(found[("plan",)])


@pytest.mark.parametrize(
    ("path", "command"),
    [pytest.param(path, command, id=" ".join(path) or "main") for path, command in _commands(main)],
)
def test_every_command_and_option_of_the_command_line_is_on_its_page(
    path: tuple[str, ...], command: click.Command
):
    # Given docs/cli.md
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    # When a command of `kafka-lineage` is looked up on it
    missing = sorted(flag for flag in _options(command) if not _mentions(page, flag))
    # Then the page names the command and every one of its options
    # (the checkout's local commands are shown as `python -m local ...`)
    program = "python -m" if path[:1] == ("local",) else "kafka-lineage"
    assert not path or f"{program} {' '.join(path)}" in page, f"docs/cli.md never shows {' '.join(path)}"
    assert not missing, f"docs/cli.md does not name {missing} of `kafka-lineage {' '.join(path)}`"


def test_the_sample_sources_entry_sets_every_member_it_claims_to():
    # Given the configuration page's sample `sources` entry, said to set every member
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    match = re.search(r"every member set:\s*```json\n(.*?)```", text, re.DOTALL)
    assert match, "docs/configuration.md lost its sample sources entry"
    sample = json.loads(match.group(1))
    after = text[match.end() : match.end() + 400]
    # When its keys are compared with the model's (the cross-account pair is named in the sentence after it)
    expected = {field.alias or name for name, field in Source.model_fields.items()}
    cross_account = {key for key in expected - sample.keys() if f'"{key}"' in after}
    # Then no member is left out, and the sample holds only members the model knows
    assert expected - sample.keys() - cross_account == set()
    assert sample.keys() <= expected


@pytest.mark.parametrize(
    "where",
    ["the source stack's docstring", "deploy.md, two accounts"],
)
def test_every_source_stack_key_is_named_where_the_source_stack_is_explained(where: str):
    # Given the keys of the `kafkaLineageSource` context
    keys = {field.alias or name for name, field in SourceAccountConfig.model_fields.items()}
    # When the text that lists them is read
    if where == "deploy.md, two accounts":
        text = _section("deploy.md", "Two accounts: a governance account and source accounts")
        keys -= {"stackName"}  # the stack's name is the command's argument there
    else:
        text = source_config.__doc__ or ""
    # Then each key is named
    assert not sorted(key for key in keys if f"`{key}`" not in text), where


def test_check_the_result_names_every_alarm_and_form_type_the_stack_creates():
    # Given what the stack creates: its alarms (the one catalog the stacks build them from) and the form types
    # of smithy/
    from kafka_lineage.model.metrics import ALARMS

    alarms = [alarm.construct_id for alarm in ALARMS]
    forms = [path.stem for path in (ROOT / "smithy").glob("*.smithy")]
    assert "BreakingSchemaDriftAlarm" in alarms
    assert "KafkaSchemaFormType" in forms
    # When the deploy page's "Check the result" is read as committed (its alarm list generated into it)
    section = _section("deploy.md", "Check the result")
    # Then it names each form type and each alarm (the per-function error alarms as `…ErrorsAlarm`)
    assert not [form for form in forms if f"`{form}`" not in section]
    assert not [alarm for alarm in alarms if alarm not in section]
    assert "ErrorsAlarm" in section
