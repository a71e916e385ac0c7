import pytest

from honyaku.domain.workflow import JobKind, TaskStatus, allowed_moves, is_allowed

S = TaskStatus


@pytest.mark.parametrize(
    ("kind", "current", "target"),
    [
        (JobKind.TRANSLATION, S.PLANNING, S.WORKING),
        (JobKind.TRANSLATION, S.WORKING, S.REVIEW),
        (JobKind.TRANSLATION, S.REVIEW, S.WORKING),
        (JobKind.TRANSLATION, S.REVIEW, S.END),
        (JobKind.POLISH, S.PLANNING, S.WORKING),
        (JobKind.POLISH, S.WORKING, S.END),
        (JobKind.PROOFREADING, S.PLANNING, S.WORKING),
        (JobKind.PROOFREADING, S.WORKING, S.END),
    ],
)
def test_the_seed_table_allows_exactly_its_moves(kind, current, target):
    assert is_allowed(kind, current, target)


@pytest.mark.parametrize(
    ("kind", "current", "target"),
    [
        (JobKind.TRANSLATION, S.PLANNING, S.END),
        (JobKind.TRANSLATION, S.WORKING, S.END),
        (JobKind.TRANSLATION, S.END, S.WORKING),
        (JobKind.POLISH, S.WORKING, S.REVIEW),
        (JobKind.PROOFREADING, S.WORKING, S.REVIEW),
        (JobKind.POLISH, S.END, S.WORKING),
    ],
)
def test_moves_outside_the_table_are_refused(kind, current, target):
    assert not is_allowed(kind, current, target)


def test_review_may_go_back_to_working_or_end_and_revisions_go_straight_to_end():
    assert allowed_moves(JobKind.TRANSLATION, S.REVIEW) == [S.WORKING, S.END]
    assert allowed_moves(JobKind.POLISH, S.WORKING) == [S.END]
