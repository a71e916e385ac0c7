"""How fast a model works on its server, learned from its replies, and how long to wait for one.

A local server on a CPU reads a prompt at some hundreds of tokens a second and writes at a few
dozen, so a reply to a long chunk takes minutes; a hosted API takes seconds. The same fixed
bounds cannot serve both: generous ones make a dead hosted server cost minutes, tight ones cut a
slow but healthy local server and retry it from the start, which only makes it slower. So each
reply is timed (``ReplyTiming``) and folded into the model's ``Pace``, which says how long the
next reply should take and sets its bounds:

- **first byte**: ``PACE_MARGIN`` times the whole expected reply (reading the prompt, then
  writing the longest reply seen), as some servers send nothing until a tool call is complete
  (llama.cpp's grammar-forced function calling);
- **idle**: ``PACE_MARGIN`` times the writing of the longest reply seen, as those servers are
  silent while they write each call.

Neither is ever below the configured bounds: pace only lengthens a wait, for a server that has
shown it needs it, and a dead server is still given up on, after that longer but bounded time.
"""

from __future__ import annotations

from dataclasses import dataclass

PACE_MARGIN = 3.0
"""How many times its expected time a reply may take before the server is given up on: a
machine shared with other work, a longer reply than any before."""
READ_TO_WRITE_RATIO = 10.0
"""How many prompt tokens a server reads in the time it writes one, where a reply that came in
one burst cannot tell the two apart (llama.cpp on a CPU reads ten to forty times faster)."""
SMOOTHING = 0.5
"""The weight of the newest reply in the learned rates: a server's load changes."""
BURST_SHARE = 0.8
"""A reply whose first content came after this share of its time arrived in one burst."""


@dataclass(frozen=True, slots=True)
class ReplyTiming:
    """One reply, timed from sending its request."""

    prompt_tokens: int
    output_tokens: int
    first_content_s: float
    """Until the first chunk that carried content (text, reasoning or a call)."""
    total_s: float
    """Until the reply was whole."""

    @property
    def in_one_burst(self) -> bool:
        """Its content came at the end only: the server held it back while it wrote."""
        return self.first_content_s >= BURST_SHARE * self.total_s


@dataclass(frozen=True, slots=True)
class Bounds:
    first_byte_s: float
    idle_s: float


@dataclass(frozen=True, slots=True)
class Pace:
    """A model's pace on one server, learned from ``replies`` replies."""

    prompt_tokens_per_s: float
    output_tokens_per_s: float
    longest_reply_tokens: int
    replies: int = 1

    @classmethod
    def first(cls, timing: ReplyTiming) -> Pace | None:
        """The pace one reply shows; ``None`` for a reply too small to time."""
        return cls._measured(timing, prompt_tokens_per_s=None)

    def observe(self, timing: ReplyTiming) -> Pace:
        """This pace with one more reply folded in."""
        seen = Pace._measured(timing, prompt_tokens_per_s=self.prompt_tokens_per_s)
        if seen is None:
            return self
        return Pace(
            _blend(self.prompt_tokens_per_s, seen.prompt_tokens_per_s),
            _blend(self.output_tokens_per_s, seen.output_tokens_per_s),
            max(self.longest_reply_tokens, seen.longest_reply_tokens),
            self.replies + 1,
        )

    def reading_s(self, prompt_tokens: int) -> float:
        return prompt_tokens / self.prompt_tokens_per_s

    def writing_s(self) -> float:
        """Writing the longest reply seen."""
        return self.longest_reply_tokens / self.output_tokens_per_s

    def expected_s(self, prompt_tokens: int) -> float:
        """How long a reply to ``prompt_tokens`` should take, the longest reply seen written."""
        return self.reading_s(prompt_tokens) + self.writing_s()

    def bounds(self, prompt_tokens: int, floor: Bounds) -> Bounds:
        """The bounds for a request of ``prompt_tokens``: never below ``floor``."""
        return Bounds(
            max(floor.first_byte_s, PACE_MARGIN * self.expected_s(prompt_tokens)),
            max(floor.idle_s, PACE_MARGIN * self.writing_s()),
        )

    @staticmethod
    def _measured(timing: ReplyTiming, *, prompt_tokens_per_s: float | None) -> Pace | None:
        if timing.total_s <= 0 or timing.prompt_tokens <= 0 or timing.output_tokens <= 0:
            return None
        if not timing.in_one_burst:
            reading_s = timing.first_content_s
        elif prompt_tokens_per_s is not None:
            reading_s = min(timing.prompt_tokens / prompt_tokens_per_s, timing.total_s / 2)
        else:
            share = timing.prompt_tokens / (
                timing.prompt_tokens + READ_TO_WRITE_RATIO * timing.output_tokens
            )
            reading_s = timing.total_s * share
        # A reply that streamed at once still read its prompt: a tenth of a millisecond a token
        # at most is as fast as any server reads.
        reading_s = max(reading_s, timing.prompt_tokens * 1e-4)
        writing_s = max(timing.total_s - reading_s, timing.output_tokens * 1e-4)
        return Pace(
            timing.prompt_tokens / reading_s,
            timing.output_tokens / writing_s,
            timing.output_tokens,
        )


def _blend(old: float, new: float) -> float:
    return (1 - SMOOTHING) * old + SMOOTHING * new
