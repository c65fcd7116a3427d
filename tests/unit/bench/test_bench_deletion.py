"""bench/deletion.py: the old and the new deletion path on the same assets, counted (never timed)."""

from __future__ import annotations

from bench import deletion


def test_the_new_path_is_one_delete_asset_per_asset_and_the_old_one_unpublishes_and_polls() -> None:
    before, after = deletion.run(assets=3, listing_change_calls=1)
    assert after.calls == {"DeleteAsset": 3}
    assert after.paused_seconds == 0
    assert before.calls["CreateListingChangeSet"] == 3
    assert before.calls["DeleteAsset"] == 3
    assert before.calls["GetListing"] >= 3  # at least one look at each withdrawn listing
    assert "fewer" in deletion.report(before, after)
