"""How requests spread over a profile's endpoints: the choice, the rests, the adaptive limits."""

from __future__ import annotations

from honyaku.domain.endpoints import (
    FIRST_REST_S,
    MAX_LIMIT,
    MAX_REST_S,
    START_LIMIT,
    EndpointHealth,
    choose_endpoint,
)


def test_the_endpoint_with_the_largest_share_of_its_limit_free_takes_the_next_request():
    busy = EndpointHealth(limit=4, in_flight=3)
    idle = EndpointHealth(limit=4, in_flight=1)
    big = EndpointHealth(limit=16, in_flight=3)

    assert choose_endpoint([busy, idle], now=0.0) == 1
    assert choose_endpoint([idle, big], now=0.0) == 1


def test_one_request_at_a_time_still_alternates_between_equal_endpoints():
    endpoints = [EndpointHealth(), EndpointHealth()]
    chosen = []
    for now in range(4):
        n = choose_endpoint(endpoints, now=float(now))
        assert n is not None
        chosen.append(n)
        endpoints[n] = endpoints[n].chosen(float(now)).succeeded()

    assert chosen == [0, 1, 0, 1]


def test_a_resting_endpoint_takes_no_request_while_another_is_awake():
    resting = EndpointHealth().chosen(0.0).failed(now=0.0)
    awake = EndpointHealth(last_chosen=1.0)

    assert choose_endpoint([resting, awake], now=1.0) == 1
    assert choose_endpoint([resting, awake], now=FIRST_REST_S + 1) == 0


def test_when_every_endpoint_rests_the_one_that_wakes_first_is_tried():
    late = EndpointHealth(resting_until=50.0)
    early = EndpointHealth(resting_until=20.0)

    assert choose_endpoint([late, early], now=10.0) == 1


def test_when_every_endpoint_awake_is_full_the_request_waits():
    full = EndpointHealth(limit=2, in_flight=2)

    assert choose_endpoint([full, EndpointHealth(resting_until=99.0), full], now=0.0) is None


def test_skipped_endpoints_are_not_chosen():
    assert choose_endpoint([EndpointHealth(), EndpointHealth()], now=0.0, skip={0}) == 1


def test_each_success_allows_one_more_request_at_once_up_to_the_ceiling():
    health = EndpointHealth()
    for _ in range(3):
        health = health.chosen(0.0).succeeded()
    assert health.limit == START_LIMIT + 3
    assert health.in_flight == 0

    for _ in range(2 * MAX_LIMIT):
        health = health.chosen(0.0).succeeded()
    assert health.limit == MAX_LIMIT


def test_a_429_halves_the_limit_down_to_one_and_rests_as_long_as_the_server_asked():
    health = EndpointHealth(limit=9).chosen(0.0).rate_limited(now=10.0, retry_after_s=30.0)

    assert health.limit == 4
    assert health.resting(39.0)
    assert not health.resting(40.0)
    for _ in range(5):
        health = health.chosen(0.0).rate_limited(now=10.0, retry_after_s=None)
    assert health.limit == 1


def test_failures_in_a_row_rest_twice_as_long_each_time_up_to_a_cap_and_a_success_forgives():
    health = EndpointHealth()
    rests = []
    for now in (0.0, 1000.0, 2000.0):
        health = health.chosen(now).failed(now)
        rests.append(health.resting_until - now)
    assert rests == [FIRST_REST_S, 2 * FIRST_REST_S, 4 * FIRST_REST_S]

    for _ in range(20):
        health = health.chosen(0.0).failed(5000.0)
    assert health.resting_until == 5000.0 + MAX_REST_S

    assert health.chosen(0.0).succeeded().failures == 0
