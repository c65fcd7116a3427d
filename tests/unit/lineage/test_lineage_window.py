"""A follow-up's share of a lineage chain (lineage/window.py): the topics after the groups the chain
finished, as many edges as the follow-up has time for; and where the next one resumes."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_lineage.lineage.model import EdgeKey
from kafka_lineage.lineage.plan import Selection
from kafka_lineage.lineage.window import edge_budget, resume_point, window
from kafka_lineage.model.state_layout import hash_group
from kafka_lineage.model.topics import TopicKey

BITS = 8


@dataclass(frozen=True)
class Edge:
    edge: EdgeKey


class Resolution:
    """Each mirrored topic feeds one table of its own name."""

    def edges_of(self, key: TopicKey) -> list[Edge]:
        return [Edge(EdgeKey(key, "sink", f"shop/{key.topic}"))]


def topic(n: int) -> TopicKey:
    return TopicKey("cdc", f"t{n:03d}")


def group_of(key: TopicKey) -> str:
    return hash_group(Resolution().edges_of(key)[0].edge.key, BITS)


TOPICS = [topic(n) for n in range(200)]


def test_a_follow_up_takes_the_topics_after_the_finished_groups_up_to_its_budget_and_retractions() -> None:
    # Given 200 mirrored topics, a chain that finished through group 3f, and a topic whose schema is gone
    gone = TopicKey("cdc", "gone")
    states = {EdgeKey(gone, "sink", "shop/gone").key: object()}
    selection = Selection((*TOPICS, gone))
    # When a follow-up with time for 50 edges takes its share
    share = window(selection, Resolution(), states, set(TOPICS), "3f", 50, BITS)  # type: ignore[arg-type]
    # Then it takes the retraction, and whole groups after 3f holding at most 50 edges
    taken = [key for key in share.selection.keys if key != gone]
    assert gone in share.selection.keys
    assert 0 < len(taken) <= 50
    assert all("3f" < group_of(key) <= str(share.end) for key in taken)
    # And every topic after 3f it did not take is left beyond its window, in the groups after its end
    after = [key for key in TOPICS if group_of(key) > "3f"]
    assert share.beyond == len(after) - len(taken)
    assert all(group_of(key) > str(share.end) for key in after if key not in taken)
    # And no topic of the finished groups is looked at again
    assert not [key for key in taken if group_of(key) <= "3f"]


def test_a_follow_up_with_time_for_everything_left_has_no_window() -> None:
    # Given a chain that finished through group 7f
    selection = Selection(tuple(TOPICS))
    # When a follow-up with time for every edge left takes its share
    share = window(selection, Resolution(), {}, set(TOPICS), "7f", 10_000, BITS)  # type: ignore[arg-type]
    # Then it takes every topic after 7f and leaves none
    assert set(share.selection.keys) == {key for key in TOPICS if group_of(key) > "7f"}
    assert (share.beyond, share.end) == (0, None)


def test_the_resume_point_is_the_window_end_once_all_in_it_was_done_else_where_the_actions_stopped() -> None:
    # Given a follow-up of a chain finished through 3f, whose window ends at 7f
    # When it did everything it took, Then the next resumes after its window
    assert resume_point("3f", "7f", "6a", finished=True) == "7f"
    # When its actions stopped after group 52, Then after 52
    assert resume_point("3f", "7f", "52", finished=False) == "52"
    # When not even its first group was done, Then where the chain was
    assert resume_point("3f", "7f", None, finished=False) == "3f"
    # And a first invocation (no window) resumes where its actions stopped
    assert resume_point(None, None, "20", finished=False) == "20"
    assert resume_point(None, None, None, finished=False) is None


def test_the_budget_is_the_edges_the_posts_ceiling_allows_in_the_time_left_with_slack() -> None:
    # Given 240 s left at 20 posts a second, two posts an edge
    # Then about 2,400 edges, and some more for edges found unchanged
    assert 2_400 < edge_budget(240.0, 20.0) <= 3_000
