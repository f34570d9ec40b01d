"""The assistant's labelled evaluation (`make eval`) as a CI test, on each database.

Targets: at least 95% of the conversations of the gated sets pass, zero constraint violations,
zero ungrounded facts; the tracked sets of eval/targets.yaml are played and reported, not gated
(tests/knowledge/test_eval_sets.py). On failure the report lists each failing turn.
"""

from __future__ import annotations

import pytest

from eval.runner import load_conversations, run


def test_the_labelled_set_is_large_and_varied():
    conversations = load_conversations()
    ids = [c["id"] for c in conversations]

    assert len(conversations) >= 80
    assert len(set(ids)) == len(ids)
    for kind in (
        "search",
        "followup",
        "pdp",
        "store",
        "smalltalk",
        "out-of-scope",
        "nothing-found",
    ):
        assert any(i.startswith(kind) for i in ids), kind
    assert sum(len(c["turns"]) > 1 for c in conversations) >= 20


@pytest.mark.django_db
def test_eval_meets_its_targets():
    report = run()

    assert report.meets_targets, report.text()
    assert report.violations == 0 and report.ungrounded == 0
