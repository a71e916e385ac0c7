"""Which chapters a job covers, as a person writes it: ``1-3,7``."""

from __future__ import annotations

from honyaku.errors import NotFoundError, UserError


def parse_chapter_numbers(spec: str | None, count: int) -> list[int] | None:
    """``"1-3,7"`` → ``[1, 2, 3, 7]`` for a book of ``count`` chapters; ``None`` (or nothing
    but spaces) means all."""
    if spec is None or not spec.strip():
        return None
    numbers: set[int] = set()
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        try:
            low, high = int(first), int(last or first)
        except ValueError:
            raise UserError(
                "chapters: {part!r} is not a chapter number or range like 1-3", part=part
            ) from None
        if not (1 <= low <= count and 1 <= high <= count):
            raise NotFoundError("chapters: {part!r} is outside 1-{count}", part=part, count=count)
        if low > high:
            raise UserError(
                "chapters: {part!r} is reversed; write {high}-{low}", part=part, high=high, low=low
            )
        numbers.update(range(low, high + 1))
    return sorted(numbers)
