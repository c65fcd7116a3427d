"""How long a new MSK channel or Firehose stream reads CREATING is undocumented (readings
`channel_creating_reads`, `delivery_stream_creating_reads`): the paths read carry the status AWS answers, and
a later read sees them ACTIVE, whichever way AWS behaves."""

from __future__ import annotations

import pytest

from local.standins import LocalAws
from tests.integration.delivery.test_delivery_reads import reader, seed, source


@pytest.mark.parametrize("creating_reads", [0, 5])
def test_a_new_channel_and_stream_read_creating_until_aws_says_active(
    local_aws: LocalAws, creating_reads: int
) -> None:
    # Given a channel and a stream created while new ones stay CREATING for `creating_reads` reads (each
    # listing page and description is one)
    local_aws.set_readings(
        channel_creating_reads=creating_reads, delivery_stream_creating_reads=creating_reads
    )
    seed(local_aws)
    clock = [1_000.0]
    paths = reader(clock)

    # When the paths are read at once, then until the stand-ins have answered CREATING that often
    first = {path.origin: path.status for path in paths.read([source()]).paths}
    statuses = [first]
    for _ in range(creating_reads + 1):
        clock[0] += 86_400  # past the streams' daily refresh
        statuses.append({path.origin: path.status for path in paths.read([source()]).paths})

    # Then the first read reports what AWS answered: CREATING under the slow reading, ACTIVE otherwise
    expected = "CREATING" if creating_reads else "ACTIVE"
    assert first["channel:orders-channel"] == expected
    assert first["firehose:payments-to-lake"] == expected
    # and once AWS answers ACTIVE, a later read sees it: no path stays CREATING for good
    assert set(statuses[-1].values()) == {"ACTIVE"}
