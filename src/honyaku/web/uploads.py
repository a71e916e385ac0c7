"""A file uploaded to the workbench (a book, a new edition), saved where the application can
read it: under its own name made safe, and refused past the workbench's size limit."""

from __future__ import annotations

from pathlib import Path

from fastapi import UploadFile

from honyaku.errors import UserError
from honyaku.web.i18n import _

UPLOAD_CHUNK_BYTES = 1024 * 1024
MAX_FILE_NAME_CHARS = 120


def uploaded_file_name(uploaded: str | None) -> str:
    """The uploaded file's own name, for its title and its errors; no folders, nothing that
    is not printable."""
    name = Path((uploaded or "").replace("\\", "/")).name
    name = "".join(ch for ch in name if ch.isprintable()).strip(" .")[:MAX_FILE_NAME_CHARS]
    return name or "book"


async def save_capped(upload: UploadFile, path: Path, limit_bytes: int) -> None:
    size = 0
    with path.open("wb") as saved:
        while chunk := await upload.read(UPLOAD_CHUNK_BYTES):
            size += len(chunk)
            if size > limit_bytes:
                raise UserError(
                    _("the file is larger than {size} MB").format(size=f"{limit_bytes / 2**20:g}")
                )
            saved.write(chunk)
