"""An EPUB's zip archive, read under the size caps in ``limits``.

Every zip and I/O failure becomes a ``BookFormatError`` here, so nothing above sees zipfile's
exceptions. Entry names are looked up forgivingly, as real EPUBs need: percent-decoded,
Unicode-normalized, with a case-insensitive fallback, and with names that were stored in a
legacy encoding (no UTF-8 flag) decoded again as UTF-8 or CP932.
"""

from __future__ import annotations

import io
import unicodedata
import zipfile
import zlib
from pathlib import Path
from types import TracebackType

from honyaku.errors import BookFormatError
from honyaku.formats.limits import (
    MAX_EPUB_ENTRIES,
    MAX_EPUB_ENTRY_BYTES,
    MAX_EPUB_FILE_BYTES,
    MAX_EPUB_TOTAL_BYTES,
    MIB,
)

UTF8_NAME_FLAG = 0x800

_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError)


class EpubArchive:
    """An open zip, from a file or from its bytes; use as a context manager."""

    def __init__(self, path: Path | bytes, source: str) -> None:
        self.source = source
        self._bytes_read = 0
        size = len(path) if isinstance(path, bytes) else path.stat().st_size
        if size > MAX_EPUB_FILE_BYTES:
            raise BookFormatError(f"{source}: larger than {MAX_EPUB_FILE_BYTES // MIB} MB")
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(path) if isinstance(path, bytes) else path)
            infos = self._zip.infolist()
        except _ZIP_ERRORS as error:
            raise BookFormatError(
                f"{source}: a damaged or truncated zip archive ({error})"
            ) from None
        if len(infos) > MAX_EPUB_ENTRIES:
            self._zip.close()
            raise BookFormatError(f"{source}: too many zip entries ({len(infos)})")
        self._exact: dict[str, zipfile.ZipInfo] = {}
        self._folded: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            for key in _name_variants(info):
                self._exact.setdefault(key, info)
                self._folded.setdefault(key.casefold(), info)

    def __enter__(self) -> EpubArchive:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._zip.close()

    def names(self) -> list[str]:
        return [info.filename for info in self._zip.infolist() if not info.is_dir()]

    def entries(self) -> list[tuple[str, zipfile.ZipInfo]]:
        """Each file entry once, in archive order, under the name the book's files use for it
        (a name stored in a legacy encoding comes back decoded)."""
        entries: dict[str, zipfile.ZipInfo] = {}
        for info in self._zip.infolist():
            if not info.is_dir():
                variants = _name_variants(info)
                entries.setdefault(variants[1] if len(variants) > 1 else variants[0], info)
        return list(entries.items())

    def find(self, name: str) -> zipfile.ZipInfo | None:
        key = _normalize(name)
        return self._exact.get(key) or self._folded.get(key.casefold())

    def read(self, name: str) -> bytes | None:
        """The entry's bytes, or ``None`` when the archive has no such entry."""
        info = self.find(name)
        if info is None:
            return None
        where = f"{self.source}: {info.filename}"
        if info.file_size > MAX_EPUB_ENTRY_BYTES:
            raise BookFormatError(f"{where}: larger than {MAX_EPUB_ENTRY_BYTES // MIB} MB unpacked")
        if self._bytes_read + info.file_size > MAX_EPUB_TOTAL_BYTES:
            raise BookFormatError(self._total_message())
        try:
            with self._zip.open(info) as entry:
                data = entry.read(MAX_EPUB_ENTRY_BYTES + 1)
        except (*_ZIP_ERRORS, RuntimeError) as error:
            raise BookFormatError(f"{where}: a damaged or encrypted zip entry ({error})") from None
        # The declared size can lie; what counts is what actually came out.
        if len(data) > MAX_EPUB_ENTRY_BYTES:
            raise BookFormatError(f"{where}: larger than {MAX_EPUB_ENTRY_BYTES // MIB} MB unpacked")
        self._bytes_read += len(data)
        if self._bytes_read > MAX_EPUB_TOTAL_BYTES:
            raise BookFormatError(self._total_message())
        return data

    def _total_message(self) -> str:
        return f"{self.source}: more than {MAX_EPUB_TOTAL_BYTES // MIB} MB unpacked in all"


def _normalize(name: str) -> str:
    return unicodedata.normalize("NFC", name.replace("\\", "/").lstrip("/"))


def _name_variants(info: zipfile.ZipInfo) -> list[str]:
    names = [info.filename]
    if not info.flag_bits & UTF8_NAME_FLAG and not info.filename.isascii():
        raw = info.filename.encode("cp437")
        for codec in ("utf-8", "cp932"):
            try:
                names.append(raw.decode(codec))
            except UnicodeDecodeError:
                continue
    return [_normalize(name) for name in names]
