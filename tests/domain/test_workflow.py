import pytest

from honyaku.domain.book import Paragraph
from honyaku.domain.workflow import ChunkWorkflow, JobKind, TaskStatus, allowed_moves, is_allowed

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


def test_each_result_is_short_and_names_the_next_calls_inviting_those_that_go_together():
    given = {pid: Paragraph(pid, n, f"段落{n}") for n, pid in enumerate(["1a2b3c4d", "2b3c4d5e"])}
    workflow = ChunkWorkflow(JobKind.TRANSLATION, given, ("c0ffee00",), ("c0ffee00",))

    assert workflow.move("working") == {
        "status": "working",
        "title_missing": "c0ffee00",
        "next": "add_translation_batch with the 2 paragraph(s) left, and update_chapter_title "
        'with chapter_id "c0ffee00", in one reply',
    }
    assert workflow.accept(["1a2b3c4d", "2b3c4d5e"]) == {
        "accepted": 2,
        "remaining": 0,
        "title_missing": "c0ffee00",
        "next": 'update_chapter_title with chapter_id "c0ffee00", update_task_status("review") '
        'and update_task_status("end"), in one reply',
    }
    workflow.accepted.clear()
    workflow.accept_title("c0ffee00")
    assert workflow.accept(["1a2b3c4d"]) == {
        "accepted": 1,
        "remaining": 1,
        "remaining_ids": ["2b3c4d5e"],
        "next": "add_translation_batch with the 1 paragraph(s) left",
    }
    assert workflow.accept(["2b3c4d5e"]) == {
        "accepted": 1,
        "remaining": 0,
        "next": 'update_task_status("review") and update_task_status("end"), in one reply',
    }
    assert workflow.move("review") == {
        "status": "review",
        "next": 'update_task_status("end"), or "working" to revise',
    }
    assert workflow.move("end") == {"status": "end"}


def test_a_result_names_where_to_go_on_not_every_paragraph_left():
    ids = [f"{n:08x}" for n in range(12)]
    given = {pid: Paragraph(pid, n, f"段落{n}") for n, pid in enumerate(ids)}
    workflow = ChunkWorkflow(JobKind.TRANSLATION, given, ("c0ffee00",))
    workflow.move("working")

    result = workflow.accept(ids[:3])

    assert result["remaining"] == 9
    assert result["remaining_ids"] == ids[3:8]


def test_a_batch_sent_again_with_the_texts_it_saved_is_already_saved_not_accepted():
    ids = [f"{n:08x}" for n in range(12)]
    given = {pid: Paragraph(pid, n, f"段落{n}") for n, pid in enumerate(ids)}
    workflow = ChunkWorkflow(JobKind.TRANSLATION, given, ("c0ffee00",))
    workflow.move("working")
    workflow.accept(ids[:8], stored=set(ids[:8]))

    again = workflow.accept(ids[:8], stored=set())

    assert again == {
        "accepted": 0,
        "already_saved": 8,
        "already_saved_ids": ids[:5],
        "remaining": 4,
        "remaining_ids": ids[8:],
        "next": "add_translation_batch with the 4 paragraph(s) left",
    }


def test_a_new_text_or_a_first_submission_is_accepted_even_when_no_version_is_added():
    ids = ["1a2b3c4d", "2b3c4d5e", "3c4d5e6f"]
    given = {pid: Paragraph(pid, n, f"段落{n}") for n, pid in enumerate(ids)}
    workflow = ChunkWorkflow(JobKind.TRANSLATION, given, ("c0ffee00",))
    workflow.move("working")
    workflow.accept(ids[:2], stored=set(ids[:2]))

    # A revision of the first is a new version; the third held its text already (an earlier
    # job's version), but this task had not accepted it yet.
    result = workflow.accept(ids[::2], stored={ids[0]})

    assert (result["accepted"], "already_saved" in result) == (2, False)
    assert result["remaining"] == 0


def test_a_revision_is_told_to_submit_its_changes_then_end():
    given = {"1a2b3c4d": Paragraph("1a2b3c4d", 0, "段落", "译文")}
    workflow = ChunkWorkflow(JobKind.POLISH, given, ("c0ffee00",))

    assert workflow.move("working")["next"] == (
        'add_translation_batch with your changes, then update_task_status("end")'
    )
