"""A plugin's report view that fails does not take the report down: its result is shown as
JSON, with a PluginWarning naming the plugin and the error. A built-in view's failure is a
bug, and raises."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from evalsig.plugins import Plugin, PluginWarning
from evalsig.report import html

KIND = "plugin-test-kind"


@pytest.fixture
def installed() -> Iterator[dict[str, Any]]:
    """A view installed as the entry-point loader installs a plugin's (then removed)."""
    behaviour: dict[str, Any] = {"fail": True}

    def build(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if behaviour["fail"]:
            raise KeyError("score_low")
        return "raw", {"heading": "Quiz summary", "json": "{}", "reason": "Plugin view"}

    plugin = Plugin(
        group="evalsig.report_sections",
        name="quiz-summary",
        target="evalsig_quiz:SECTION",
        distribution="evalsig-quiz",
        version="0.2.0",
    )
    html._install_plugin((KIND, build), plugin)
    try:
        yield behaviour
    finally:
        html._SECTIONS.pop(KIND, None)
        html._FROM_PLUGIN.pop(KIND, None)


def test_a_failing_plugin_view_shows_the_result_as_json_and_warns(
    installed: dict[str, Any],
) -> None:
    result = {"kind": KIND, "model": "<b>quiz</b>"}
    with pytest.warns(PluginWarning, match=r"evalsig-quiz 0\.2\.0 \(quiz-summary\).*KeyError"):
        shown = html.section(result)
    assert shown["kind"] == "raw"
    body = str(shown["body"])
    assert "The view from plugin evalsig-quiz 0.2.0 (quiz-summary) failed" in body
    assert "&lt;b&gt;quiz&lt;/b&gt;" in body  # the JSON, escaped
    assert "<b>quiz</b>" not in body
    with pytest.warns(PluginWarning):  # the rest of the report renders
        page = html.page([result, {"kind": "no-view-kind"}])
    assert "Result of kind &#39;no-view-kind&#39;" in page


def test_a_working_plugin_view_is_used(installed: dict[str, Any]) -> None:
    installed["fail"] = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        shown = html.section({"kind": KIND})
    assert "Plugin view; its JSON follows." in str(shown["body"])


def test_a_failing_built_in_view_raises() -> None:
    with pytest.raises(KeyError):
        html.section({"kind": "comparison"})  # a comparison without its fields
