"""The rules by which requests spread over a profile's endpoints (several local GPU servers,
several keys of one provider), with no I/O: which endpoint takes the next request, how long a
failing one rests, and how many requests each may have in flight.

Concurrency adapts as TCP's does (additive increase, multiplicative decrease): each success
lets an endpoint take one more request at once, up to a ceiling; a 429 halves it. A refused
connection, a server error or a refused key rests the endpoint, twice as long each time in a
row, up to a cap, so one dead server costs one request now and then, not one in two.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

START_LIMIT = 2
"""Requests an endpoint takes at once before it has shown what it bears."""
MAX_LIMIT = 32
FIRST_REST_S = 5.0
MAX_REST_S = 300.0


@dataclass(frozen=True, slots=True)
class EndpointHealth:
    """What honyaku has seen of one endpoint lately."""

    limit: int = START_LIMIT
    """Requests it may have in flight now."""
    in_flight: int = 0
    failures: int = 0
    """Failures in a row; a success clears them."""
    resting_until: float = 0.0
    """A monotonic time before which it takes no request, if another can."""
    last_chosen: float = float("-inf")

    @property
    def room(self) -> int:
        return self.limit - self.in_flight

    @property
    def free_share(self) -> float:
        """The share of its limit still free: a bigger limit takes more of the load."""
        return self.room / self.limit

    def resting(self, now: float) -> bool:
        return now < self.resting_until

    def chosen(self, now: float) -> EndpointHealth:
        return replace(self, in_flight=self.in_flight + 1, last_chosen=now)

    def succeeded(self) -> EndpointHealth:
        """One more request at once, up to ``MAX_LIMIT``; its failures forgiven."""
        return replace(
            self, in_flight=self.in_flight - 1, limit=min(self.limit + 1, MAX_LIMIT), failures=0
        )

    def rate_limited(self, now: float, retry_after_s: float | None) -> EndpointHealth:
        """Half as many at once (at least one), resting as long as the server asked."""
        until = now + retry_after_s if retry_after_s else self.resting_until
        return replace(
            self,
            in_flight=self.in_flight - 1,
            limit=max(1, self.limit // 2),
            resting_until=max(self.resting_until, until),
        )

    def failed(self, now: float) -> EndpointHealth:
        """Resting ``FIRST_REST_S``, doubled for each failure in a row, up to ``MAX_REST_S``."""
        rest_s = min(FIRST_REST_S * 2**self.failures, MAX_REST_S)
        return replace(
            self,
            in_flight=self.in_flight - 1,
            failures=self.failures + 1,
            resting_until=max(self.resting_until, now + rest_s),
        )

    def released(self) -> EndpointHealth:
        """A request that ended neither well nor through the endpoint's fault (a stop)."""
        return replace(self, in_flight=self.in_flight - 1)


def choose_endpoint(
    endpoints: Sequence[EndpointHealth], now: float, *, skip: Collection[int] = ()
) -> int | None:
    """The endpoint for the next request, of those not in ``skip``: of those not resting and
    with room, the one with the largest share of its limit free, then the one chosen longest
    ago (so that one request at a time still spreads). When every one rests, the one that
    wakes first, for a request must go somewhere and waiting would only hide the failure.
    ``None``: every endpoint awake is full."""
    candidates = [n for n in range(len(endpoints)) if n not in skip]
    awake = [n for n in candidates if not endpoints[n].resting(now)]
    if not awake:
        return min(candidates, key=lambda n: endpoints[n].resting_until, default=None)
    open_ = [n for n in awake if endpoints[n].room > 0]
    if not open_:
        return None
    return max(open_, key=lambda n: _preference(endpoints[n]))


def _preference(endpoint: EndpointHealth) -> tuple[float, float]:
    return endpoint.free_share, -endpoint.last_chosen
