import os

import pytest

from honyaku.cli.dialog import TerminalInput


@pytest.mark.anyio
async def test_lines_arriving_together_or_in_pieces_come_out_one_by_one_then_none():
    reader, writer = os.pipe()
    keyboard = TerminalInput(reader)
    try:
        os.write(writer, "一行目\n二行".encode())
        first = await keyboard.line()
        os.write(writer, "目\r\n".encode()[:1])
        os.write(writer, "目\r\n".encode()[1:] + "三".encode())
        second = await keyboard.line()
        os.close(writer)
        third, end = await keyboard.line(), await keyboard.line()
    finally:
        os.close(reader)

    assert (first, second, third, end) == ("一行目", "二行目", "三", None)
